/**
 * A Search that matches nearly every character (`e`) in a long document: its matches are bounded per document, not
 * per page, in the text engine's threads. A thread keeps the boxes of at most `keep` matches of a query in all its
 * pages (counting every match), so however many pages match, only a few thousand boxes reach the calling thread; the
 * first `keep` matches and the total stay what a full search finds. A Location without Occurence is refused with the
 * count; with Occurence it gets that match.
 */
import { describe, expect, it } from 'vitest';
import { PDFDocument, PDFName, StandardFonts } from '../../src/pdf/pdf-lib.js';
import type { PageGeometry } from '../../src/pdf/page-geometry.js';
import { placeFieldsFromMetadata } from '../../src/pdf/place-fields-from-metadata.js';
import type { ExtractedText } from '../../src/pdf/text-index/builder.js';
import { findText, indexText, searchText, TEXT_ENGINES } from '../../src/pdf/text-index/text-index.js';
import { extractPdfiumInWorker } from '../../src/pdf/text-index/pdfium-host.js';
import { resolveIndexLimits } from '../../src/pdf/text-index/limits.js';
import type { PageFound, TextQuery } from '../../src/pdf/text-index/search.js';

const PAGES = 120;
const LINES = 100;
const WORDS_PER_LINE = 100;
const PER_PAGE = LINES * WORDS_PER_LINE;
const TOTAL = PAGES * PER_PAGE;
const KEEP = 1001;

/** Every page: 100 lines of 100 × "e" (10,000 matches of `e` per page, 1.2 million in all), in a few KB. */
async function denseE(): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = doc.embedStandardFont(StandardFonts.Helvetica).ref;
  const line = `(${Array.from({ length: WORDS_PER_LINE }, () => 'e').join(' ')}) '\n`;
  const content = `BT /F0 4 Tf 5 TL 10 830 Td\n${line.repeat(LINES)}ET`;
  const stream = doc.context.register(doc.context.flateStream(content));
  const resources = doc.context.obj({ Font: { F0: font } });
  for (let p = 0; p < PAGES; p++) {
    const page = doc.addPage([595, 842]);
    page.node.set(PDFName.of('Resources'), resources);
    page.node.set(PDFName.of('Contents'), stream);
  }
  return doc.save({ useObjectStreams: true });
}

describe('the matches of one Search are bounded per document', () => {
  it('sends at most `keep` boxes per engine thread to the calling thread, counting every match', async () => {
    const pdf = await denseE();
    const queries: TextQuery[] = [{ needle: 'e', keep: KEEP }];
    let boxes = 0;
    let counted = 0;
    const sink = {
      pageCount: 0,
      queries,
      keepTexts: false,
      texts: new Map<number, ExtractedText>(),
      geometry: (_geo: PageGeometry) => undefined,
      text: () => undefined,
      foundInWorker: (found: readonly PageFound[]) => {
        for (const f of found) {
          boxes += f.boxes.length + f.compactBoxes.length;
          counted += f.count;
        }
      },
      needsPdfjs: () => undefined,
      readPoorly: () => undefined,
    };
    const threads = 2;
    await extractPdfiumInWorker(pdf, undefined, resolveIndexLimits(undefined), sink, undefined, threads);
    expect(counted).toBe(TOTAL);
    // Per page it was up to `keep` boxes, normal and white space ignored: 240,240 here, millions in a long book.
    expect(boxes).toBeLessThanOrEqual(threads * KEEP);
  }, 120_000);

  it.each(TEXT_ENGINES)('%s: the first matches and the total are those of a full search', async (engine) => {
    const pdf = await denseE();
    const search = await searchText(pdf, [{ needle: 'e', keep: KEEP }, { needle: 'e', keep: PER_PAGE + 5 }], { engine });
    const first = search.found(0);
    expect(first.total).toBe(TOTAL);
    expect(first).toHaveLength(KEEP);
    const further = search.found(1);
    expect(further).toHaveLength(PER_PAGE + 5);
    // Match PER_PAGE + 5 is the fifth on page 2, where a full index of the first two pages puts it.
    const index = await indexText(pdf, { pages: [1, 2], engine });
    const full = [...findText(index, 'e', { pageNumber: 1 }), ...findText(index, 'e', { pageNumber: 2 })];
    expect(further[PER_PAGE + 4]).toEqual({ pageNumber: 2, box: full[PER_PAGE + 4]!.box });
    expect(first[KEEP - 1]).toEqual({ pageNumber: 1, box: full[KEEP - 1]!.box });
  }, 120_000);

  it('refuses a Location without Occurence naming the count, and places one with Occurence', async () => {
    const pdf = await denseE();
    const refusal = await placeFieldsFromMetadata(pdf, { FormSets: { f: { x: { Type: 'Check', Location: { Search: 'e' } } } } }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'LOCATION_TOO_MANY_MATCHES', origin: 'input' });
    expect((refusal as Error).message).toContain(`occurs ${TOTAL} times in the document`);
    const { placements } = await placeFieldsFromMetadata(pdf, { FormSets: { f: { x: { Type: 'Check', Location: { Search: 'e', Occurence: 3 * PER_PAGE + 1 } } } } });
    expect(placements).toMatchObject([{ pageNumber: 4 }]);
  }, 120_000);
});
