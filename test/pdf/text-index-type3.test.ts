/**
 * Type3 text gets boxes from the font's FontBBox through its FontMatrix, with both engines: a Type3 font's glyph
 * space is whatever its FontMatrix makes it, so "1 em = the font size" would give boxes a fraction of a point or
 * hundreds of points high. Each generated font draws its glyphs as squares filling the FontBBox, so the box of a word
 * is the ink a reader sees. poppler's `pdftotext -bbox` is the independent check: it scales a Type3 font by its
 * FontMatrix and guesses the em from a letter's width (its box is then the font's default ascent 0.95 and descent
 * 0.35 of twice that width), so along the text its box must be ours, its baseline ours, and its box must hold ours.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findText, indexText, TEXT_ENGINES } from '../../src/pdf/text-index/text-index.js';

interface Type3Case {
  /** FontMatrix a and d (no shear). */
  readonly scale: number;
  readonly flip: boolean;
  /** Glyph height in glyph space (the FontBBox is 0…h, or −h…0 when flipped). */
  readonly glyph: number;
  readonly size: number;
}

/** A one-page PDF (400 × 400) that writes "ab" at (50, 100) in a Type3 font shaped by `c`. */
function type3Pdf(c: Type3Case): Uint8Array {
  const h = c.glyph;
  const d = c.flip ? -c.scale : c.scale;
  const [y0, y1] = c.flip ? [-h, 0] : [0, h];
  const proc = `${h} 0 0 ${y0} ${h} ${y1} d1 0 ${y0} ${h} ${h} re f`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R /Resources << /Font << /T3 5 0 R >> >> >>',
    `<< /Length ${`BT /T3 ${c.size} Tf 50 100 Td (ab) Tj ET`.length} >>\nstream\nBT /T3 ${c.size} Tf 50 100 Td (ab) Tj ET\nendstream`,
    `<< /Type /Font /Subtype /Type3 /FontBBox [0 ${y0} ${h} ${y1}] /FontMatrix [${c.scale} 0 0 ${d} 0 0] /CharProcs << /a 6 0 R /b 7 0 R >> /Encoding << /Type /Encoding /Differences [97 /a /b] >> /FirstChar 97 /LastChar 98 /Widths [${h} ${h}] /Resources << >> >>`,
    `<< /Length ${proc.length} >>\nstream\n${proc}\nendstream`,
    `<< /Length ${proc.length} >>\nstream\n${proc}\nendstream`,
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

const CASES: Record<string, Type3Case> = {
  'FontMatrix 0.01, glyphs 750 units, size 20 (150 pt ink)': { scale: 0.01, flip: false, glyph: 750, size: 20 },
  'FontMatrix 1, glyphs 0.75 units, size 20 (15 pt ink)': { scale: 1, flip: false, glyph: 0.75, size: 20 },
  'flipped FontMatrix 0.001, glyphs drawn 750 units down, size 12 (9 pt ink)': { scale: 0.001, flip: true, glyph: 750, size: 12 },
  // pdf.js hands a FontBBox on as 16-bit integers: this one arrives as [0 0 0 0], and its glyphs' d1 bounds tell.
  'FontMatrix 1, glyphs 0.6 units, flipped, size 25 (15 pt ink)': { scale: 1, flip: true, glyph: 0.6, size: 25 },
};

/** poppler's box of the page's one word, in points from the page's top-left corner. */
function popplerWord(pdf: Uint8Array): { xMin: number; yMin: number; xMax: number; yMax: number } {
  const dir = mkdtempSync(join(tmpdir(), 'paraph-type3-'));
  try {
    const file = join(dir, 'type3.pdf');
    writeFileSync(file, pdf);
    const html = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' });
    const match = /<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">ab<\/word>/.exec(html);
    if (!match) throw new Error(`pdftotext found no word "ab": ${html}`);
    return { xMin: Number(match[1]), yMin: Number(match[2]), xMax: Number(match[3]), yMax: Number(match[4]) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('poppler on the generated Type3 fonts', () => {
  it.each(Object.entries(CASES))('%s: the word stands on the baseline, its ink inside poppler\'s box', (_name, c) => {
    const word = popplerWord(type3Pdf(c));
    const ink = c.glyph * c.scale * c.size;
    expect(word.xMin).toBeCloseTo(50, 1);
    expect(word.xMax).toBeCloseTo(50 + 2 * ink, 1);
    // poppler's baseline: 0.95 of its box height below its top (ascent 0.95, descent 0.35).
    expect(word.yMin + ((word.yMax - word.yMin) * 0.95) / 1.3).toBeCloseTo(300, 1);
    expect(word.yMin).toBeLessThan(300 - ink);
  });
});

describe.each(TEXT_ENGINES)('Type3 glyph boxes with the %s engine', (engine) => {
  it.each(Object.entries(CASES))('%s: the word\'s box is its ink', async (_name, c) => {
    const index = await indexText(type3Pdf(c), { engine, workers: 0 });
    const [match] = findText(index, 'ab');
    const ink = c.glyph * c.scale * c.size;
    // The glyphs stand on the baseline at y = 100, 400 − 100 = 300 from the top (a flipped FontMatrix turns glyphs
    // drawn below the glyph-space origin upright).
    const top = 300 - ink;
    expect(match?.box, JSON.stringify(match?.box)).toBeDefined();
    expect(match?.box.left).toBeCloseTo(50, 1);
    expect(match?.box.width).toBeCloseTo(2 * ink, 1);
    expect(match?.box.top).toBeCloseTo(top, 1);
    expect(match?.box.height).toBeCloseTo(ink, 1);
    // Where poppler, which reads the FontMatrix independently, puts the word.
    const poppler = popplerWord(type3Pdf(c));
    expect(match!.box.left).toBeCloseTo(poppler.xMin, 1);
    expect(match!.box.left + match!.box.width).toBeCloseTo(poppler.xMax, 1);
    expect(match!.box.top).toBeGreaterThanOrEqual(poppler.yMin);
    expect(match!.box.top + match!.box.height).toBeLessThanOrEqual(poppler.yMax);
  });
});
