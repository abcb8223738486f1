/**
 * The Digest header of PUT file (RFC 3230 / RFC 5843, docs/design/files.md#digest).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDigestHeader } from '../../src/http/digest-header.js';

describe('parseDigestHeader', () => {
  it('reads SHA-256 and SHA-512 in any case, with the SHA256 alias, comma-separated', () => {
    const data = Buffer.from('hello');
    const s256 = createHash('sha256').update(data).digest();
    const s512 = createHash('sha512').update(data).digest();
    expect(parseDigestHeader(`SHA-256=${s256.toString('base64')}`)).toEqual({ sha256: s256.toString('hex') });
    expect(parseDigestHeader(`sha256=${s256.toString('base64')} , Sha-512=${s512.toString('base64')}`)).toEqual({
      sha256: s256.toString('hex'),
      sha512: s512.toString('hex'),
    });
    expect(parseDigestHeader(undefined)).toEqual({});
    expect(parseDigestHeader('  ')).toEqual({});
  });

  it('refuses other algorithms naming them, and malformed values', () => {
    expect(() => parseDigestHeader('MD5=XrY7u+Ae7tCTyyK7j1rNww==')).toThrow('Hash algorithm [MD5] is not supported.');
    expect(() => parseDigestHeader('SHA=qvTGHdzF6KLavt4PO0gs2a6pQ00=')).toThrow('Hash algorithm [SHA] is not supported.');
    expect(() => parseDigestHeader('SHA-256=abc')).toThrow(/base64 of 32 bytes/);
    expect(() => parseDigestHeader('SHA-256')).toThrow(/base64 of 32 bytes/);
  });

  it('round-trips any digest (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ minLength: 64, maxLength: 64 }), (a, b) => {
        const header = `SHA-256=${Buffer.from(a).toString('base64')},SHA-512=${Buffer.from(b).toString('base64')}`;
        expect(parseDigestHeader(header)).toEqual({ sha256: Buffer.from(a).toString('hex'), sha512: Buffer.from(b).toString('hex') });
      }),
      { numRuns: 200 },
    );
  });
});
