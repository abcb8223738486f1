import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { PdfParseError } from '../../src/errors.js';
import { type TextIndex, findText, indexText } from '../../src/pdf/text-index/text-index.js';
import { placeFieldsFromMetadata } from '../../src/pdf/place-fields-from-metadata.js';
import { type GenTruth, generatePdf, randomPages } from '../../src/testing/generate-pdf.js';

/** Every page's geometry, text and every character's box, as plain data. */
function dump(index: TextIndex): unknown {
  return index.pages.map((geo) => {
    const text = index.text(geo.pageNumber);
    return {
      geo,
      text: text?.text,
      boxes: text ? Array.from({ length: text.text.length }, (_, i) => text.charBox(i)) : undefined,
    };
  });
}

describe('worker threads', () => {
  let bytes: Uint8Array;
  let truth: GenTruth[];
  beforeAll(async () => {
    ({ bytes, truth } = await generatePdf(randomPages(2026, { pages: 70, anchorsPerPage: 3 })));
  });

  it('tell whileExtracting once they run, and extraction in the calling thread never', async () => {
    for (const engine of ['pdfium', 'pdfjs'] as const) {
      let calls = 0;
      await indexText(bytes, { workers: 2, engine, whileExtracting: () => calls++ });
      expect(calls, engine).toBe(1);
      await indexText(bytes, { workers: 0, engine, whileExtracting: () => calls++ });
      expect(calls, engine).toBe(1);
    }
  });

  it('let placeFieldsFromMetadata open the document meanwhile: the same fields as placing after an in-thread search', async () => {
    const metadata = { FormSets: { f: { sig: { Type: 'Signature', Location: { Search: truth[0]!.anchor } } } } };
    let told = 0;
    const meanwhile = await placeFieldsFromMetadata(bytes, metadata, { workers: 2, whileExtracting: () => told++ });
    const after = await placeFieldsFromMetadata(bytes, metadata, { workers: 0 });
    expect(told).toBe(1);
    expect(Buffer.from(meanwhile.bytes).equals(Buffer.from(after.bytes))).toBe(true);
    expect(meanwhile.placements).toEqual(after.placements);
  });

  it('give the same index as extraction in the calling thread', async () => {
    const original = bytes.slice();
    const inThread = await indexText(bytes, { workers: 0 });
    const inWorkers = await indexText(bytes, { workers: 2 });
    expect(inWorkers.pageCount).toBe(70);
    expect(dump(inWorkers)).toEqual(dump(inThread));
    for (const t of truth) {
      const [match] = findText(inWorkers, t.anchor);
      expect(match?.pageNumber).toBe(t.pageNumber);
    }
    // The caller's bytes are neither emptied (pdf.js transfers its input) nor changed.
    expect(bytes).toEqual(original);
  });

  it('run by default and honour the pages option', async () => {
    const index = await indexText(bytes, { pages: [5, 69] });
    expect(index.pages).toHaveLength(70);
    expect(index.text(4)).toBeUndefined();
    const anchor = truth.find((t) => t.pageNumber === 69)!;
    expect(findText(index, anchor.anchor, { pageNumber: 69 })).toHaveLength(1);
  });

  it('accept a Node Buffer and leave it intact', async () => {
    const buffer = Buffer.from(bytes);
    const index = await indexText(buffer, { workers: 1, pages: [1] });
    expect(index.pageCount).toBe(70);
    expect(Buffer.compare(buffer, Buffer.from(bytes))).toBe(0);
    const inThread = await indexText(buffer, { workers: 0, pages: [1] });
    expect(inThread.text(1)!.text).toBe(index.text(1)!.text);
  });

  it('reuse their threads across documents without mixing them up', async () => {
    const other = (await generatePdf(randomPages(4242, { pages: 35, anchorsPerPage: 1 }))).bytes;
    const expectedOther = dump(await indexText(other, { workers: 0 }));
    const expectedBytes = dump(await indexText(bytes, { workers: 0 }));
    for (let round = 0; round < 2; round++) {
      expect(dump(await indexText(other, { workers: 2 }))).toEqual(expectedOther);
      await expect(indexText(new TextEncoder().encode('%PDF-1.7 broken'), { workers: 2 })).rejects.toMatchObject({
        code: 'PDF_UNREADABLE',
      });
      expect(dump(await indexText(bytes, { workers: 2 }))).toEqual(expectedBytes);
    }
  });

  it('stop when the signal aborts', async () => {
    const controller = new AbortController();
    const running = indexText(bytes, { workers: 2, signal: controller.signal });
    controller.abort(new Error('stop now'));
    await expect(running).rejects.toThrow('stop now');
    const aborted = AbortSignal.abort(new Error('already'));
    await expect(indexText(bytes, { workers: 0, signal: aborted })).rejects.toThrow('already');
  });

  it('refuses a negative or fractional worker count', async () => {
    await expect(indexText(bytes, { workers: -1 })).rejects.toThrow(RangeError);
    await expect(indexText(bytes, { workers: 1.5 })).rejects.toThrow(RangeError);
  });
});

describe('bad input gives a PdfParseError with a stable code, in both modes', () => {
  let good: Uint8Array;
  const dir = mkdtempSync(join(tmpdir(), 'paraph-text-index-'));
  const cases: Record<string, () => Uint8Array> = {};
  beforeAll(async () => {
    ({ bytes: good } = await generatePdf(randomPages(11, { pages: 2 })));
    const plain = join(dir, 'plain.pdf');
    writeFileSync(plain, good);
    execFileSync('qpdf', ['--encrypt', 'user-pw', 'owner-pw', '256', '--', plain, join(dir, 'password.pdf')]);
    execFileSync('qpdf', ['--encrypt', '', 'owner-pw', '256', '--', plain, join(dir, 'no-user-password.pdf')]);
  });
  cases.PDF_EMPTY = () => new Uint8Array(0);
  cases.PDF_NOT_A_PDF = () => new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 256);
  cases.PDF_UNREADABLE = () => new TextEncoder().encode(`%PDF-1.7\n${'garbage '.repeat(500)}`);

  for (const workers of [0, 1]) {
    for (const [code, make] of Object.entries(cases)) {
      it(`${code} (workers: ${workers})`, async () => {
        await expect(indexText(make(), { workers })).rejects.toMatchObject({ code, origin: 'input' });
      });
    }

    it(`PDF_UNREADABLE for a truncated file (workers: ${workers})`, async () => {
      for (const fraction of [0.3, 0.6, 0.9]) {
        const error = await indexText(good.slice(0, Math.floor(good.length * fraction)), { workers }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PdfParseError);
        expect(error).toMatchObject({ code: 'PDF_UNREADABLE' });
        expect((error as Error).message).toMatch(/damaged or truncated/);
      }
    });

    it(`PDF_ENCRYPTED with or without a user password (workers: ${workers})`, async () => {
      for (const file of ['password.pdf', 'no-user-password.pdf']) {
        const error = await indexText(readFileSync(join(dir, file)), { workers }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PdfParseError);
        expect(error).toMatchObject({ code: 'PDF_ENCRYPTED' });
      }
    });

    it(`PDF_NO_PAGES for a document without pages (workers: ${workers})`, async () => {
      const doc = await PDFDocument.create();
      await expect(indexText(await doc.save({ addDefaultPage: false }), { workers })).rejects.toMatchObject({
        code: expect.stringMatching(/^PDF_(NO_PAGES|UNREADABLE)$/),
      });
    });
  }
});
