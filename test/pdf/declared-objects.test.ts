/**
 * The pre-parse object limit (src/pdf/declared-objects.ts): a document is refused before pdf-lib builds its objects
 * when its trailer /Size or its object streams' /N pass the limit, and the refusal names the count.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PdfParseError } from '../../src/errors.js';
import { checkDeclaredObjects, declaredObjects, DEFAULT_MAX_PDF_OBJECTS } from '../../src/pdf/declared-objects.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { indexText } from '../../src/pdf/text-index/text-index.js';
import { manyObjectsPdf } from './many-objects-pdf.js';

describe('declared object counts', () => {
  it('reads /Size and the object streams\' /N; loadPdf refuses past the limit, naming the count, and reads the rest', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          perStream: fc.integer({ min: 0, max: 2000 }),
          streams: fc.integer({ min: 1, max: 3 }),
          nesting: fc.integer({ min: 0, max: 4 }),
          lieAboutSize: fc.option(fc.integer({ min: 1, max: 10_000_000 }), { nil: undefined }),
          maxObjects: fc.integer({ min: 1, max: 8000 }),
        }),
        async ({ perStream, streams, nesting, lieAboutSize, maxObjects }) => {
          const trueSize = 6 + streams + perStream * streams;
          const pdf = manyObjectsPdf({ perStream, streams, nesting, ...(lieAboutSize !== undefined ? { declaredSize: lieAboutSize } : {}) });
          const size = lieAboutSize ?? trueSize;
          expect(declaredObjects(pdf)).toEqual({ size, inObjectStreams: perStream * streams, objectStreams: streams });
          const count = Math.max(size, perStream * streams);
          const loaded = await loadPdf(pdf, { maxObjects }).catch((e: unknown) => e);
          if (count > maxObjects) {
            expect(loaded).toBeInstanceOf(PdfParseError);
            expect(loaded).toMatchObject({ code: 'PDF_TOO_MANY_OBJECTS', origin: 'input' });
            expect((loaded as Error).message).toContain(`declares ${count.toLocaleString('en-US')} objects`);
            expect((loaded as Error).message).toContain(`at most ${maxObjects.toLocaleString('en-US')}`);
          } else {
            expect(loaded).toBeInstanceOf(PDFDocument);
            expect((loaded as PDFDocument).getPageCount()).toBe(1);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('counts an object stream whose /N lies above its content, and ignores an indirect /Size or /N', () => {
    expect(declaredObjects(manyObjectsPdf({ perStream: 10, declaredN: 5_000_000 })).inObjectStreams).toBe(5_000_000);
    const text = (s: string) => new TextEncoder().encode(s);
    expect(declaredObjects(text('%PDF-1.7\n1 0 obj << /Type /ObjStm /N 12 0 R /First 3 >>\nstream\nendstream endobj trailer << /Size 9 0 R >>'))).toEqual({
      size: 0,
      inObjectStreams: 0,
      objectStreams: 1,
    });
    expect(() => checkDeclaredObjects(text('%PDF-1.7 trailer << /Size 99999999999999999999999 >>'))).toThrow(/declares more than 9,007,199,254,740,991 objects/);
  });

  it("counts only a trailer's or a cross-reference stream's /Size, not an embedded file's byte count or a function's samples", () => {
    const text = (s: string) => new TextEncoder().encode(s);
    const pdf = text(
      '%PDF-1.7\n1 0 obj << /Type /EmbeddedFile /Params << /Size 3585340 >> >>\nstream\nx\nendstream endobj\n' +
        '2 0 obj << /FunctionType 0 /Size [ 2000000 ] >> endobj\n' +
        '3 0 obj << /Type /XRef /Size 40 /W [1 2 1] >>\nstream\nendstream endobj\ntrailer << /Size 12 >>',
    );
    expect(declaredObjects(pdf).size).toBe(40);
    expect(() => checkDeclaredObjects(pdf)).not.toThrow();
  });

  it('reads what pdf-lib writes with object and cross-reference streams, and the sample contract, within the limit', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < 30; i++) doc.addPage().drawText(`Page ${i + 1}`, { font });
    const pdf = await doc.save({ useObjectStreams: true });
    const declared = declaredObjects(pdf);
    expect(declared.objectStreams).toBeGreaterThan(0);
    // 30 pages, their contents and a font: about 65 objects, most of them in object streams.
    expect(declared.inObjectStreams).toBeGreaterThan(30);
    expect(declared.size).toBeGreaterThan(declared.inObjectStreams);
    expect(declared.size).toBeLessThan(100);
    const contract = readFileSync(join(import.meta.dirname, '../../fixtures/sample/contract.pdf'));
    expect(() => checkDeclaredObjects(contract)).not.toThrow();
  });

  it('refuses the shape of a few MB holding 1,500,000 tiny objects at once, in loadPdf and in the text index', async () => {
    const pdf = manyObjectsPdf({ perStream: 1_500_000 });
    expect(1_500_000).toBeGreaterThan(DEFAULT_MAX_PDF_OBJECTS);
    const refused = await loadPdf(pdf).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'PDF_TOO_MANY_OBJECTS' });
    expect((refused as Error).message).toMatch(/^The PDF declares 1,500,007 objects \(cross-reference \/Size 1,500,007; an object stream holding 1,500,000\); paraph reads at most 1,000,000/);
    await expect(indexText(pdf, { workers: 0 })).rejects.toMatchObject({ code: 'PDF_TOO_MANY_OBJECTS' });
  });
});
