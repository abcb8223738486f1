/**
 * `paraph receipt verify`: exit codes (0 verified, 3 problems, 2 bad input), the summary, --json, and the command
 * registered in the real CLI entry point.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFArray, PDFDict, PDFDocument, PDFName, type PDFRawStream } from '../../src/pdf/pdf-lib.js';
import { runCommand, type CliIo } from '../../src/cli/common.js';
import { receiptCommand } from '../../src/cli/receipt.js';
import { createHash } from 'node:crypto';
import { buildReceipt } from '../../src/receipt/receipt.js';
import { appendAuditEntry } from '../../src/receipt/audit-log.js';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { PKI_DIR } from '../../src/testing/test-pki.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { DOCUMENTS, sampleAuditLog, sampleTransaction } from '../receipt/sample-transaction.js';
import { TSX_LOADER } from '../helpers/tsx.js';

const exec = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const root = join(PKI_DIR, 'root-ca.pem');
const GENERATED_AT = new Date('2026-11-21T11:00:00.000Z');
const fx = usePadesFixture();
let dir: string;
const files = { sealed: '', tampered: '', unsealed: '', notPdf: '', doc: '', docReceipt: '' };
const head = sampleAuditLog().at(-1)!.hash;

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  const code = await runCommand(receiptCommand, args, io);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paraph-cli-receipt-'));
  const { pki } = fx;
  const options = { transaction: sampleTransaction(), documents: DOCUMENTS, auditLog: sampleAuditLog(), generatedAt: GENERATED_AT };
  const sealer = async (pdf: Uint8Array): Promise<Uint8Array> =>
    (await sealPdf(pdf, { signer: pki.seal.signer, signingTime: GENERATED_AT, organizationName: 'Example Organisation B.V.' })).bytes;
  const sealed = await buildReceipt({ ...options, sealer });
  const tampered = Buffer.from(sealed);
  // A byte inside the attached log's compressed stream: the file still parses, the seal's digest breaks.
  const doc = await PDFDocument.load(sealed, { updateMetadata: false });
  const spec = doc.catalog.lookup(PDFName.of('AF'), PDFArray).lookup(0, PDFDict);
  const raw = (spec.lookup(PDFName.of('EF'), PDFDict).lookup(PDFName.of('F')) as PDFRawStream).contents;
  const start = tampered.indexOf(Buffer.from(raw));
  expect(start).toBeGreaterThan(0);
  tampered[start + (raw.length >> 1)]! ^= 0x01;
  const write = (name: string, bytes: Uint8Array): string => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  files.sealed = write('receipt.pdf', sealed);
  files.tampered = write('tampered.pdf', tampered);
  files.unsealed = write('unsealed.pdf', await buildReceipt({ ...options, sealer: async (pdf) => pdf }));
  files.notPdf = write('not.pdf', new TextEncoder().encode('just text'));
  const signedDoc = new TextEncoder().encode('%PDF-1.7 the signed document');
  files.doc = write('doc.pdf', signedDoc);
  const withDoc = appendAuditEntry(options.auditLog, {
    at: new Date('2026-11-21T10:55:00Z'),
    type: 'document.finalized',
    actor: 'system',
    data: { fileId: 'doc.pdf', sha256: createHash('sha256').update(signedDoc).digest('hex'), bytes: signedDoc.length },
  });
  files.docReceipt = write('with-doc.pdf', await buildReceipt({ ...options, auditLog: withDoc, sealer }));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('paraph receipt verify', () => {
  it('exits 0 with a summary for a sealed, trusted, intact receipt', async () => {
    const { code, stdout, stderr } = await run(['verify', files.sealed, '--trust', root]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('receipt VERIFIED');
    expect(stdout).toContain(`transaction: ${sampleTransaction().id}`);
    expect(stdout).toMatch(/seal: VALID — .*Example Organization B\.V\. seal/);
    expect(stdout).toContain(`audit log: ${sampleAuditLog().length} entries`);
    expect(stdout).toContain(`chain: intact, head ${head}`);
  });

  it('exits 3 when the seal is untrusted, broken or missing', async () => {
    const untrusted = await run(['verify', files.sealed]);
    expect(untrusted.code).toBe(3);
    expect(untrusted.stderr).toContain('no --trust root');
    const tampered = await run(['verify', files.tampered, '--trust', root]);
    expect(tampered.code).toBe(3);
    expect(tampered.stdout).toContain('receipt NOT VERIFIED');
    expect(tampered.stdout).toContain('problem: seal: not valid');
    const unsealed = await run(['verify', files.unsealed, '--trust', root]);
    expect(unsealed.code).toBe(3);
    expect(unsealed.stdout).toContain('seal: none');
    expect(unsealed.stdout).toContain('chain: intact');
  });

  it('looks up --document files in the log: exit 0 when recorded, 3 when not', async () => {
    const recorded = await run(['verify', files.docReceipt, '--trust', root, '--document', files.doc]);
    expect(recorded.code).toBe(0);
    expect(recorded.stdout).toContain(`${files.doc}: recorded as signed doc.pdf`);
    const unknown = await run(['verify', files.docReceipt, '--trust', root, '--document', files.doc, '--document', files.notPdf]);
    expect(unknown.code).toBe(3);
    expect(unknown.stdout).toContain(`${files.notPdf}: NOT recorded in the audit log`);
  });

  it('prints the verdict as JSON with --json, the log summarized', async () => {
    const { code, stdout } = await run(['verify', files.sealed, '--trust', root, '--json']);
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as { ok: boolean; auditLog: { head: string }; attachment: { count: number; entries: number }; seal: { ok: boolean } };
    expect(json).toMatchObject({ ok: true, seal: { ok: true }, auditLog: { ok: true, head }, attachment: { count: sampleAuditLog().length, entries: sampleAuditLog().length } });
  });

  it('exits 2 for usage mistakes, unreadable files and bytes that are no PDF', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['check', files.sealed])).code).toBe(2);
    expect((await run(['verify'])).code).toBe(2);
    expect((await run(['verify', files.sealed, files.sealed])).code).toBe(2);
    expect((await run(['verify', join(dir, 'missing.pdf')])).stderr).toContain('cannot read receipt');
    expect((await run(['verify', files.sealed, '--trust', files.notPdf])).code).toBe(2);
    expect((await run(['verify', files.sealed, '--bogus'])).code).toBe(2);
    const junk = await run(['verify', files.notPdf, '--trust', root]);
    expect(junk.code).toBe(2);
    expect(junk.stdout).toContain('audit log: not readable');
    // The documented code of what was wrong, on stderr; with --json as the JSON error line.
    expect(junk.stderr).toContain('PDF_NOT_A_PDF: the file is not a PDF');
    const junkJson = await run(['verify', files.notPdf, '--trust', root, '--json']);
    expect(junkJson.code).toBe(2);
    expect(JSON.parse(junkJson.stderr)).toMatchObject({ error: { code: 'PDF_NOT_A_PDF' } });
    const missing = await run(['verify', join(dir, 'missing.pdf'), '--json']);
    expect(JSON.parse(missing.stderr.split('\n').filter((l) => l.startsWith('{'))[0]!)).toMatchObject({ error: { code: 'FILE_UNREADABLE' } });
  });

  it('is registered in the paraph entry point', async () => {
    const { stdout } = await exec(process.execPath, ['--import', TSX_LOADER, CLI, 'receipt', 'verify', files.sealed, '--trust', root]);
    expect(stdout).toContain('receipt VERIFIED');
  });
});
