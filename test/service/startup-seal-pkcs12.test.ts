/**
 * The service's own qualified seal, configured by PARAPH_QSEAL_P12, is opened under the same iteration cap as an
 * account's: a file asking for millions of key-derivation iterations makes the start fail with a typed
 * PKCS12_TOO_COSTLY error whose message says how to fix it, before the work is done.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParaphError } from '../../src/errors.js';
import { startTestService } from '../helpers/service-harness.js';
import { PKI_DIR } from '../../src/testing/test-pki.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("the service's PKCS#12 seal at start", () => {
  it('asking for millions of iterations: the start fails with PKCS12_TOO_COSTLY and a message that says what to do', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paraph-seal-'));
    dirs.push(dir);
    const file = join(dir, 'seal.p12');
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', join(PKI_DIR, 'seal.key.pem'), '-in', join(PKI_DIR, 'seal.pem'), '-passout', 'pass:pw-hostile', '-out', file, '-iter', '40000']);
    // OpenSSL writes `-iter 40000` as 02 03 00 9c 40; the same length holds 8,388,607 (here the key's count).
    const bytes = await readFile(file);
    const at = bytes.indexOf(Buffer.from('0203009c40', 'hex'), bytes.indexOf(Buffer.from('0203009c40', 'hex')) + 1);
    expect(at).toBeGreaterThan(0);
    Buffer.from('02037fffff', 'hex').copy(bytes, at);
    await writeFile(file, bytes);

    const started = startTestService({ env: { PARAPH_QSEAL_P12: file, PARAPH_QSEAL_P12_PASSWORD: 'pw-hostile' } });
    const error = await started.then(
      async (service) => {
        await service.dispose();
        return undefined;
      },
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ParaphError);
    expect((error as ParaphError).code).toBe('PKCS12_TOO_COSTLY');
    expect((error as ParaphError).message).toMatch(/iteration/i);
  }, 60_000);
});
