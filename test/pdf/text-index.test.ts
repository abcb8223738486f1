import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import { type TextIndex, findText, indexText, normalizeSearchText } from '../../src/pdf/text-index/text-index.js';
import type { ReaderRect } from '../../src/pdf/page-geometry.js';
import { type GenPage, type GenTruth, generatePdf, randomPages } from '../../src/testing/generate-pdf.js';

function expectBoxNear(actual: ReaderRect, expected: ReaderRect, tolerance = 1): void {
  for (const key of ['left', 'top', 'width', 'height'] as const) {
    expect(Math.abs(actual[key] - expected[key]), `${key}: ${actual[key]} vs ${expected[key]}`).toBeLessThanOrEqual(tolerance);
  }
}

/** A document whose pages each show the given lines (Helvetica 12, from the top, 20 pt apart). */
async function linesPdf(pages: readonly (readonly string[])[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([400, 400]);
    lines.forEach((line, i) => page.drawText(line, { x: 30, y: 360 - 20 * i, size: 12, font }));
  }
  return doc.save();
}

describe('indexText + findText on generated documents (property)', () => {
  it('finds every drawn anchor once, on its page, within 1 pt of where it was drawn', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 3 }), async (seed, pages) => {
        const { bytes, truth } = await generatePdf(randomPages(seed, { pages }));
        const index = await indexText(bytes, { workers: 0 });
        expect(index.pageCount).toBe(pages);
        for (const t of truth) {
          const matches = findText(index, t.anchor);
          expect(matches, `${t.anchor} (${t.font}, ${t.style})`).toHaveLength(1);
          expect(matches[0]!.pageNumber).toBe(t.pageNumber);
          expectBoxNear(matches[0]!.box, t.box);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('reports every page geometry as the generator laid it out', async () => {
    const spec = randomPages(7, { pages: 6 });
    const { bytes } = await generatePdf(spec);
    const index = await indexText(bytes, { workers: 0 });
    expect(index.pages.map((p) => [p.width, p.height, p.rotation])).toEqual(spec.map((p) => [p.width, p.height, p.rotation]));
    index.pages.forEach((p, i) => {
      expect(p.pageNumber).toBe(i + 1);
      expect(p.cropBox.x).toBe(spec[i]!.cropOrigin!.x);
      expect(p.cropBox.y).toBe(spec[i]!.cropOrigin!.y);
    });
  });
});

describe('what the index holds', () => {
  const page = (texts: GenPage['texts'], rotation: GenPage['rotation'] = 0): GenPage => ({
    width: 600,
    height: 400,
    rotation,
    cropOrigin: { x: 50, y: -70 },
    mediaMargin: 20,
    texts,
  });

  it('normalizes white space: words, line breaks and gaps become single spaces', async () => {
    const bytes = await linesPdf([['Hello   world', '  second line  ']]);
    const index = await indexText(bytes, { workers: 0 });
    expect(index.text(1)!.text).toBe('Hello world second line');
  });

  it('extracts letter-spaced text with spaces and still finds it, ignoring white space, only when needed', async () => {
    const { bytes, truth } = await generatePdf([
      page([
        { anchor: '{{sign}}', left: 40, baseline: 100, size: 12, font: 'Helvetica', style: 'spaced' },
        { anchor: '{{other}}', left: 40, baseline: 200, size: 12, font: 'Helvetica', style: 'plain' },
      ]),
    ]);
    const index = await indexText(bytes, { workers: 0 });
    expect(index.text(1)!.text).toContain('{ { s i g n } }');
    const [match] = findText(index, '{{sign}}');
    expect(match!.text).toBe('{ { s i g n } }');
    expectBoxNear(match!.box, truth[0]!.box);
    // The exact pass found something, so no white-space-insensitive matches are added.
    expect(findText(index, '{{other}}')).toHaveLength(1);
    expect(findText(index, '{{ other }}')).toHaveLength(1);
  });

  it('expands ligature glyphs the same way in text and boxes', async () => {
    const { bytes, truth } = await generatePdf([
      page([{ anchor: 'ﬁnal', prefix: 'the ', left: 40, baseline: 100, size: 20, font: 'DejaVuSans', style: 'plain' }]),
    ]);
    const index = await indexText(bytes, { workers: 0 });
    expect(index.text(1)!.text).toBe('the final');
    const [match] = findText(index, 'final');
    expectBoxNear(match!.box, truth[0]!.box);
    const [fi] = findText(index, 'fi');
    // "fi" is one glyph: its box is the whole glyph, shared evenly by the two letters.
    expect(fi!.box.left).toBeCloseTo(match!.box.left, 1);
  });

  it('measures each glyph of a run exactly (a word inside a long proportional run)', async () => {
    const prefix = 'WWWWWWWW iiiiiiii mmmm ';
    const { bytes, truth } = await generatePdf([
      page([{ anchor: 'Anchor', prefix, suffix: ' WWW', left: 10, baseline: 50, size: 14, font: 'DejaVuSans', style: 'plain' }]),
    ]);
    // pdf.js to 0.1 pt; PDFium puts this word 0.26 pt to the right (within the engines' 1 pt agreement).
    const index = await indexText(bytes, { workers: 0, engine: 'pdfjs' });
    const [match] = findText(index, 'Anchor');
    expectBoxNear(match!.box, truth[0]!.box, 0.1);
  });

  it('finds text on every rotation, with a CropBox origin away from zero', async () => {
    for (const rotation of [0, 90, 180, 270] as const) {
      const { bytes, truth } = await generatePdf([
        page(
          [
            { anchor: 'Upright', left: 100, baseline: 100, size: 12, font: 'Times-Roman', style: 'kerned' },
            { anchor: 'Sideways', left: 300, baseline: 350, size: 12, font: 'Type3', style: 'plain', angle: 90 },
          ],
          rotation,
        ),
      ]);
      const index = await indexText(bytes, { workers: 0 });
      expect(index.pages[0]).toMatchObject({ width: 600, height: 400, rotation });
      expectBoxNear(findText(index, 'Upright')[0]!.box, truth[0]!.box);
      expectBoxNear(findText(index, 'Sideways')[0]!.box, truth[1]!.box);
      // Sideways text: the box is tall and narrow.
      expect(findText(index, 'Sideways')[0]!.box.height).toBeGreaterThan(findText(index, 'Sideways')[0]!.box.width);
    }
  });

  it('gives pages without text an empty string and keeps their geometry', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([300, 500]);
    doc.addPage([500, 300]);
    const index = await indexText(await doc.save(), { workers: 0 });
    expect(index.pageCount).toBe(2);
    expect(index.pages[1]).toMatchObject({ width: 500, height: 300 });
    expect(index.text(1)!.text).toBe('');
    expect(findText(index, 'anything')).toEqual([]);
  });

  it('reads geometry of every page but text only of the pages asked for', async () => {
    const bytes = await linesPdf([['one'], ['two'], ['three']]);
    const index = await indexText(bytes, { workers: 0, pages: [2, 9] });
    expect(index.pages).toHaveLength(3);
    expect(index.text(1)).toBeUndefined();
    expect(index.text(2)!.text).toBe('two');
    expect(findText(index, 'two', { pageNumber: 2 })).toHaveLength(1);
    expect(() => findText(index, 'two')).toThrow(expect.objectContaining({ code: 'TEXT_NOT_INDEXED' }));
  });

  it('charBox gives a box per character and none for spaces', async () => {
    const index = await indexText(await linesPdf([['ab cd']]), { workers: 0 });
    const text = index.text(1)!;
    expect(text.charBox(2)).toBeUndefined();
    expect(text.charBox(99)).toBeUndefined();
    const a = text.charBox(0)!;
    const b = text.charBox(1)!;
    expect(a.left).toBeCloseTo(30, 1);
    expect(b.left).toBeCloseTo(a.left + a.width, 1);
    expect(a.height).toBeCloseTo(12, 1);
    expect(a.top).toBeCloseTo(400 - 360 - 0.8 * 12, 1);
  });
});

describe('findText semantics', () => {
  let index: TextIndex;
  const ready = (async () => {
    index = await indexText(
      await linesPdf([
        ['Sign here: {{Signer1}}', 'and {{Signer1}} again'],
        ['Page two ends with Sign', 'here on the next line'],
        ['sign lowercase; {{Signer1}}'],
      ]),
      { workers: 0 },
    );
  })();

  it('returns matches in page order, then text order, non-overlapping', async () => {
    await ready;
    const matches = findText(index, '{{Signer1}}');
    expect(matches.map((m) => m.pageNumber)).toEqual([1, 1, 3]);
    expect(matches[0]!.box.top).toBeLessThan(matches[1]!.box.top);
    expect(findText(index, 'aa')).toEqual([]);
  });

  it('is case-sensitive', async () => {
    await ready;
    expect(findText(index, 'SIGN')).toEqual([]);
    expect(findText(index, 'Lowercase')).toEqual([]);
    expect(findText(index, 'sign').map((m) => m.pageNumber)).toEqual([3]);
  });

  it('treats runs of white space in the needle as one space and matches across line breaks on a page', async () => {
    await ready;
    const matches = findText(index, 'Sign \n  here');
    expect(matches.map((m) => m.pageNumber)).toEqual([1, 2]);
    // Across two lines on page 2: the box spans both.
    expect(matches[1]!.box.height).toBeGreaterThan(25);
  });

  it('never matches across pages', async () => {
    await ready;
    expect(findText(index, 'again Page')).toEqual([]);
    expect(findText(index, 'againPage')).toEqual([]);
    expect(findText(index, 'again\u0000Page')).toEqual([]);
    expect(findText(index, 'again\u0000')).toHaveLength(1);
  });

  it('restricts to one page with pageNumber and finds nothing beyond the document', async () => {
    await ready;
    expect(findText(index, '{{Signer1}}', { pageNumber: 3 }).map((m) => m.pageNumber)).toEqual([3]);
    expect(findText(index, '{{Signer1}}', { pageNumber: 4 })).toEqual([]);
    expect(findText(index, '{{Signer1}}', { pageNumber: 0 })).toEqual([]);
  });

  it('matches nothing for a blank needle', async () => {
    await ready;
    expect(findText(index, '')).toEqual([]);
    expect(findText(index, ' \t\n')).toEqual([]);
  });

  it('normalizeSearchText collapses and trims white space', () => {
    expect(normalizeSearchText('  a \t\n b  ')).toBe('a b');
    expect(normalizeSearchText('ﬁne ﬂow')).toBe('fine flow');
  });
});

describe('committed fixtures (fixtures/pdf, generated by fixtures/generate-pdfs.ts)', () => {
  const dir = join(import.meta.dirname, '../../fixtures/pdf');
  const anchors = JSON.parse(readFileSync(join(dir, 'anchors.json'), 'utf8')) as Record<string, GenTruth[]>;

  it('finds every recorded anchor within 1 pt of its recorded box', async () => {
    for (const [file, truths] of Object.entries(anchors)) {
      const index = await indexText(readFileSync(join(dir, file)), { workers: 0 });
      for (const t of truths) {
        const matches = findText(index, t.anchor, { pageNumber: t.pageNumber });
        const near = matches.filter((m) => Math.abs(m.box.left - t.box.left) <= 1 && Math.abs(m.box.top - t.box.top) <= 1);
        expect(near, `${file}: ${t.anchor}`).toHaveLength(1);
        expectBoxNear(near[0]!.box, t.box);
      }
    }
  });

  it('indexes pages without text as empty', async () => {
    const noText = await indexText(readFileSync(join(dir, 'no-text.pdf')), { workers: 0 });
    expect(noText.text(1)!.text).toBe('');
    const blank = await indexText(readFileSync(join(dir, 'two-pages-blank.pdf')), { workers: 0 });
    expect(blank.pages.map((p) => [p.width, p.height])).toEqual([
      [595, 842],
      [842, 595],
    ]);
    expect([blank.text(1)!.text, blank.text(2)!.text]).toEqual(['', '']);
  });
});
