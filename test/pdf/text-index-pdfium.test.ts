/**
 * The PDFium text engine against the pdf.js one: same anchors, same boxes within 1 pt, same refusals, and
 * bounded on the hostile files of fixtures/corpus.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { degrees, PDFDocument, PDFName, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import { cachingFontkit, loadBundledFont } from '../../src/pdf/fonts.js';
import { findText, indexText, searchText, type TextIndex } from '../../src/pdf/text-index/text-index.js';
import { boxDistance, compareIndexes } from '../helpers/engine-parity.js';
import { generatePdf, randomPages } from '../../src/testing/generate-pdf.js';

const corpus = (file: string): Uint8Array => readFileSync(join(import.meta.dirname, '../../fixtures/corpus', file));

const distance = boxDistance;

/** Compares the two indexes on every page's unique words (30 a page): those missing from PDFium's text, and the worst box gap. */
function compare(pdfjs: TextIndex, pdfium: TextIndex): { anchors: number; missing: string[]; worst: number } {
  const { anchors, missingInB, worst } = compareIndexes(pdfjs, pdfium);
  return { anchors, missing: missingInB, worst };
}

describe('the PDFium engine on generated documents', () => {
  // Fixed seeds. 926523, 5917 and 10109 each had an anchor split in two blocks that PDFium's line grouping listed
  // apart (another line between them, e.g. {{jw6Xe}}, split-blocks at 90° on a page turned 270°): the engine now puts
  // PDFium's characters back in content order. 8275 has upside-down text whose spaces must keep their place too.
  it.each([1, 7, 11, 42, 2118777046, 784390891, 1000 * 7919, 1001 * 7919, 1002 * 7919, 1003 * 7919, 926523, 5917, 10109, 8275])(
    'seed %i: the same text as pdf.js, and every drawn anchor within 1 pt of where it was drawn and of where pdf.js finds it (rotations, CropBox offsets, fonts)',
    async (seed) => {
      const { bytes, truth } = await generatePdf(randomPages(seed, { pages: 4 }));
      const pdfium = await indexText(bytes, { engine: 'pdfium', workers: 0 });
      const pdfjs = await indexText(bytes, { workers: 0, engine: 'pdfjs' });
      expect(pdfium.pages).toEqual(pdfjs.pages);
      for (let n = 1; n <= 4; n++) expect(pdfium.text(n)!.text, `page ${n}`).toBe(pdfjs.text(n)!.text);
      for (const t of truth) {
        const [found, ...more] = findText(pdfium, t.anchor);
        expect(found, `${t.anchor} (${t.font}, ${t.style})`).toBeDefined();
        expect(more).toHaveLength(0);
        expect(found!.pageNumber).toBe(t.pageNumber);
        expect(distance(found!.box, t.box), `${t.anchor} (${t.font}, ${t.style})`).toBeLessThanOrEqual(1);
        expect(distance(found!.box, findText(pdfjs, t.anchor)[0]!.box)).toBeLessThanOrEqual(1);
      }
    },
    60_000,
  );

  it('runs in a worker thread too, with the same result, and searches there', async () => {
    const { bytes, truth } = await generatePdf(randomPages(11, { pages: 3 }));
    const inThread = await indexText(bytes, { engine: 'pdfium', workers: 0 });
    const inWorker = await indexText(bytes, { engine: 'pdfium' });
    for (let n = 1; n <= 3; n++) expect(inWorker.text(n)!.text).toBe(inThread.text(n)!.text);
    expect(findText(inWorker, truth[0]!.anchor)[0]!.box).toEqual(findText(inThread, truth[0]!.anchor)[0]!.box);
  });

  it('refuses an unknown engine', async () => {
    const { bytes } = await generatePdf(randomPages(1, { pages: 1 }));
    await expect(indexText(bytes, { engine: 'mupdf' as never })).rejects.toThrow(RangeError);
  });
});

describe('the PDFium engine on fixtures/corpus', () => {
  it.each(['book.pdf', 'broken-xref.pdf', 'flate-bomb.pdf', 'form-self-cycle.pdf', 'type3-huge-image.pdf'])(
    '%s: every word unique on its page (30 a page) is where pdf.js has it, within 1 pt',
    async (file) => {
      const bytes = corpus(file);
      const pdfjs = await indexText(bytes, { engine: 'pdfjs' });
      const pdfium = await indexText(bytes, { engine: 'pdfium' });
      const { anchors, missing, worst } = compare(pdfjs, pdfium);
      expect(anchors).toBeGreaterThan(0);
      expect(missing).toEqual([]);
      expect(worst).toBeLessThanOrEqual(1);
    },
    60_000,
  );

  // PDFium's content parser reads forms 40 deep at most (kMaxFormLevel in its cpdf_streamcontentparser.cpp, a build
  // constant): the 41st of the file's 60 nested forms parses to no objects, without an error, so the text drawn by the
  // 60th would be lost. The engine sees a form that deep and has pdf.js, which has no such limit, read the page.
  it.each([0, 1])('deep-nesting.pdf (workers: %i): the page with forms nested past PDFium\'s limit is read by pdf.js, no text is lost', async (workers) => {
    const bytes = corpus('deep-nesting.pdf');
    const pdfium = await indexText(bytes, { engine: 'pdfium', workers });
    const { missing, worst } = compare(await indexText(bytes, { engine: 'pdfjs' }), pdfium);
    expect(missing).toEqual([]);
    expect(worst).toBeLessThanOrEqual(1);
    expect(findText(pdfium, 'Innermost')).toHaveLength(1);
    const search = await searchText(bytes, [{ needle: 'Innermost', keep: 1 }], { engine: 'pdfium', workers });
    expect(search.found(0).total).toBe(1);
  });

  it('refuses encrypted files as pdf.js does, also with an empty user password', async () => {
    for (const file of ['empty-password-aes256.pdf', 'empty-password-rc4.pdf']) {
      await expect(indexText(corpus(file), { engine: 'pdfium' })).rejects.toMatchObject({ code: 'PDF_ENCRYPTED' });
    }
  });

  it('form-pattern-cycle.pdf: PDFium breaks the cycle itself and reads the page, in bounded time', async () => {
    const started = performance.now();
    const index = await indexText(corpus('form-pattern-cycle.pdf'), { engine: 'pdfium', limits: { pageMs: 5000 } });
    expect(index.pageCount).toBe(1);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('ends a worker that exceeds the time budget with PDF_TOO_COMPLEX', async () => {
    // A budget no document can meet: the watchdog, not PDFium, ends the extraction.
    await expect(indexText(corpus('book.pdf'), { engine: 'pdfium', limits: { baseMs: 1, perPageMs: 0.001 } })).rejects.toMatchObject({
      code: 'PDF_TOO_COMPLEX',
    });
  });

  it('honours the page count limit', async () => {
    await expect(indexText(corpus('book.pdf'), { engine: 'pdfium', limits: { maxPages: 10 } })).rejects.toMatchObject({ code: 'PDF_TOO_COMPLEX', message: expect.stringMatching(/120 pages/) as unknown });
  });
});

describe('the PDFium engine where the loose box is not the advance (freeculture.pdf)', () => {
  // PDFium's loose character box is the advance box united with the glyph's ink: wider than the advance where the ink
  // overhangs it (DejaVu Sans: J and ƒ reach left of the origin, f and ƒ past the advance) and where text is slanted.
  const SIZE = 48;
  const WORDS = ['Jof', 'ƒjord', 'chef', 'Jump'];

  async function overhangs(): Promise<{ bytes: Uint8Array; widths: number[] }> {
    const doc = await PDFDocument.create();
    doc.registerFontkit(cachingFontkit);
    const font = await doc.embedFont(await loadBundledFont('regular'), { subset: true });
    const page = doc.addPage([600, 700]);
    // One word a line: PDFium rounds the fractional widths pdf-lib writes, so positions drift apart along a line.
    WORDS.forEach((word, i) => page.drawText(word, { x: 40, y: 620 - 70 * i, size: SIZE, font }));
    // pdf-lib writes "ff" with DejaVu Sans's ligature glyph, whose ink also reaches its far end.
    page.drawText('staff', { x: 40, y: 300, size: SIZE, font });
    page.drawText('Slanted Culture of', { x: 40, y: 200, size: 36, font, xSkew: degrees(14) });
    page.drawText('Helvetica gulf itself', { x: 40, y: 80, size: 36, font: await doc.embedFont(StandardFonts.HelveticaOblique) });
    return { bytes: await doc.save(), widths: WORDS.map((w) => font.widthOfTextAtSize(w, SIZE)) };
  }

  it('a word whose glyphs overhang their advance is as wide as its advances, as pdf.js has it; slanted text agrees too', async () => {
    const { bytes, widths } = await overhangs();
    const pdfjs = await indexText(bytes, { workers: 0, engine: 'pdfjs' });
    const pdfium = await indexText(bytes, { engine: 'pdfium', workers: 0 });
    WORDS.forEach((word, i) => {
      const [found, ...more] = findText(pdfium, word);
      expect(more, word).toHaveLength(0);
      expect(Math.abs(found!.box.width - widths[i]!), word).toBeLessThanOrEqual(0.25);
      expect(distance(found!.box, findText(pdfjs, word)[0]!.box), word).toBeLessThanOrEqual(0.25);
    });
    for (const word of ['staff', 'Slanted', 'Culture', 'Helvetica', 'gulf', 'itself']) {
      const [b] = findText(pdfium, word);
      expect(b, word).toBeDefined();
      // A ligature's advance is the sum of its letters' (PDFium gives widths by Unicode only): within 1 pt.
      expect(distance(findText(pdfjs, word)[0]!.box, b!.box), word).toBeLessThanOrEqual(word === 'staff' ? 1 : 0.25);
    }
  });
});

describe('the PDFium engine on a font without a Unicode map', () => {
  it('reads its code 2 as no character, as pdf.js does, not as the line-ending hyphen PDFium also gives as U+0002', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([400, 200]);
    const helvetica = await doc.embedFont(StandardFonts.Helvetica);
    const procs = doc.context.obj({});
    for (const name of ['x2', 'x3']) procs.set(PDFName.of(name), doc.context.register(doc.context.stream('500 0 0 0 500 700 d1 50 0 400 700 re f')));
    const type3 = doc.context.register(
      doc.context.obj({
        Type: 'Font',
        Subtype: 'Type3',
        FontBBox: [0, 0, 1000, 1000],
        FontMatrix: [0.001, 0, 0, 0.001, 0, 0],
        CharProcs: procs,
        // Glyph names that say nothing of Unicode, and no ToUnicode.
        Encoding: doc.context.obj({ Type: 'Encoding', Differences: [2, PDFName.of('x2'), PDFName.of('x3')] }),
        FirstChar: 2,
        LastChar: 3,
        Widths: [500, 500],
      }),
    );
    page.node.setFontDictionary(PDFName.of('T3'), type3);
    page.drawText('Total', { x: 40, y: 100, size: 20, font: helvetica });
    const content = doc.context.stream('BT /T3 20 Tf 100 100 Td <0203020302> Tj ET');
    page.node.addContentStream(doc.context.register(content));
    page.drawText('due', { x: 200, y: 100, size: 20, font: helvetica });
    const bytes = await doc.save();
    const pdfjs = (await indexText(bytes, { workers: 0, engine: 'pdfjs' })).text(1)!.text;
    const pdfium = (await indexText(bytes, { engine: 'pdfium', workers: 0 })).text(1)!.text;
    expect(pdfium).not.toContain('-');
    expect(pdfium).toBe(pdfjs);
  });
});
