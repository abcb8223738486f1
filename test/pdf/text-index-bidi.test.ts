/**
 * Right-to-left text is searched in reading (logical) order, as users type it: PDFs draw Hebrew and Arabic words in
 * visual order (left to right) and both engines hand the characters over in drawing order; the index puts each run
 * on a line from its rightmost character to its leftmost, boxes along. A run already in reading order stays so.
 */
import fontkit from '@pdf-lib/fontkit';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { findText, indexText, TEXT_ENGINES, type TextIndex } from '../../src/pdf/text-index/text-index.js';

const FONT = readFileSync(join(import.meta.dirname, '../../assets/fonts/DejaVuSans.ttf'));
/** Mozilla pdf.js's test file: one line of Arabic presentation forms, drawn glyph by glyph in visual order, four times. */
const ARABIC_CID = new Uint8Array(readFileSync(join(import.meta.dirname, '../../fixtures/pdfjs/ArabicCIDTrueType.pdf')));
const reversed = (word: string): string => [...word].reverse().join('');

/** Hebrew and Arabic lines as a word processor draws them (fontkit lays them out in visual order), and one in reading order. */
async function rightToLeftPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(FONT, { subset: true });
  const page = doc.addPage([400, 300]);
  page.drawText('שלום עולם', { x: 50, y: 250, size: 14, font });
  page.drawText('مرحبا بالعالم', { x: 50, y: 200, size: 14, font });
  // Letter by letter in reading order, each one drawn left of the one before.
  let x = 300;
  for (const ch of 'תודה רבה') {
    x -= font.widthOfTextAtSize(ch, 14);
    page.drawText(ch, { x, y: 150, size: 14, font });
  }
  return doc.save();
}

describe.each(TEXT_ENGINES)('right-to-left text with the %s engine', (engine) => {
  let generated: TextIndex;
  let corpus: TextIndex;
  beforeAll(async () => {
    generated = await indexText(await rightToLeftPdf(), { engine, workers: 0 });
    corpus = await indexText(ARABIC_CID, { engine, workers: 0 });
  });

  it('finds Hebrew and Arabic words typed in reading order, on their line, and not reversed', () => {
    const lines: Record<string, number> = { שלום: 50, עולם: 50, مرحبا: 100, بالعالم: 100, תודה: 150, רבה: 150 };
    for (const [word, top] of Object.entries(lines)) {
      const found = findText(generated, word);
      expect(found, word).toHaveLength(1);
      expect(found[0]!.box.top + found[0]!.box.height / 2, word).toBeCloseTo(top - 14 * 0.3, -1);
      expect(findText(generated, reversed(word)), `${word} reversed`).toHaveLength(0);
    }
  });

  it('puts the first word of a line at its right end', () => {
    const [hello] = findText(generated, 'שלום');
    const [world] = findText(generated, 'עולם');
    expect(hello!.box.left).toBeGreaterThan(world!.box.left + world!.box.width);
    const [first] = findText(generated, 'مرحبا');
    const [second] = findText(generated, 'بالعالم');
    expect(first!.box.left).toBeGreaterThan(second!.box.left + second!.box.width);
  });

  it('reads presentation forms drawn glyph by glyph as the base letters in reading order (pdf.js corpus)', () => {
    for (const word of ['انواع', 'الخطوط', 'العربية']) expect(findText(corpus, word), word).toHaveLength(4);
    expect(corpus.text(1)!.text.startsWith('انواع الخطوط العربية')).toBe(true);
  });
});
