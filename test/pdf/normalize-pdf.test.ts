/**
 * normalizePdf: unsigned PDFs that readers open but paraph could not use are rewritten once, cleanly;
 * signed ones are never rewritten. Every rewrite is checked by `qpdf --check` and by pdf-lib's incremental writer.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PdfParseError } from '../../src/errors.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { normalizationNeeded, normalizePdf, rewritePdf } from '../../src/pdf/normalize-pdf.js';
import { openPdfForUpdate } from '../../src/pdf/incremental.js';
import { qpdfCheck } from '../helpers/external-tools.js';
import { testPki, type TestPki } from '../../src/testing/test-pki.js';
import { scratchFiles } from '../helpers/scratch-files.js';
import { TEST_NOW } from '../helpers/test-now.js';

const CORPUS = join(import.meta.dirname, '../../fixtures/corpus');
const SAMPLE = readFileSync(join(import.meta.dirname, '../../fixtures/sample/contract.pdf'));
const NOW = new Date(TEST_NOW);

let pki: TestPki;
beforeAll(async () => {
  pki = await testPki();
});

/** `pdf` with its `startxref` moved by `by` bytes. */
function shiftStartxref(pdf: Uint8Array, by: number): Uint8Array {
  const bytes = Buffer.from(pdf);
  const keyword = bytes.lastIndexOf('startxref');
  const end = bytes.indexOf('%%EOF', keyword);
  const offset = Number(bytes.subarray(keyword + 9, end).toString().trim());
  return Buffer.concat([bytes.subarray(0, keyword), Buffer.from(`startxref\n${offset + by}\n`), bytes.subarray(end)]);
}

function qpdf(args: string[], pdf: Uint8Array): Uint8Array {
  const scratch = scratchFiles('normalize-');
  const input = scratch.file(pdf);
  const output = `${input}.out.pdf`;
  execFileSync('qpdf', [...args, '--', input, output]);
  return readFileSync(output);
}

async function refusal(pdf: Uint8Array): Promise<PdfParseError> {
  const error = await normalizePdf(pdf).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PdfParseError);
  return error as PdfParseError;
}

describe('normalizePdf', () => {
  it('returns a sound PDF as it is, byte for byte', async () => {
    const result = await normalizePdf(SAMPLE);
    expect(result.normalization).toBeUndefined();
    expect(result.bytes).toBe(SAMPLE);
  });

  for (const file of ['empty-password-aes256.pdf', 'empty-password-rc4.pdf', 'broken-xref.pdf']) {
    it(`rewrites ${file} into an unencrypted PDF with a sound xref that takes an incremental update`, async () => {
      const input = readFileSync(join(CORPUS, file));
      const { bytes, normalization } = await normalizePdf(input);
      expect(normalization?.reason).toBe(file.startsWith('broken') ? 'damaged-xref' : 'encrypted-empty-password');
      expect((await qpdfCheck(bytes)).ok).toBe(true);
      expect(await normalizationNeeded(bytes)).toBeUndefined();
      await expect(openPdfForUpdate(bytes)).resolves.toBeDefined();
    });
  }

  it('rewrites in the calling thread as in a worker thread (workerThread: false, for a process that is its own sandbox)', async () => {
    for (const file of ['empty-password-aes256.pdf', 'broken-xref.pdf']) {
      const input = readFileSync(join(CORPUS, file));
      const threaded = await normalizePdf(input);
      const inThread = await normalizePdf(input, { workerThread: false });
      expect(inThread.normalization).toEqual(threaded.normalization);
      expect(inThread.doc.getPageCount()).toBe(threaded.doc.getPageCount());
      expect((await qpdfCheck(inThread.bytes)).ok).toBe(true);
      expect(await normalizationNeeded(inThread.bytes)).toBeUndefined();
    }
    const locked = qpdf(['--encrypt', 'user-secret', 'owner', '256'], SAMPLE);
    await expect(normalizePdf(locked, { workerThread: false })).rejects.toMatchObject({ code: 'PDF_ENCRYPTED', message: expect.stringMatching(/needs a password/) });
    const rewritten = await rewritePdf(SAMPLE, { workerThread: false });
    expect((await qpdfCheck(rewritten)).ok).toBe(true);
  });

  it('opens and rewrites an encrypted PDF whose owner permissions forbid filling in and annotating: they bind no reader that opens it without a password', async () => {
    const locked = qpdf(['--encrypt', '', 'owner', '256', '--modify=none', '--annotate=n', '--form=n'], SAMPLE);
    const { bytes, normalization } = await normalizePdf(locked);
    expect(normalization?.reason).toBe('encrypted-empty-password');
    expect((await qpdfCheck(bytes)).ok).toBe(true);
    expect(await normalizationNeeded(bytes)).toBeUndefined();
  });

  it('refuses a PDF that needs a user password', async () => {
    const error = await refusal(qpdf(['--encrypt', 'user-secret', 'owner', '256'], SAMPLE));
    expect(error.code).toBe('PDF_ENCRYPTED');
    expect(error.message).toMatch(/needs a password/);
  });

  it('never rewrites a signed PDF: a damaged one is refused with the reason', async () => {
    const signed = (await signPdf(SAMPLE, { signer: pki.signers.p256.signer, signingTime: NOW })).bytes;
    expect(await normalizePdf(signed)).toMatchObject({ bytes: signed });
    const error = await refusal(shiftStartxref(signed, 5));
    expect(error.code).toBe('PDF_DAMAGED_SIGNED');
    expect(error.message).toMatch(/already signed and its cross-reference table is damaged/);
  });

  it('never rewrites a signed PDF: an encrypted one is refused clearly', async () => {
    const signed = (await signPdf(SAMPLE, { signer: pki.signers.p256.signer, signingTime: NOW })).bytes;
    const error = await refusal(qpdf(['--encrypt', '', 'owner', '256'], signed));
    expect(error.code).toBe('PDF_ENCRYPTED');
    expect(error.message).toMatch(/encrypted and already signed/);
  });

  it('refuses what is no PDF before starting any thread', async () => {
    await expect(normalizePdf(new TextEncoder().encode('hello'))).rejects.toMatchObject({ code: 'PDF_NOT_A_PDF' });
    // Starting like a PDF body is not enough: without a trailer or cross-reference stream it is no PDF either.
    await expect(normalizePdf(new TextEncoder().encode('%comment\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'))).rejects.toMatchObject({ code: 'PDF_NOT_A_PDF' });
  });

  it('puts back the header of a PDF that lost it, and keeps its page', async () => {
    const source = new Uint8Array(readFileSync(join(import.meta.dirname, '../../fixtures/pdfjs/helloworld-bad.pdf')));
    const start = Buffer.from(source).indexOf('1 0 obj');
    const { doc, normalization } = await normalizePdf(source.subarray(start));
    expect(normalization).toMatchObject({ reason: 'damaged-xref', detail: 'it has no "%PDF-" header' });
    expect(doc.getPageCount()).toBe(1);
  });
});
