/**
 * A PDF whose cross-reference data is broken must never upload with 201 and then fail at start, ending
 * the transaction at 70 for good. Upload either refuses it (4xx, nothing kept) or accepts it (normalized when needed)
 * and then start succeeds: seal-only to 30 with a seal pdfsig, openssl and qpdf accept, with a signer to 10.
 */
import fc from 'fast-check';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParaphError } from '../../src/errors.js';
import { createTransaction } from '../../src/service/create-transaction.js';
import { startTransaction } from '../../src/service/start-transaction.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { openUseCaseFixture, uploadPdf, type UseCaseFixture } from './use-case-fixture.js';

let f: UseCaseFixture;
let table: string;
let stream: string;
beforeAll(async () => {
  f = await openUseCaseFixture();
  table = latin1(await twoPagePdf(false));
  stream = latin1(await twoPagePdf(true));
});
afterAll(async () => {
  await f.close();
});

async function twoPagePdf(useObjectStreams: boolean): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 2; i++) doc.addPage([300, 300]).drawText(`page ${i}`, { x: 20, y: 200, font, size: 12 });
  return doc.save({ useObjectStreams });
}
const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');
const bytesOf = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));
const moveStartxref = (text: string, by: number): string => text.replace(/startxref\s+(\d+)/, (_m, n: string) => `startxref\n${Math.max(0, Number(n) + by)}`);

const DAMAGES: Record<string, () => string> = {
  'startxref a few bytes off': () => moveStartxref(table, 7),
  'startxref one byte early (at the line end before xref)': () => moveStartxref(table, -1),
  'startxref 0': () => table.replace(/startxref\s+\d+/, 'startxref\n0'),
  'every entry 3 bytes off': () => table.replace(/(\d{10}) 00000 n/g, (_m, n: string) => `${String(Number(n) + 3).padStart(10, '0')} 00000 n`),
  'no xref table': () => table.replace(/xref[\s\S]*?trailer/, 'trailer'),
  'trailer /Size too small': () => table.replace(/\/Size \d+/, '/Size 2'),
  '/Prev to nowhere': () => table.replace(/\/Size (\d+)/, '/Size $1 /Prev 99999'),
  'no startxref': () => table.replace(/startxref[\s\S]*$/, '%%EOF\n'),
  'wrong generations': () => table.replace(/(\d{10}) 00000 n/g, '$1 00001 n'),
  'no trailer': () => table.replace(/trailer[\s\S]*?startxref/, 'startxref'),
  'xref stream, startxref off': () => moveStartxref(stream, 7),
  'xref stream, startxref 0': () => stream.replace(/startxref\s+\d+/, 'startxref\n0'),
};

/**
 * Uploads `pdf` and starts; returns what happened, asserting on the way that an upload answered 201 never fails at
 * start.
 */
async function uploadThenStart(pdf: Uint8Array, signers: boolean): Promise<'refused' | 'started'> {
  const tx = await createTransaction(f.ctx, f.account, signers ? { Signers: [{ SendSignRequest: false, Email: 'signer@example.com' }] } : { Seal: true });
  try {
    expect(await uploadPdf(f, tx.Id, 'damaged.pdf', pdf)).toBe(201);
  } catch (error) {
    // Refused at upload: a client error, and nothing of the file kept.
    expect(error).toBeInstanceOf(ParaphError);
    expect((error as ParaphError).origin).toBe('input');
    expect((await f.store.getTransaction(tx.Id))?.Files).toEqual([]);
    return 'refused';
  }
  await startTransaction(f.ctx, f.account, tx.Id);
  const started = await f.store.getTransaction(tx.Id);
  expect(started?.Status).toBe(signers ? 10 : 30);
  if (!signers) {
    const report = await checkSignedPdf(await f.store.blobs.read(started!.Files[0]!.Current!.sha256), f.sealCaPem);
    expect(report.openssl, report.details).toEqual([true]);
    expect(report.pdfsig.map((s) => s.valid), report.details).toEqual([true]);
    expect(report.qpdf, report.details).toBe(true);
  }
  return 'started';
}

describe('a PDF with damaged cross-reference data', () => {
  for (const [name, damaged] of Object.entries(DAMAGES)) {
    it(`${name}: refused at upload, or started (seal-only to 30, with a signer to 10)`, async () => {
      const pdf = bytesOf(damaged());
      const sealOnly = await uploadThenStart(pdf, false);
      expect(await uploadThenStart(pdf, true)).toBe(sealOnly);
    });
  }

  it('any startxref offset: refused at upload or started, never failed at start', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -400, max: 400 }).filter((n) => n !== 0), async (by) => {
        expect(['refused', 'started']).toContain(await uploadThenStart(bytesOf(moveStartxref(table, by)), false));
      }),
      { numRuns: 6 },
    );
  });
});
