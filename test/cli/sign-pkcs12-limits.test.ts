/**
 * `paraph sign --p12` opens the file within the PKCS#12 limits: a file asking for millions of key-derivation
 * iterations ends with exit code 2 and the command that exports it again, before any derivation runs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, type CliIo } from '../../src/cli/common.js';
import { signCommand } from '../../src/cli/sign.js';
import { scratchFiles } from '../helpers/scratch-files.js';

const { dir } = scratchFiles('sign-p12-limits');

describe('paraph sign --p12', () => {
  it('refuses a PKCS#12 file asking for millions of iterations with exit code 2 and the fix, writing nothing', async () => {
    const run = (args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-subj', '/CN=signer', '-days', '2']);
    run(['pkcs12', '-export', '-inkey', 'k.pem', '-in', 'c.pem', '-out', 'a.p12', '-passout', 'pass:secret', '-iter', '40000']);
    // The MAC's count (the last `02 03 00 9c 40`) set to 8,388,607, same length.
    const p12 = readFileSync(join(dir, 'a.p12'));
    Buffer.from('02037fffff', 'hex').copy(p12, p12.lastIndexOf(Buffer.from('0203009c40', 'hex')));
    writeFileSync(join(dir, 'hostile.p12'), p12);
    let stderr = '';
    const io: CliIo = { stdout: () => undefined, stderr: (t) => void (stderr += t) };
    const output = join(dir, 'out.pdf');
    const input = join(import.meta.dirname, '../../fixtures/pdf/contract.pdf');
    const code = await runCommand(signCommand, [input, '-o', output, '--p12', join(dir, 'hostile.p12'), '--pass', 'secret', '--field', 'sig1.Signer1'], io);
    expect(code).toBe(2);
    expect(stderr).toMatch(/8,388,607 key-derivation iterations for its MAC/);
    expect(stderr).toMatch(/openssl pkcs12 -export .* -iter 2048/);
    expect(existsSync(output)).toBe(false);
  });
});
