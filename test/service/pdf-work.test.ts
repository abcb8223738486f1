/**
 * The service's pdf-lib steps in child processes (src/service/pdf-jobs/pdf-work.ts): the same answers (the facts of the PDF for
 * resolvePlacements among them) and typed errors as the library gives in the calling thread, and PDF_TOO_COMPLEX past
 * the time budget (scaled by the page count), the heap cap or the resident-memory cap without losing the pool or the
 * calling process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PdfParseError, ValidationError } from '../../src/errors.js';
import { documentFacts } from '../../src/pdf/document-facts.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import { normalizePdf } from '../../src/pdf/normalize-pdf.js';
import { placeFields } from '../../src/pdf/place-fields.js';
import { resolvePlacements } from '../../src/pdf/resolve-placements.js';
import { runPdfJob } from '../../src/service/pdf-jobs/pdf-work.js';
import { makePdf } from '../helpers/service-harness.js';
import { manyObjectsPdf } from '../pdf/many-objects-pdf.js';

describe('runPdfJob', () => {
  it('opens, checks and places as the library does in the calling thread', async () => {
    const pdf = await makePdf([['{{Signer1}}'], ['Page two']]);
    // With the facts resolvePlacements needs (past maxPages only the count: that upload is refused).
    const facts = documentFacts(await loadPdf(pdf));
    expect(await runPdfJob({ kind: 'open', bytes: pdf, normalizeMs: 30_000 })).toEqual({ pageCount: 2, facts });
    expect(await runPdfJob({ kind: 'open', bytes: pdf, normalizeMs: 30_000, maxPages: 1 })).toEqual({ pageCount: 2 });
    expect(await runPdfJob({ kind: 'facts', bytes: pdf })).toEqual(facts);
    const { placements, pages } = await resolvePlacements(pdf, {}, { signerIds: ['s1'] });
    expect(await runPdfJob({ kind: 'check', bytes: pdf, placements, pages }, undefined, 2)).toEqual({});
    const placed = await runPdfJob({ kind: 'place', bytes: pdf, placements, pages }, undefined, 2);
    expect(Buffer.from(placed.bytes).equals(Buffer.from((await placeFields(pdf, placements, { pages })).bytes))).toBe(true);
  });

  it('repairs a damaged upload in the PDF process’s own thread, bounded by the job’s budget rather than a nested thread’s', async () => {
    const broken = new Uint8Array(readFileSync(join(import.meta.dirname, '../../fixtures/corpus/broken-xref.pdf')));
    // In a one-shot repair thread a 1 ms budget cannot be met (starting the thread alone takes longer) ...
    await expect(normalizePdf(broken, { timeoutMs: 1 })).rejects.toMatchObject({ code: 'PDF_TOO_COMPLEX' });
    // ... the PDF process starts no such thread: the repair runs in its thread, under the job's own budget.
    const opened = await runPdfJob({ kind: 'open', bytes: broken, normalizeMs: 1 });
    expect(opened.normalization?.reason).toBe('damaged-xref');
    expect(opened.bytes).toBeDefined();
  });

  it('gives back the typed errors of the library (code, issues, origin)', async () => {
    const notPdf = await runPdfJob({ kind: 'open', bytes: new TextEncoder().encode('hello'), normalizeMs: 30_000 }).catch((e: unknown) => e);
    expect(notPdf).toBeInstanceOf(PdfParseError);
    expect(notPdf).toMatchObject({ code: 'PDF_NOT_A_PDF', origin: 'input' });
    const pdf = await makePdf([['One']]);
    const { placements, pages } = await resolvePlacements(pdf, {}, { signerIds: ['s1'] });
    const offPage = placements.map((p) => ({ ...p, pageNumber: 3 }));
    const invalid = await runPdfJob({ kind: 'check', bytes: pdf, placements: offPage, pages }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ code: 'INVALID_PLACEMENT', origin: 'input' });
    expect((invalid as ValidationError).issues[0]).toContain('pageNumber 3 is not a page of this 1-page document');
  });

  it('refuses a job past its budget with PDF_TOO_COMPLEX, the budget growing with the page count; the next job runs', async () => {
    const pdf = await makePdf([['One']]);
    // A budget no job can meet (1 ms for opening 3,000 pages, ~100 ms of work; a 1-page document can be opened by a
    // warm thread within it): the thread is ended and the refusal names the budget.
    const big = await makePdf(Array.from({ length: 3000 }, (_, i) => [`Page ${i + 1}`]));
    const late = await runPdfJob({ kind: 'open', bytes: big, normalizeMs: 30_000 }, { maxHeapMb: 256, baseMs: 0.001, perPageMs: 0 }).catch((e: unknown) => e);
    expect(late).toMatchObject({ code: 'PDF_TOO_COMPLEX', origin: 'input' });
    expect((late as Error).message).toMatch(/^The PDF is too complex to process \(processing it took more than 0 s\)/);
    // The same tiny base with 10 s a page: one page is enough time.
    expect(await runPdfJob({ kind: 'open', bytes: pdf, normalizeMs: 30_000 }, { maxHeapMb: 256, baseMs: 0.001, perPageMs: 10_000 }, 1)).toMatchObject({ pageCount: 1 });
  });

  it('refuses a document whose parse runs the process out of heap, and the calling process and the pool go on', async () => {
    // 300,000 tiny arrays in one object stream: within the object limit, ~150 MB of pdf-lib objects.
    const heavy = manyObjectsPdf({ perStream: 300_000, nesting: 1 });
    const refused = await runPdfJob({ kind: 'open', bytes: heavy, normalizeMs: 30_000 }, { maxHeapMb: 64, baseMs: 120_000, perPageMs: 0 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PdfParseError);
    expect(refused).toMatchObject({ code: 'PDF_TOO_COMPLEX', origin: 'input' });
    expect((refused as Error).message).toMatch(/^The PDF is too complex to process \(it needs more than 64 MB of memory\)/);
    expect(await runPdfJob({ kind: 'open', bytes: await makePdf([['One']]), normalizeMs: 30_000 }, { maxHeapMb: 64, baseMs: 120_000, perPageMs: 0 })).toMatchObject({ pageCount: 1 });
  });

  it('refuses a job whose process passes the resident-memory cap', async () => {
    const heavy = manyObjectsPdf({ perStream: 300_000, nesting: 1 });
    const refused = await runPdfJob({ kind: 'open', bytes: heavy, normalizeMs: 30_000 }, { maxHeapMb: 2048, maxRssMb: 200, baseMs: 120_000, perPageMs: 0 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'PDF_TOO_COMPLEX', origin: 'input' });
    expect((refused as Error).message).toMatch(/^The PDF is too complex to process \(it needs more than 200 MB of memory\)/);
  });
});
