/**
 * Punctuation and digits beside right-to-left words are found where the bidirectional algorithm puts them in reading
 * order (bidi-neutrals.ts), as poppler's pdftotext prints them: a question mark or a number a PDF draws left of a
 * Hebrew word ends that word, punctuation between two Hebrew words stays between them; Latin lines are left alone.
 */
import fontkit from '@pdf-lib/fontkit';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { findText, indexText, TEXT_ENGINES, type TextIndex } from '../../src/pdf/text-index/text-index.js';

const FONT = readFileSync(join(import.meta.dirname, '../../assets/fonts/DejaVuSans.ttf'));

/** Lines drawn in visual order, one glyph at a time from left to right, as a PDF of right-to-left text draws them. */
const VISUAL_LINES = ['?םלוכ םולש', '11:דבוע', 'םלוע ,םולש', '.ארד׳ע', 'Name: ok'];

async function visualPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(FONT, { subset: true });
  const page = doc.addPage([400, 400]);
  VISUAL_LINES.forEach((line, n) => {
    let x = 40;
    for (const ch of line) {
      if (ch !== ' ') page.drawText(ch, { x, y: 350 - n * 40, size: 14, font });
      x += font.widthOfTextAtSize(ch, 14);
    }
  });
  return doc.save();
}

describe.each(TEXT_ENGINES)('punctuation and digits beside right-to-left words, %s engine', (engine) => {
  let index: TextIndex;
  beforeAll(async () => {
    index = await indexText(await visualPdf(), { engine, workers: 0 });
  });

  it('a question mark or a number drawn left of a word at the start of its line ends it in reading order', () => {
    const text = index.text(1)!.text;
    expect(text).toContain('שלום כולם?');
    expect(text).toContain('עובד11:');
    expect(findText(index, 'כולם?')).toHaveLength(1);
    expect(findText(index, 'עובד11:')).toHaveLength(1);
  });

  it('punctuation between two right-to-left words stays between them', () => {
    expect(index.text(1)!.text).toContain('שלום, עולם');
    expect(findText(index, 'שלום, עולם')).toHaveLength(1);
  });

  it('a Latin line keeps its order', () => {
    expect(index.text(1)!.text).toContain('Name: ok');
  });
});
