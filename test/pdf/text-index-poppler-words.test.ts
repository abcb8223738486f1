/**
 * A word poppler's pdftotext prints is a word Search finds, with either engine, on small PDFs that show each way
 * a reading went wrong: text turned half round by a negative font size, a font that gives no Unicode for its codes
 * (the default engine then reads the page with pdf.js, whose glyph-name fallbacks read the letters), a word
 * hyphenated across lines (pdftotext joins it), and Arabic in presentation forms, which pdftotext prints with
 * bidirectional formatting marks around it (the committed pdf.js corpus file).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findText, indexText, searchText, TEXT_ENGINES } from '../../src/pdf/text-index/text-index.js';
import { popplerWords } from '../../scripts/search-corpus-report.js';
import { scratchFiles } from '../helpers/scratch-files.js';

const scratch = scratchFiles('poppler-words');

/** A one-page PDF (400 × 400) drawing `content` with the fonts `fonts` (a resource dictionary); `extra` objects from 5 on. */
function rawPdf(content: string, fonts: string, extra: readonly string[]): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R /Resources << /Font ${fonts} >> >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    ...extra,
  ];
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

const HELVETICA = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** "Authority" at size −12: the glyphs turned half round, the word running right to left from (300, 300). */
const NEGATIVE_SIZE = rawPdf('BT /F1 -12 Tf 1 0 0 1 300 300 Tm (Authority) Tj ET', '<< /F1 5 0 R >>', [HELVETICA]);

/** "Sign" in a Type3 font whose codes 1–4 are named /S /i /g /n and that has no ToUnicode. */
const GLYPH = '500 0 0 0 500 700 d1 0 0 500 700 re f';
const NAMED_GLYPHS = rawPdf('BT /T3 12 Tf 50 100 Td <01020304> Tj ET', '<< /T3 5 0 R >>', [
  '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 500 700] /FontMatrix [0.001 0 0 0.001 0 0] ' +
    '/CharProcs << /S 6 0 R /i 6 0 R /g 6 0 R /n 6 0 R >> /Encoding << /Type /Encoding /Differences [1 /S /i /g /n] >> ' +
    '/FirstChar 1 /LastChar 4 /Widths [500 500 500 500] /Resources << >> >>',
  `<< /Length ${GLYPH.length} >>\nstream\n${GLYPH}\nendstream`,
]);

/** "Please sig-" and "nature here" on two lines. */
const HYPHENATED = rawPdf('BT /F1 12 Tf 50 300 Td (Please sig-) Tj 0 -14 Td (nature here) Tj ET', '<< /F1 5 0 R >>', [HELVETICA]);

const ARABIC_CID = new Uint8Array(readFileSync(join(import.meta.dirname, '../../fixtures/pdfjs/ArabicCIDTrueType.pdf')));

const CASES = {
  'text turned half round by a negative font size': NEGATIVE_SIZE,
  'a Type3 font without Unicode, glyphs named /S /i /g /n': NAMED_GLYPHS,
  'a word hyphenated across lines': HYPHENATED,
  'Arabic presentation forms (pdftotext adds bidi marks)': ARABIC_CID,
};

function pdftotextWords(pdf: Uint8Array): string[] {
  return popplerWords(execFileSync('pdftotext', ['-q', '-l', '1', '-enc', 'UTF-8', scratch.file(pdf), '-'], { encoding: 'utf8' }), 10);
}

describe('poppler reads the generated files as a reader shows them', () => {
  it.each([
    [NEGATIVE_SIZE, 'Authority'],
    [NAMED_GLYPHS, 'Sign'],
    [HYPHENATED, 'signature'],
  ] as const)('pdftotext prints the word (%#)', (pdf, word) => {
    expect(pdftotextWords(pdf)).toContain(word);
  });
});

describe.each(TEXT_ENGINES)('with the %s engine', (engine) => {
  it.each(Object.entries(CASES))('%s: every word pdftotext prints on the page is found', async (_name, pdf) => {
    const words = pdftotextWords(pdf);
    expect(words.length).toBeGreaterThan(0);
    const index = await indexText(pdf, { engine, workers: 0 });
    expect(words.filter((word) => findText(index, word).length === 0)).toEqual([]);
    // The same in worker threads, where each page is searched as it is extracted.
    const search = await searchText(pdf, words.map((needle) => ({ needle, keep: 1 })), { engine, workers: 1 });
    expect(words.filter((_word, i) => search.found(i).total === 0)).toEqual([]);
  });

  it('text turned half round: the word reads forwards, its box where the glyphs hang (left of the origin, below the baseline)', async () => {
    const index = await indexText(NEGATIVE_SIZE, { engine, workers: 0 });
    expect(index.text(1)?.text).toBe('Authority');
    const [match] = findText(index, 'Authority');
    // The word runs leftwards from x = 300 and hangs below its baseline (100 pt from the top, y down): 0.2 em
    // above it to 0.8 em below, the box convention turned half round with the glyphs.
    expect(match!.box.left + match!.box.width).toBeCloseTo(300, 0);
    expect(match!.box.width).toBeGreaterThan(40);
    expect(match!.box.top).toBeCloseTo(100 - 0.2 * 12, 1);
    expect(match!.box.height).toBeCloseTo(12, 1);
  });

  it('a hyphenated word is found across the line break, once; the hyphen still matches as written', async () => {
    const index = await indexText(HYPHENATED, { engine, workers: 0 });
    expect(findText(index, 'signature')).toHaveLength(1);
    expect(findText(index, 'sig- nature')).toHaveLength(1);
    expect(findText(index, 'Please sig-')).toHaveLength(1);
  });
});

describe('the two engines agree on the pages the default engine reads poorly or backwards', () => {
  it.each([NEGATIVE_SIZE, NAMED_GLYPHS])('same text, boxes within 1 pt (%#)', async (pdf) => {
    const [pdfium, pdfjs] = await Promise.all(TEXT_ENGINES.map((engine) => indexText(pdf, { engine, workers: 0 })));
    const a = pdfium!.text(1)!;
    const b = pdfjs!.text(1)!;
    expect(a.text).toBe(b.text);
    for (let i = 0; i < a.text.length; i++) {
      const ba = a.charBox(i);
      const bb = b.charBox(i);
      if (!ba || !bb) continue;
      expect(Math.abs(ba.left - bb.left)).toBeLessThan(1);
      expect(Math.abs(ba.left + ba.width - (bb.left + bb.width))).toBeLessThan(1);
    }
  });
});
