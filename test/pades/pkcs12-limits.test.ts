/**
 * A PKCS#12 file states its own key-derivation iteration counts; opening one never runs more than the limits allow,
 * whatever the file says, and bad bytes always end in a typed error.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SigningError } from '../../src/errors.js';
import { guardForgeKeyDerivation, type ForgeKeyDerivation } from '../../src/pades/keys/pkcs12-limits.js';
import { loadPkcs12Signer } from '../../src/pades/keys/pkcs12.js';
import { P12_PASSWORD } from '../../src/testing/test-pki.js';
import { scratchFiles } from '../helpers/scratch-files.js';
import { signingRefusal } from '../helpers/signing-refusal.js';

const { dir } = scratchFiles('p12-limits');
const seal = new Uint8Array(readFileSync(join(import.meta.dirname, '../../fixtures/pki/seal.p12')));

/** A PKCS#12 file written by OpenSSL with `-iter 40000`: its three counts (encrypted certificates, encrypted key, MAC) are `02 03 00 9c 40`. */
function openssl40000(): Uint8Array {
  const run = (args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-subj', '/CN=seal', '-days', '2']);
  run(['pkcs12', '-export', '-inkey', 'k.pem', '-in', 'c.pem', '-out', 'a.p12', '-passout', 'pass:secret', '-iter', '40000']);
  return new Uint8Array(readFileSync(join(dir, 'a.p12')));
}
const COUNT_40000 = Buffer.from('0203009c40', 'hex');
const p12 = openssl40000();

/** `bytes` with the `which`-th iteration count set to 8,388,607 (same length, so the DER stays well formed). */
function withHugeCount(bytes: Uint8Array, which: number): Uint8Array {
  const out = Buffer.from(bytes);
  let at = -1;
  for (let i = 0; i <= which; i++) at = out.indexOf(COUNT_40000, at + 1);
  expect(at).toBeGreaterThan(0);
  Buffer.from('02037fffff', 'hex').copy(out, at);
  return new Uint8Array(out);
}

describe('opening a PKCS#12 file within limits', () => {
  it('opens what OpenSSL writes, with its default and with 40,000 iterations', async () => {
    expect((await loadPkcs12Signer(seal, P12_PASSWORD)).certificateChain.length).toBeGreaterThan(0);
    expect((await loadPkcs12Signer(p12, 'secret')).certificateChain.length).toBe(1);
  });

  it.each([
    [0, 'the encrypted certificates'],
    [1, 'the encrypted key'],
    [2, 'the MAC'],
  ])('refuses a file asking for millions of iterations for %s (#%s), before deriving anything, with the fix', async (which) => {
    const error = await signingRefusal(loadPkcs12Signer(withHugeCount(p12, which), 'secret'));
    expect(error.code).toBe('PKCS12_TOO_COSTLY');
    expect(error.message).toContain('8,388,607');
    expect(error.message).toContain('openssl pkcs12 -export');
  });

  it("applies the caller's limits per derivation and for the whole file", async () => {
    expect((await signingRefusal(loadPkcs12Signer(seal, P12_PASSWORD, { maxIterations: 1000 }))).code).toBe('PKCS12_TOO_COSTLY');
    // OpenSSL's default: three derivations of 2,048.
    expect((await signingRefusal(loadPkcs12Signer(seal, P12_PASSWORD, { maxTotalIterations: 5000 }))).message).toContain('5,000');
    expect((await loadPkcs12Signer(seal, P12_PASSWORD, { maxIterations: 2048, maxTotalIterations: 6144 })).certificateChain.length).toBeGreaterThan(0);
  });

  it('checks the derivations forge runs for what hides in encrypted parts, before each runs', () => {
    const ran: number[] = [];
    const derive = (at: number) => (...args: unknown[]) => void ran.push(args[at] as number);
    const forge: ForgeKeyDerivation = { pkcs12: { generateKey: derive(3) }, pki: { pbe: { generatePkcs12Key: derive(3) } }, pkcs5: { pbkdf2: derive(2) } };
    const original = forge.pkcs5.pbkdf2;
    const open = (): void => {
      forge.pkcs12.generateKey('pw', 'salt', 3, 2048, 32);
      forge.pki.pbe.generatePkcs12Key('pw', 'salt', 1, 2048, 32);
      forge.pki.pbe.generatePkcs12Key('pw', 'salt', 2, 2048, 16);
      forge.pkcs5.pbkdf2('pw', 'salt', 5_000_000, 32);
    };
    expect(() => guardForgeKeyDerivation(forge, {}, open)).toThrow(expect.objectContaining({ code: 'PKCS12_TOO_COSTLY' }));
    expect(ran).toEqual([2048, 2048, 2048]);
    expect(forge.pkcs5.pbkdf2).toBe(original);
  });

  it('refuses a file with more bags than a key store needs', async () => {
    // 65 empty-ish certificate bags in one clear part, no MAC.
    const bag = Buffer.from('300f060b2a864886f70d010c0a0103a000', 'hex');
    bag[1] = bag.length - 2;
    const bags = Buffer.concat(Array.from({ length: 65 }, () => bag));
    const der = (tag: number, body: Buffer): Buffer => {
      const n = body.length;
      const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
      return Buffer.concat([Buffer.from([tag]), length, body]);
    };
    const dataOid = Buffer.from('06092a864886f70d010701', 'hex');
    const data = (body: Buffer): Buffer => der(0x30, Buffer.concat([dataOid, der(0xa0, der(0x04, body))]));
    const pfx = der(0x30, Buffer.concat([Buffer.from('020103', 'hex'), data(der(0x30, data(der(0x30, bags))))]));
    expect((await signingRefusal(loadPkcs12Signer(new Uint8Array(pfx), ''))).code).toBe('PKCS12_TOO_COMPLEX');
  });

  it('ends in a typed error for truncated, corrupted or random bytes (never a crash or a hang)', async () => {
    const damaged = fc.oneof(
      fc.nat({ max: seal.length - 1 }).map((end) => seal.slice(0, end)),
      fc.tuple(fc.nat({ max: seal.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([at, mask]) => {
        const copy = seal.slice();
        copy[at]! ^= mask;
        return copy;
      }),
      fc.uint8Array({ maxLength: 512 }),
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((tail) => new Uint8Array([0x30, 0x82, 0x0f, 0xff, ...tail])),
    );
    await fc.assert(
      fc.asyncProperty(damaged, async (bytes) => {
        const outcome = await loadPkcs12Signer(bytes, P12_PASSWORD).then(
          (signer) => signer,
          (error: unknown) => error,
        );
        // A flipped bit the file's MAC does not cover (e.g. in a salt length the MAC check re-derives) may still open.
        if (outcome instanceof SigningError) expect(outcome.code).toMatch(/^PKCS12_/);
        else expect(outcome).toHaveProperty('certificateChain');
      }),
      { numRuns: 150 },
    );
  });
});
