/**
 * What a CLI user sees when something fails: never a stack trace; an unreachable TSA, OCSP
 * responder or CRL server is exit 2 with the flag to use (`--allow-incomplete`, `--tsa`), not "internal error";
 * `paraph --version`; the top-level help names --pkcs11, --lt and --lta.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CliCommand, type CliIo } from '../../src/cli/common.js';
import { extendCommand } from '../../src/cli/extend.js';
import { signCommand } from '../../src/cli/sign.js';
import { PdfParseError, SigningError } from '../../src/errors.js';
import { P12_PASSWORD, PKI_DIR } from '../../src/testing/test-pki.js';
import { TSX_LOADER } from '../helpers/tsx.js';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const CONTRACT = new URL('../../fixtures/pdf/contract.pdf', import.meta.url).pathname;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paraph-cli-common-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(command: CliCommand, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  const code = await runCommand(command, args, io);
  return { code, stdout, stderr };
}

const STACK_LINE = /^\s+at /m;

describe('errors on the command line', () => {
  it('an unexpected error is exit 1 with its message and no stack trace', async () => {
    const failed = await run(async () => {
      throw new Error('boom');
    }, []);
    expect(failed).toEqual({ code: 1, stdout: '', stderr: 'internal error: boom\n' });
  });

  it('a paraph error shows its documented code, and with --json is one JSON line on stderr', async () => {
    const refuse = async (): Promise<number> => {
      throw new PdfParseError('PDF_TOO_MANY_OBJECTS', 'The PDF declares 1,500,007 objects.');
    };
    expect(await run(refuse, [])).toEqual({ code: 2, stdout: '', stderr: 'PDF_TOO_MANY_OBJECTS: The PDF declares 1,500,007 objects.\n' });
    const json = await run(refuse, ['in.pdf', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'PDF_TOO_MANY_OBJECTS', message: 'The PDF declares 1,500,007 objects.' } });
    const boom = await run(async () => {
      throw new Error('boom');
    }, ['--json']);
    expect(JSON.parse(boom.stderr)).toEqual({ error: { code: null, message: 'internal error: boom' } });
  });

  it('missing revocation data names the CLI flag, not the library option', async () => {
    const failed = await run(async () => {
      throw new SigningError('VALIDATION_DATA_INCOMPLETE', 'No revocation data for CN=x (offline). Fix the responder or pass allowIncomplete to write what was found.', {
        origin: 'internal',
      });
    }, []);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('--allow-incomplete');
    expect(failed.stderr).not.toMatch(/\ballowIncomplete\b/);
  });

  it('an unreachable TSA is exit 2 naming --tsa, without a stack trace', async () => {
    const out = join(dir, 'never.pdf');
    const failed = await run(signCommand, [CONTRACT, '-o', out, '--p12', join(PKI_DIR, 'signer-p256.p12'), '--pass', P12_PASSWORD, '--tsa', 'http://127.0.0.1:1/tsr']);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('--tsa');
    expect(failed.stderr).not.toMatch(STACK_LINE);
    await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });
  }, 60_000);

  it('unreachable OCSP and CRL servers make paraph extend exit 2 naming --allow-incomplete', async () => {
    const signed = join(dir, 'signed.pdf');
    expect((await run(signCommand, [CONTRACT, '-o', signed, '--p12', join(PKI_DIR, 'signer-p256.p12'), '--pass', P12_PASSWORD])).code).toBe(0);
    // The fixture certificates point at ocsp.paraph.test and crl.paraph.test, which never resolve.
    const failed = await run(extendCommand, [signed, '-o', join(dir, 'lt.pdf'), '--trust', join(PKI_DIR, 'root-ca.pem')]);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('--allow-incomplete');
    expect(failed.stderr).not.toMatch(/\ballowIncomplete\b/);
    expect(failed.stderr).not.toMatch(STACK_LINE);
  }, 120_000);
});

describe('the paraph command', () => {
  const paraph = (args: string[]): Promise<{ code: number; stdout: string }> =>
    new Promise((resolve) => {
      execFile(process.execPath, ['--import', TSX_LOADER, CLI, ...args], (error, stdout) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: String(stdout) });
      });
    });

  it('prints its version and a help that lists --pkcs11, --lt and --lta', async () => {
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await paraph(['--version'])).toEqual({ code: 0, stdout: `${manifest.version}\n` });
    const help = await paraph(['--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--pkcs11', '--lt', '--lta', '--allow-incomplete', '--version']) expect(help.stdout).toContain(flag);
  }, 60_000);
});
