/**
 * The master key of `paraph seal-secret` and `paraph open-mail`: PARAPH_MASTER_KEY wins over the data directory's key
 * file, and without either the command stops with exit 2 and says how to give one.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../src/cli/common.js';
import { sealSecretCommandWith } from '../../src/cli/seal-secret.js';
import { CLIENT_SECRET_PURPOSE } from '../../src/service/identity/identity-provider-config.js';
import { createMasterKey, MASTER_KEY_FILE } from '../../src/store/master-key.js';
import { scratchFiles } from '../helpers/scratch-files.js';

const scratch = scratchFiles('cli-master-key');

async function sealWith(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCommand(sealSecretCommandWith(async () => 's3cret'), args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the master key of the secret commands', () => {
  it('reads the data directory key file, and PARAPH_MASTER_KEY wins over it', async () => {
    const fileKey = randomBytes(32);
    const envKey = randomBytes(32);
    writeFileSync(join(scratch.dir, MASTER_KEY_FILE), fileKey.toString('base64'));
    vi.stubEnv('PARAPH_MASTER_KEY', '');
    const fromFile = await sealWith(['--data-dir', scratch.dir]);
    expect(fromFile.code).toBe(0);
    expect(createMasterKey(fileKey).open(fromFile.stdout.trim(), CLIENT_SECRET_PURPOSE)).toBe('s3cret');
    vi.stubEnv('PARAPH_MASTER_KEY', envKey.toString('hex'));
    const fromEnv = await sealWith(['--data-dir', scratch.dir]);
    expect(createMasterKey(envKey).open(fromEnv.stdout.trim(), CLIENT_SECRET_PURPOSE)).toBe('s3cret');
  });

  it('without a key says how to give one and exits 2', async () => {
    vi.stubEnv('PARAPH_MASTER_KEY', '');
    const missing = await sealWith(['--data-dir', join(scratch.dir, 'nothing-here')]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^no master key: set PARAPH_MASTER_KEY or name the data directory holding master\.key \(--data-dir\)/);
  });
});
