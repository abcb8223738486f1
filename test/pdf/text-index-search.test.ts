/**
 * searchText: the searches of a placement run where the text is extracted, in the index's worker
 * threads, and only the kept matches' boxes come back. They must find exactly what findText finds on the whole index
 * (same pages, order and boxes, the white-space-ignoring fallback, PageNumber restriction), whatever the document.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findText, indexText, searchText, type TextQuery } from '../../src/pdf/text-index/text-index.js';
import { generatePdf, type GenPage, type GenStyle } from '../../src/testing/generate-pdf.js';

const WORDS = ['sign', 'here', 'Sign', 'date', 'si gn', 'here:', '{{Signer1}}', 'x'];
const STYLES: GenStyle[] = ['plain', 'kerned', 'spaced', 'split-blocks'];

const pagesArb = fc.array(
  fc.array(fc.record({ words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }), style: fc.constantFrom(...STYLES) }), { minLength: 1, maxLength: 4 }),
  { minLength: 1, maxLength: 3 },
);
const queriesArb = fc.array(
  fc.record({
    needle: fc.oneof(fc.constantFrom(...WORDS), fc.constantFrom('sign here', 'gn he', 'signhere', '  sign\n', '', 'n')),
    pageNumber: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    keep: fc.integer({ min: 0, max: 5 }),
  }),
  { minLength: 1, maxLength: 5 },
);

async function pdfOf(pages: { words: string[]; style: GenStyle }[][]): Promise<Uint8Array> {
  const gen: GenPage[] = pages.map((lines) => ({
    width: 595,
    height: 842,
    rotation: 0,
    texts: lines.map((line, i) => ({ anchor: line.words.join(' '), left: 60, baseline: 100 + i * 40, size: 12, font: 'Helvetica' as const, style: line.style })),
  }));
  return (await generatePdf(gen)).bytes;
}

describe('searchText', () => {
  it('finds what findText finds on the full index: same pages, order and boxes; keeps the first `keep`, counts all', async () => {
    await fc.assert(
      fc.asyncProperty(pagesArb, queriesArb, async (pages, rawQueries) => {
        const pdf = await pdfOf(pages);
        const queries: TextQuery[] = rawQueries.map((q) => (q.pageNumber === undefined ? { needle: q.needle, keep: q.keep } : q));
        const index = await indexText(pdf, { workers: 0 });
        const search = await searchText(pdf, queries, { workers: 2 });
        expect(search.pages).toEqual(index.pages);
        queries.forEach((query, i) => {
          const pageNumber = query.pageNumber !== undefined && query.pageNumber <= index.pageCount ? query.pageNumber : undefined;
          const expected = query.pageNumber !== undefined && pageNumber === undefined ? [] : findText(index, query.needle, { pageNumber });
          const found = search.found(i);
          expect(found.total).toBe(expected.length);
          expect([...found]).toEqual(expected.slice(0, query.keep).map((m) => ({ pageNumber: m.pageNumber, box: m.box })));
        });
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('searches in the calling thread too (workers: 0), with the same result', async () => {
    const pdf = await pdfOf([[{ words: ['sign', 'here'], style: 'plain' }], [{ words: ['si gn', 'here'], style: 'spaced' }]]);
    const queries: TextQuery[] = [{ needle: 'sign here', keep: 10 }, { needle: 'here', pageNumber: 2, keep: 1 }];
    const inThread = await searchText(pdf, queries, { workers: 0 });
    const inWorkers = await searchText(pdf, queries);
    expect([...inThread.found(0)]).toEqual([...inWorkers.found(0)]);
    expect(inThread.found(0).total).toBe(1);
    expect([...inThread.found(1)]).toEqual([...inWorkers.found(1)]);
    expect(inThread.found(1)[0]?.pageNumber).toBe(2);
  });
});
