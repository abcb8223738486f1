/**
 * Opening a PKCS#12 file in its own thread: the file's typed errors come back as they are, and a file still being
 * opened when the budget runs out is refused with PKCS12_TOO_COSTLY (its thread ended).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPkcs12OffThread } from '../../src/service/keys/pkcs12-thread.js';
import { P12_PASSWORD } from '../../src/testing/test-pki.js';
import { scratchFiles } from '../helpers/scratch-files.js';
import { signingRefusal } from '../helpers/signing-refusal.js';

const seal = new Uint8Array(readFileSync(join(import.meta.dirname, '../../fixtures/pki/seal.p12')));
const { dir } = scratchFiles('p12-thread');

describe('openPkcs12OffThread', () => {
  it('opens a key store with its chain', async () => {
    const signer = await openPkcs12OffThread(seal, P12_PASSWORD);
    expect(signer.certificateChain).toHaveLength(3);
    expect(await signer.sign(new TextEncoder().encode('sealed'), 'SHA-256')).toBeInstanceOf(Uint8Array);
  });

  it("passes the file's typed errors back", async () => {
    expect((await signingRefusal(openPkcs12OffThread(seal, 'not the password'))).code).toBe('PKCS12_WRONG_PASSWORD');
    expect((await signingRefusal(openPkcs12OffThread(seal.slice(0, 100), P12_PASSWORD))).code).toBe('PKCS12_INVALID');
  });

  it('refuses a file still being opened when the budget runs out', async () => {
    // 60,000 iterations for the MAC and each encryption: well within the limits, far beyond a 1 ms budget.
    const run = (args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-subj', '/CN=seal', '-days', '2']);
    run(['pkcs12', '-export', '-inkey', 'k.pem', '-in', 'c.pem', '-out', 'slow.p12', '-passout', 'pass:pw', '-iter', '60000']);
    const error = await signingRefusal(openPkcs12OffThread(new Uint8Array(readFileSync(join(dir, 'slow.p12'))), 'pw', 1));
    expect(error.code).toBe('PKCS12_TOO_COSTLY');
    expect(error.message).toMatch(/took longer than/);
  });
});
