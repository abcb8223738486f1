import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildTimestampRequest, checkTimestampResponse, createHttpTimestamper, parseTimestampToken } from '../../src/pades/timestamp.js';
import { FAKE_TSA_POLICY, startFakeTsa } from '../../src/testing/start-fake-tsa.js';
import { scratchFiles } from '../helpers/scratch-files.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const { file } = scratchFiles('tsa');

const fx = usePadesFixture({ tsaAt: NOW });

function opensslTsVerify(token: Uint8Array, digestHex: string): string {
  const untrusted = file(fx.pki.tsa.certPem + fx.pki.intermediate.certPem);
  return execFileSync('openssl', ['ts', '-verify', '-digest', digestHex, '-in', file(token), '-token_in', '-CAfile', fx.pki.rootPath, '-untrusted', untrusted], { stdio: 'pipe' }).toString();
}

describe('createHttpTimestamper', () => {
  it('returns a token openssl ts -verify accepts, for SHA-256, SHA-384 and SHA-512 imprints', async () => {
    for (const [hash, name] of [['SHA-256', 'sha256'], ['SHA-384', 'sha384'], ['SHA-512', 'sha512']] as const) {
      const digest = new Uint8Array(createHash(name).update(`signature value ${hash}`).digest());
      const token = await fx.tsa.timestamper()(digest, hash);
      expect(opensslTsVerify(token, Buffer.from(digest).toString('hex'))).toMatch(/Verification: OK/);
      const info = parseTimestampToken(token);
      expect(info.genTime.toISOString()).toBe(NOW.toISOString());
      expect(info.hash).toBe(hash);
      expect(Buffer.from(info.imprint).equals(Buffer.from(digest))).toBe(true);
      expect(info.policy).toBe(FAKE_TSA_POLICY);
      expect(Buffer.from(info.certificates[0]!).equals(Buffer.from(fx.pki.tsa.certDer))).toBe(true);
    }
  });

  it('openssl rejects the token for another digest (the check above is not vacuous)', async () => {
    const digest = new Uint8Array(createHash('sha256').update('x').digest());
    const token = await fx.tsa.timestamper()(digest, 'SHA-256');
    const other = createHash('sha256').update('y').digest('hex');
    expect(() => opensslTsVerify(token, other)).toThrow();
  });

  it('sends a fresh nonce, certReq and the requested policy', async () => {
    const before = fx.tsa.requests.length;
    const digest = new Uint8Array(32).fill(7);
    const timestamper = createHttpTimestamper({ url: fx.tsa.url, random: (len) => new Uint8Array(len).fill(0x11), policy: '1.2.3.4.5' });
    const token = await timestamper(digest, 'SHA-256');
    const req = fx.tsa.requests[before]!;
    expect(req).toMatchObject({ certReq: true, policy: '1.2.3.4.5', nonceHex: '1111111111111111', imprintHex: '07'.repeat(32) });
    expect(parseTimestampToken(token).policy).toBe('1.2.3.4.5');
  });

  it.each([
    ['reject', 'TSA_REJECTED', /refused.*badAlg.*fake TSA told to refuse/],
    ['wrong-nonce', 'TSA_NONCE_MISMATCH', /nonce/],
    ['wrong-imprint', 'TSA_IMPRINT_MISMATCH', /another digest/],
    ['bad-signature', 'TSA_SIGNATURE_INVALID', /signature/],
    ['not-a-tsa', 'TSA_CERTIFICATE_INVALID', /timeStamping/],
    ['http-500', 'TSA_HTTP_ERROR', /HTTP 500/],
  ] as const)('refuses a TSA answer with behaviour %s (%s)', async (behaviour, code, message) => {
    const bad = await startFakeTsa({ pki: fx.pki, now: NOW, behaviour });
    try {
      await expect(bad.timestamper()(new Uint8Array(32), 'SHA-256')).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    } finally {
      await bad.close();
    }
  });

  it('reports an unreachable TSA and a digest of the wrong length', async () => {
    const gone = await startFakeTsa({ pki: fx.pki, now: NOW });
    const url = gone.url;
    await gone.close();
    const timestamper = createHttpTimestamper({ url, random: (len) => new Uint8Array(len).fill(1) });
    await expect(timestamper(new Uint8Array(32), 'SHA-256')).rejects.toMatchObject({ code: 'TSA_UNREACHABLE' });
    await expect(timestamper(new Uint8Array(31), 'SHA-256')).rejects.toMatchObject({ code: 'TSA_BAD_DIGEST' });
  });

  it('checkTimestampResponse refuses garbage and a response for another request', async () => {
    const request = { digest: new Uint8Array(32).fill(3), hash: 'SHA-256' as const, nonce: Uint8Array.of(1, 2, 3) };
    expect(() => checkTimestampResponse(new Uint8Array([0x30, 0x03, 1, 2, 3]), request)).toThrow(expect.objectContaining({ code: 'TSA_BAD_RESPONSE' }));
    const response = await fetch(fx.tsa.url, { method: 'POST', headers: { 'Content-Type': 'application/timestamp-query' }, body: buildTimestampRequest(request) });
    const der = new Uint8Array(await response.arrayBuffer());
    expect(checkTimestampResponse(der, request).length).toBeGreaterThan(100);
    expect(() => checkTimestampResponse(der, { ...request, nonce: Uint8Array.of(9) })).toThrow(expect.objectContaining({ code: 'TSA_NONCE_MISMATCH' }));
  });
});
