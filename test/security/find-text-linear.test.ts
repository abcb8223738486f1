/**
 * A 4.5 KB PDF of dense text searched for `the` froze the service for 77 s, because every match
 * decoded its page's boxes from the start (quadratic in the matches of a page). Search is now linear: each match
 * decodes from the nearest box checkpoint (test/pdf/text-index-boxes.test.ts counts the bytes read). This test runs the
 * original attack end to end and checks every match and its box; before the fix it did not finish in the test's time.
 */
import { PDFDocument, PDFName, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import { placeFieldsFromMetadata } from '../../src/pdf/place-fields-from-metadata.js';
import { findText, indexText } from '../../src/pdf/text-index/text-index.js';

const PAGES = 8;
const LINES = 160;
const WORDS_PER_LINE = 80;
const SIZE = 4;
/** Helvetica advance of "the " in 1/1000 em: t 278, h 556, e 556, space 278. */
const THE_WIDTH = ((278 + 556 + 556) * SIZE) / 1000;
const STEP = ((278 + 556 + 556 + 278) * SIZE) / 1000;

/** Every page draws the same small content stream: 160 lines of 80 × "the", 102,400 matches in all. */
async function denseThe(): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = doc.embedStandardFont(StandardFonts.Helvetica).ref;
  const line = `(${Array.from({ length: WORDS_PER_LINE }, () => 'the').join(' ')}) '\n`;
  const content = `BT /F0 ${SIZE} Tf 5 TL 10 830 Td\n${line.repeat(LINES)}ET`;
  const stream = doc.context.register(doc.context.flateStream(content));
  const resources = doc.context.obj({ Font: { F0: font } });
  for (let p = 0; p < PAGES; p++) {
    const page = doc.addPage([595, 842]);
    page.node.set(PDFName.of('Resources'), resources);
    page.node.set(PDFName.of('Contents'), stream);
  }
  return doc.save({ useObjectStreams: true });
}

describe('findText on dense text', () => {
  it('finds all 102,400 matches of "the" with their exact boxes, in page and line order', async () => {
    const pdf = await denseThe();
    expect(pdf.length).toBeLessThan(4.5 * 1024);
    const index = await indexText(pdf);
    const matches = findText(index, 'the');
    expect(matches).toHaveLength(PAGES * LINES * WORDS_PER_LINE);
    // The last word of the last line of the last page: its box is where Helvetica puts it.
    const last = matches[matches.length - 1]!;
    expect(last.pageNumber).toBe(PAGES);
    expect(last.box.left).toBeCloseTo(10 + (WORDS_PER_LINE - 1) * STEP, 0);
    expect(last.box.width).toBeCloseTo(THE_WIDTH, 0);
    expect(last.box.top).toBeCloseTo(842 - (830 - LINES * 5) - 0.8 * SIZE, 0);
    for (let i = 1; i < WORDS_PER_LINE; i++) expect(matches[i]!.box.left).toBeGreaterThan(matches[i - 1]!.box.left);
  });

  it('resolves a Location that picks one of them (Occurence) through the placement facade', async () => {
    const pdf = await denseThe();
    const metadata = { FormSets: { f: { sig: { Type: 'Signature', Location: { Search: 'the', Occurence: 12_345, Width: 40, Height: 10 } } } } };
    const { placements } = await placeFieldsFromMetadata(pdf, metadata);
    expect(placements).toHaveLength(1);
    const perPage = LINES * WORDS_PER_LINE;
    expect(placements[0]!.pageNumber).toBe(Math.floor(12_344 / perPage) + 1);
  });

  it('refuses a Location without Occurence that would get a widget at each of the 102,400 matches, naming field and count', async () => {
    const pdf = await denseThe();
    const metadata = { FormSets: { f: { sig: { Type: 'Check', Location: { Search: 'the' } } } } };
    const refusal = await placeFieldsFromMetadata(pdf, metadata).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'LOCATION_TOO_MANY_MATCHES', origin: 'input' });
    expect((refusal as Error).message).toMatch(/^FormSets\.f\.sig\.Location: Search text "the" occurs 102400 times in the document.* at most 1000 /);
    // The cap is configurable: 10 refuses a Search restricted to page 1 (12,800 matches there).
    const onPage = { FormSets: { f: { sig: { Type: 'Check', Location: { Search: 'the', PageNumber: 1 } } } } };
    const small = await placeFieldsFromMetadata(pdf, onPage, { limits: { maxWidgetsPerLocation: 10 } }).catch((error: unknown) => error);
    expect((small as Error).message).toContain('occurs 12800 times on page 1');
    expect((small as Error).message).toContain('at most 10 ');
  });
});
