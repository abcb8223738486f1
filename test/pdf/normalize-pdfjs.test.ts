/**
 * Files from pdf.js's test corpus that poppler opens but paraph once refused or sealed into something readers could
 * not open, one or two per cause (fixtures/pdfjs/README.md): each is normalized, gets a Signature field, is sealed,
 * and the sealed file passes pdfsig, openssl, qpdf --check and paraph's own verifier. A file that needs a real
 * password is refused, saying so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PdfParseError } from '../../src/errors.js';
import { normalizationNeeded, normalizePdf } from '../../src/pdf/normalize-pdf.js';
import { decodePDFRawStream, PDFRawStream } from '../../src/pdf/pdf-lib.js';
import { placeFieldsFromMetadata } from '../../src/pdf/place-fields-from-metadata.js';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { testPki, type TestPki } from '../../src/testing/test-pki.js';
import { TEST_NOW } from '../helpers/test-now.js';

const DIR = join(import.meta.dirname, '../../fixtures/pdfjs');
const METADATA = {
  Signers: { Signer1: { FormSets: ['f'] } },
  FormSets: { f: { Signature: { Type: 'Signature', Location: { PageNumber: 1, Left: 5, Top: 5, Width: 30, Height: 15 } } } },
};

const CASES: { file: string; cause: string; reason: 'encrypted-empty-password' | 'damaged-xref' }[] = [
  { file: 'helloworld-bad.pdf', cause: 'startxref points at no cross-reference section', reason: 'damaged-xref' },
  { file: 'issue10438_reduced.pdf', cause: 'startxref points at no cross-reference section', reason: 'damaged-xref' },
  { file: 'outline_goto_action.pdf', cause: 'xref table entries that are not 20 bytes long', reason: 'damaged-xref' },
  { file: 'issue9418.pdf', cause: 'an xref table pointing at the wrong objects', reason: 'damaged-xref' },
  { file: 'issue6069.pdf', cause: 'a syntax error pdf-lib stops at', reason: 'damaged-xref' },
  { file: 'issue21436.pdf', cause: 'a page tree pdf-lib cannot walk', reason: 'damaged-xref' },
  { file: 'Pages-tree-refs.pdf', cause: 'a page tree whose kids loop back', reason: 'damaged-xref' },
  { file: 'empty_protected.pdf', cause: 'AES-256 (revision 6) with an empty user password', reason: 'encrypted-empty-password' },
  { file: 'auth-event-ef-open.pdf', cause: 'only its embedded files encrypted', reason: 'encrypted-empty-password' },
  { file: 'bug1250079.pdf', cause: 'a trailer cut off inside a string, which PDFium cannot open', reason: 'damaged-xref' },
  { file: 'bug1606566.pdf', cause: 'no %PDF- header', reason: 'damaged-xref' },
  { file: 'pr6531_2.pdf', cause: 'AES-256 whose empty password is the owner password, which PDFium refuses', reason: 'encrypted-empty-password' },
  { file: 'issue19484_1.pdf', cause: 'a 40-bit key under crypt filters, object streams', reason: 'encrypted-empty-password' },
];

/** What poppler's pdftotext reads in `pdf`. */
function popplerText(pdf: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'paraph-pdfjs-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    return execFileSync('pdftotext', ['-q', join(dir, 'in.pdf'), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let pki: TestPki;
beforeAll(async () => {
  pki = await testPki();
});

describe('pdf.js corpus files poppler opens', () => {
  for (const { file, cause, reason } of CASES) {
    it(`${file} (${cause}): normalized, placed and sealed into a file every reader verifies`, async () => {
      const input = new Uint8Array(readFileSync(join(DIR, file)));
      const { bytes, normalization } = await normalizePdf(input);
      expect(normalization?.reason).toBe(reason);
      expect(await normalizationNeeded(bytes)).toBeUndefined();
      const placed = await placeFieldsFromMetadata(bytes, METADATA, { workers: 0 });
      const sealed = (await sealPdf(placed.bytes, { signer: pki.seal.signer, signingTime: new Date(TEST_NOW) })).bytes;

      const tools = await checkSignedPdf(sealed, pki.rootPem);
      expect(tools.pdfsig.filter((s) => s.valid !== undefined).map((s) => s.valid), tools.details).toEqual([true]);
      expect(tools.openssl, tools.details).toEqual([true]);
      expect(tools.qpdf, tools.details).toBe(true);
      const report = await verifyPdf(sealed, { trustRoots: [pki.rootPem] });
      expect(report.readable, report.problems.join('; ')).toBe(true);
      const seal = report.signatures.at(-1);
      expect(seal && seal.kind === 'signature' && seal.digestOk && seal.signatureOk && seal.coversWholeDocument && seal.modifications.ok).toBe(true);
    });
  }

  it('Pages-tree-refs.pdf keeps the page count readers show: its second kid loops back and stands as a blank page', async () => {
    const { doc } = await normalizePdf(new Uint8Array(readFileSync(join(DIR, 'Pages-tree-refs.pdf'))));
    expect(doc.getPageCount()).toBe(2);
    expect(doc.getPage(1).getSize()).toEqual({ width: 595, height: 842 });
  });

  it('a file decrypted without PDFium draws the text poppler reads from the original (in the appearance of its comment)', async () => {
    const { doc } = await normalizePdf(new Uint8Array(readFileSync(join(DIR, 'pr6531_2.pdf'))));
    const drawn = doc.context
      .enumerateIndirectObjects()
      .filter(([, object]) => object instanceof PDFRawStream)
      .map(([, stream]) => Buffer.from(decodePDFRawStream(stream as PDFRawStream).decode()).toString('latin1'));
    expect(drawn.some((content) => content.includes('(Bluebeam should be encrypting this.)'))).toBe(true);
  });

  it('a 40-bit key under crypt filters, padded to 16 bytes as Acrobat does, opens objects kept in object streams', async () => {
    const { bytes } = await normalizePdf(new Uint8Array(readFileSync(join(DIR, 'issue19484_1.pdf'))));
    expect(popplerText(bytes)).toContain('This PDF demonstrates an unusual & under-documented encryption scheme.');
  });

  it('issue6010_1.pdf (AES-256 with a real user password): refused, saying a password is needed', async () => {
    const error = await normalizePdf(new Uint8Array(readFileSync(join(DIR, 'issue6010_1.pdf')))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfParseError);
    expect((error as PdfParseError).code).toBe('PDF_ENCRYPTED');
    expect((error as PdfParseError).message).toMatch(/needs a password to open it/);
  });
});
