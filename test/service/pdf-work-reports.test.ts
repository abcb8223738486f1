/**
 * What the PDF process pool reports for the service's metrics (src/service/pdf-jobs/pdf-work.ts `observePdfJobs`): each job
 * once, with its kind, how it ended (done, refused by the document's own error, stopped past its time budget) and its
 * wait and run times; the pool's state is back to no busy process afterwards; an observer that stopped hears nothing.
 */
import { describe, expect, it } from 'vitest';
import { observePdfJobs, pdfPoolState, runPdfJob, type PdfJobReport } from '../../src/service/pdf-jobs/pdf-work.js';
import { makePdf } from '../helpers/service-harness.js';

describe('PDF job reports', () => {
  it('reports each job with its kind, outcome, refusing limit and times', async () => {
    const reports: PdfJobReport[] = [];
    const stop = observePdfJobs((report) => reports.push(report));
    const pdf = await makePdf([['One']]);
    await runPdfJob({ kind: 'open', bytes: pdf, normalizeMs: 30_000 });
    await runPdfJob({ kind: 'open', bytes: new TextEncoder().encode('hello'), normalizeMs: 30_000 }).catch(() => undefined);
    const big = await makePdf(Array.from({ length: 3000 }, (_, i) => [`Page ${i + 1}`]));
    await runPdfJob({ kind: 'open', bytes: big, normalizeMs: 30_000 }, { maxHeapMb: 256, baseMs: 0.001, perPageMs: 0 }).catch(() => undefined);
    stop();
    await runPdfJob({ kind: 'facts', bytes: pdf });

    expect(reports.map(({ kind, outcome, limit }) => ({ kind, outcome, limit }))).toEqual([
      { kind: 'open', outcome: 'ok', limit: undefined },
      { kind: 'open', outcome: 'rejected', limit: undefined },
      { kind: 'open', outcome: 'too_complex', limit: 'time' },
    ]);
    for (const report of reports) {
      expect(report.waitMs).toBeGreaterThanOrEqual(0);
      expect(report.runMs).toBeGreaterThan(0);
    }
    const state = pdfPoolState();
    expect(state.busy).toBe(0);
    expect(state.maxBusy).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
