import { describe, expect, it, beforeAll } from 'vitest';
import fc from 'fast-check';
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { A4, ReceiptLayout } from '../../src/receipt/receipt-layout.js';
import { loadBundledFont } from '../../src/pdf/fonts.js';

async function newLayout(): Promise<{ doc: PDFDocument; layout: ReceiptLayout }> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(fontkit);
  const fonts = {
    regular: await doc.embedFont(await loadBundledFont('regular'), { subset: true }),
    bold: await doc.embedFont(await loadBundledFont('bold'), { subset: true }),
  };
  return { doc, layout: new ReceiptLayout(doc, fonts, A4) };
}

let layout: ReceiptLayout;
beforeAll(async () => {
  ({ layout } = await newLayout());
});

const textArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.array(fc.oneof(fc.stringMatching(/^[0-9a-f]{1,80}$/), fc.constantFrom('Zoë', 'Łukasiewicz', 'Αλέξανδρος', ' ', '  ', '\n', 'a@b.example')), { maxLength: 40 }).map((parts) => parts.join(' ')),
);

describe('ReceiptLayout.wrap', () => {
  it('never makes a line wider than asked (unless one character is) and loses no visible character', () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 5, max: 400 }), fc.constantFrom(7, 8.5, 13), fc.boolean(), (text, width, size, bold) => {
        const style = { size, bold };
        const lines = layout.wrap(text, style, width);
        for (const line of lines) {
          const chars = [...line];
          if (chars.length > 1) expect(layout.measure(line, style)).toBeLessThanOrEqual(width + 1e-9);
        }
        const visible = (s: string): string => [...s].filter((c) => /\S/u.test(c) && c.codePointAt(0)! >= 0x20 && !(c >= '\x7f' && c < '\xa0')).join('');
        // Characters the font lacks become U+FFFD; compare lengths for those, contents otherwise.
        expect([...visible(lines.join(''))].length).toBe([...visible(text.replace(/[\u2028\u2029]/g, ' '))].length);
      }),
      { numRuns: 300, examples: [['\u3000', 5, 7, false]] },
    );
  });

  it('breaks at spaces when it can and keeps a 64-digit hash whole when it fits', () => {
    const hash = '0123456789'.repeat(6) + 'abcd';
    expect(layout.wrap(`SHA-256 ${hash}`, { size: 8.5 }, 349)).toEqual(['SHA-256', hash]);
    expect(layout.wrap('one two three', { size: 10 }, 1000)).toEqual(['one two three']);
    expect(layout.wrap('first\nsecond', { size: 10 }, 1000)).toEqual(['first', 'second']);
    expect(layout.wrap(hash, { size: 8.5 }, 100).join('')).toBe(hash);
  });

  it('turns control characters into spaces and characters without a glyph into U+FFFD', () => {
    expect(layout.wrap('a\u0007b\tc', { size: 10 }, 1000)).toEqual(['a b c']);
    expect(layout.wrap('漢', { size: 10 }, 1000)).toEqual(['\ufffd']);
  });

  it('does not crash on Tifinagh, which fontkit cannot lay out without a global regeneratorRuntime: drawn as U+FFFD', async () => {
    const { doc, layout: l } = await newLayout();
    expect(l.measure('ⴰⴱ', { size: 10 })).toBe(2 * l.measure('\ufffd', { size: 10 }));
    l.paragraph('Tifinagh ⴰⴱⴳ', { size: 10 });
    l.finish(() => ({ left: '', right: '' }));
    expect((await doc.save()).length).toBeGreaterThan(0);
  });
});

describe('ReceiptLayout.table', () => {
  it('continues a row taller than a page on the next pages and repeats the header; all text stays inside the margins', async () => {
    const { doc, layout: l } = await newLayout();
    const tall = Array.from({ length: 150 }, (_, i) => `line ${i + 1}`).join('\n');
    l.table(
      [
        { header: 'Key', width: 100 },
        { header: 'Value', width: l.contentWidth - 100 },
      ],
      [['short', 'x'], ['tall', tall], ['after', 'y']],
      { size: 8 },
    );
    l.finish((page, pages) => ({ left: 'footer', right: `page ${page} of ${pages}` }));
    expect(l.pageCount).toBeGreaterThanOrEqual(3);
    const pdf = await doc.save();
    const js = await pdfjs.getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 }).promise;
    const texts: string[][] = [];
    for (let n = 1; n <= js.numPages; n++) {
      const page = await js.getPage(n);
      const items = (await page.getTextContent()).items.filter((i) => 'str' in i && i.str.trim() !== '') as { str: string; transform: number[]; width: number }[];
      for (const item of items) {
        expect(item.transform[4]!).toBeGreaterThanOrEqual(50 - 0.01);
        expect(item.transform[4]! + item.width).toBeLessThanOrEqual(A4[0] - 50 + 0.01);
        expect(item.transform[5]!).toBeGreaterThanOrEqual(20);
        expect(item.transform[5]!).toBeLessThanOrEqual(A4[1] - 50);
      }
      texts.push(items.map((i) => i.str));
    }
    await js.destroy();
    for (const page of texts) expect(page.slice(0, 2)).toEqual(['Key', 'Value']);
    const all = texts.flat();
    for (let i = 1; i <= 150; i++) expect(all).toContain(`line ${i}`);
    expect(all.indexOf('after')).toBeGreaterThan(all.indexOf('line 150'));
    expect(texts.at(-1)).toContain(`page ${texts.length} of ${texts.length}`);
  });
});
