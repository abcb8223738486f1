/**
 * `paraph verify`: the exit-code contract (0 valid, 3 verification problems, 2 bad input), the human summary and
 * the JSON report, on hand-written PDFs signed by openssl.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CliIo } from '../../src/cli/common.js';
import { verifyCommand } from '../../src/cli/verify.js';
import { ERROR_CODES } from '../../src/errors.js';
import { PKI_DIR } from '../../src/testing/test-pki.js';
import { TSX_LOADER } from '../helpers/tsx.js';
import { readManifest } from '../pades/attack-corpus.js';
import { originalObjects, signLastPlaceholder, stream, writeSection } from '../pades/verify-helpers.js';

let dir: string;
const files = { valid: '', tampered: '', unsigned: '', notPdf: '', changed: '', truncated: '' };
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const root = join(PKI_DIR, 'root-ca.pem');

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  const code = await runCommand(verifyCommand, args, io);
  return { code, stdout, stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paraph-cli-verify-'));
  const id = { certPath: join(PKI_DIR, 'signer-p256.pem'), keyPath: join(PKI_DIR, 'signer-p256.key.pem'), chainPaths: [join(PKI_DIR, 'intermediate-ca.pem')] };
  const valid = signLastPlaceholder(writeSection(undefined, originalObjects(), 1, 8), id);
  const tampered = Buffer.from(valid);
  tampered[tampered.indexOf(Buffer.from('100 EUR'))] = 0x39;
  const changed = writeSection(valid, [{ num: 4, body: stream('BT /F1 12 Tf 20 150 Td (I agree to pay 900 EUR.) Tj ET') }], 1, 8);
  const write = (name: string, bytes: Uint8Array): string => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  files.valid = write('valid.pdf', valid);
  files.tampered = write('tampered.pdf', tampered);
  files.changed = write('changed.pdf', changed);
  files.unsigned = write('unsigned.pdf', writeSection(undefined, originalObjects({ signed: false }), 1, 7));
  files.notPdf = write('not.pdf', new TextEncoder().encode('just text'));
  files.truncated = write('truncated.pdf', valid.subarray(0, 400));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('paraph verify', () => {
  it('exits 0 and prints a summary for a valid, trusted signature', async () => {
    const { code, stdout } = await run([files.valid, '--trust', root]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/1 signature, 1 revision — VALID/);
    expect(stdout).toMatch(/#1 Sig1 — signature, ETSI.CAdES.detached — VALID/);
    expect(stdout).toMatch(/chain trusted/);
  });

  it('prints the report as JSON with --json', async () => {
    const { code, stdout } = await run([files.valid, '--trust', root, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { valid: boolean; signatures: Array<{ fieldName: string; level: string }> };
    expect(report.valid).toBe(true);
    expect(report.signatures[0]).toMatchObject({ fieldName: 'Sig1', level: 'B-B' });
  });

  it('exits 3 for a tampered file, a disallowed change, an untrusted root and an unsigned file', async () => {
    const tampered = await run([files.tampered, '--trust', root]);
    expect(tampered.code).toBe(3);
    expect(tampered.stdout).toMatch(/digest BAD/);
    const changed = await run([files.changed, '--trust', root]);
    expect(changed.code).toBe(3);
    expect(changed.stdout).toMatch(/disallowed change: revision 1: \[page-content\] page content/);
    const untrusted = await run([files.valid]);
    expect(untrusted.code).toBe(3);
    expect(untrusted.stderr).toMatch(/no --trust root/);
    const unsigned = await run([files.unsigned, '--trust', root]);
    expect(unsigned.code).toBe(3);
    expect(unsigned.stdout).toMatch(/the document has no signatures/);
  });

  it('exits 2 for bad input: not a PDF, a missing file, a bad trust root, no argument', async () => {
    expect((await run([files.notPdf, '--trust', root])).code).toBe(2);
    const missing = await run([join(dir, 'nope.pdf'), '--trust', root]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read PDF/);
    const badRoot = await run([files.valid, '--trust', files.notPdf]);
    expect(badRoot.code).toBe(2);
    expect(badRoot.stderr).toMatch(/not an X.509 certificate/);
    expect((await run([])).code).toBe(2);
    expect((await run([files.valid, '--bogus'])).code).toBe(2);
  });

  it('names the documented error code of bad input, and with --json as the JSON error line on stderr', async () => {
    const notPdf = await run([files.notPdf, '--trust', root]);
    expect(notPdf.stderr).toBe('PDF_NOT_A_PDF: the file is not a PDF (no "%PDF-" header)\n');
    const notPdfJson = await run([files.notPdf, '--trust', root, '--json']);
    expect(notPdfJson.code).toBe(2);
    expect(JSON.parse(notPdfJson.stdout)).toMatchObject({ readable: false, code: 'PDF_NOT_A_PDF' });
    expect(JSON.parse(notPdfJson.stderr)).toEqual({ error: { code: 'PDF_NOT_A_PDF', message: 'the file is not a PDF (no "%PDF-" header)' } });
    const truncated = await run([files.truncated, '--trust', root, '--json']);
    expect(truncated.code).toBe(2);
    expect(JSON.parse(truncated.stderr)).toMatchObject({ error: { code: 'PDF_UNREADABLE' } });
    const missing = await run([join(dir, 'nope.pdf'), '--trust', root, '--json']);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr)).toMatchObject({ error: { code: 'FILE_UNREADABLE', message: expect.stringMatching(/cannot read PDF .*nope\.pdf/) } });
    const badRoot = await run([files.valid, '--trust', files.notPdf, '--json']);
    expect(badRoot.code).toBe(2);
    expect(JSON.parse(badRoot.stderr)).toMatchObject({ error: { code: 'INVALID_CERTIFICATE', message: expect.stringMatching(/not an X.509 certificate/) } });
    for (const code of ['PDF_NOT_A_PDF', 'PDF_UNREADABLE', 'FILE_UNREADABLE', 'INVALID_CERTIFICATE']) expect(ERROR_CODES).toHaveProperty(code);
  });

  it('sets the process exit code when run as a program', async () => {
    const exitCode = (args: string[]): Promise<number> =>
      new Promise((resolve) => {
        execFile(process.execPath, ['--import', TSX_LOADER, CLI, 'verify', ...args], (error) => resolve(error ? Number(error.code) : 0));
      });
    expect(await exitCode([files.valid, '--trust', root])).toBe(0);
    expect(await exitCode([files.tampered, '--trust', root])).toBe(3);
    expect(await exitCode([files.notPdf])).toBe(2);
  });
});

describe('paraph verify on the attack corpus', () => {
  const corpus = fileURLToPath(new URL('../../fixtures/attacks/', import.meta.url));
  const manifest = readManifest();

  it('exits 3 for every attack, naming its rule in the JSON report, and 0 for every control', async () => {
    for (const entry of manifest.files) {
      const { code, stdout } = await run([join(corpus, entry.file), '--trust', join(corpus, 'root.pem'), '--json']);
      expect([entry.file, code]).toEqual([entry.file, entry.expected === 'valid' ? 0 : 3]);
      if (entry.rule) expect(stdout, entry.file).toContain(`[${entry.rule}]`);
    }
  });
});
