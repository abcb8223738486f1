/**
 * Runs the PDFium text engine (text-index/pdfium-extract.ts) for the text index: in the calling thread (`workers: 0`), or in a
 * worker thread that the index's budgets (text-index/limits.ts: time per page, per document, process memory) can end,
 * as PDFium's synchronous work cannot be interrupted otherwise. One thread reads a small document, two a larger one
 * (taking turns page by page); a finished thread waits a few idle seconds for the next document, because loading
 * PDFium costs ~150 ms.
 */
import type { Worker } from 'node:worker_threads';
import { ParaphError, PdfParseError } from '../../errors.js';
import { startWorkerThread } from '../../worker-entry.js';
import type { PageGeometry } from '../page-geometry.js';
import { loadPdfium, type Pdfium } from '../pdfium.js';
import type { ExtractedText } from './builder.js';
import { ExtractionWatchdog, type IndexLimits, tooComplex, tooManyPages } from './limits.js';
import { extractPdfiumDocument } from './pdfium-extract.js';
import type { PageFound, TextQuery } from './search.js';

/** Where the extracted pages go (text-index/text-index.ts's collector). */
export interface PdfiumCollector {
  pageCount: number;
  readonly queries: readonly TextQuery[];
  readonly keepTexts: boolean;
  readonly texts: Map<number, ExtractedText>;
  geometry(geo: PageGeometry): void;
  /** A page's text extracted in this thread: searched and kept as the collector decides. */
  text(text: ExtractedText): void;
  /** The matches a worker found on its pages. */
  foundInWorker(found: readonly PageFound[]): void;
  /** A page PDFium cannot read as pdf.js does (forms nested too deep, no visible area): the caller reads it with pdf.js. */
  needsPdfjs(pageNumber: number): void;
  /** A page PDFium read poorly (text-index/pdfium-extract.ts, readsPoorly): the caller reads it with pdf.js, or keeps `text`. */
  readPoorly(text: ExtractedText): void;
}

let here: Promise<Pdfium> | undefined;

/** Extracts in the calling thread, which is blocked meanwhile (only the page count limit applies). */
export async function extractPdfiumInThread(
  pdf: Uint8Array,
  wanted: ReadonlySet<number> | undefined,
  limits: IndexLimits,
  sink: PdfiumCollector,
  signal: AbortSignal | undefined,
): Promise<void> {
  here ??= loadPdfium();
  const pdfium = await here;
  signal?.throwIfAborted();
  extractPdfiumDocument(
    pdfium,
    pdf,
    wanted,
    {
      opened: (pageCount) => {
        if (pageCount > limits.maxPages) throw tooManyPages(pageCount, limits.maxPages);
        sink.pageCount = pageCount;
        return true;
      },
      page: (geo, text, needsPdfjs, readPoorly) => {
        sink.geometry(geo);
        if (needsPdfjs) sink.needsPdfjs(geo.pageNumber);
        else if (text && readPoorly) sink.readPoorly(text);
        else if (text) sink.text(text);
      },
    },
    signal,
  );
  signal?.throwIfAborted();
}

type WorkerMessage = { job?: number } & (
  | { type: 'ready' }
  | { type: 'opened'; numPages: number }
  | { type: 'page'; geo: PageGeometry; text?: ExtractedText; found?: PageFound[]; needsPdfjs?: true; readPoorly?: true }
  | { type: 'done' }
  | { type: 'error'; failure: { code: string; message: string; internal: boolean } }
);

interface PdfiumWorker {
  worker: Worker;
  ready: boolean;
  released: number;
}

const idle: PdfiumWorker[] = [];
const IDLE_MS = 10_000;
const MAX_IDLE = 2;
let lastJob = 0;


function spawn(maxHeapMb: number): PdfiumWorker {
  const worker = startWorkerThread(import.meta.url, './pdfium-worker.js', { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });
  return { worker, ready: false, released: 0 };
}

function release(pooled: PdfiumWorker): void {
  if (idle.length >= MAX_IDLE) {
    void pooled.worker.terminate();
    return;
  }
  pooled.worker.unref();
  idle.push(pooled);
  const generation = ++pooled.released;
  setTimeout(() => {
    const at = idle.indexOf(pooled);
    if (pooled.released === generation && at !== -1) {
      idle.splice(at, 1);
      void pooled.worker.terminate();
    }
  }, IDLE_MS).unref();
}

/** Files from this size on are read by two threads taking turns (a page each), when `threads` allows. */
const SHARED_FROM_BYTES = 64 * 1024;

/**
 * Extracts in worker threads (one, or up to `threads` for a larger file, taking turns page by page) under the time
 * and memory budgets of `limits`.
 */
export function extractPdfiumInWorker(
  pdf: Uint8Array,
  wanted: ReadonlySet<number> | undefined,
  limits: IndexLimits,
  sink: PdfiumCollector,
  signal: AbortSignal | undefined,
  threads = 1,
): Promise<void> {
  // Aborted while the engine's module was being loaded: no thread is taken.
  if (signal?.aborted) return Promise.reject(signal.reason);
  const textPages = wanted ? [...wanted].sort((a, b) => a - b) : null;
  const job = ++lastJob;
  const count = pdf.length >= SHARED_FROM_BYTES && (!textPages || textPages.length > 1) ? Math.max(1, Math.min(2, threads)) : 1;
  const pool: PdfiumWorker[] = [];
  for (let i = 0; i < count; i++) pool.push(idle.pop() ?? spawn(limits.maxHeapMb));
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let opened = false;
    let running = count;
    const watchdog = new ExtractionWatchdog<PdfiumWorker>(limits, () => performance.now(), (error) => finish(error, false));
    const detach: Array<() => void> = [];
    const finish = (error: unknown, reusable: boolean): void => {
      if (settled) return;
      settled = true;
      watchdog.stop();
      signal?.removeEventListener('abort', onAbort);
      for (const off of detach) off();
      for (const pooled of pool) {
        if (reusable) release(pooled);
        else void pooled.worker.terminate();
      }
      if (error === undefined) resolve();
      else reject(error);
    };
    const onAbort = (): void => finish(signal?.reason ?? new Error('aborted'), false);
    pool.forEach((pooled, index) => {
      const { worker } = pooled;
      worker.ref();
      const onMessage = (message: WorkerMessage): void => {
        if (message.type === 'ready') {
          pooled.ready = true;
          if (!settled) watchdog.working(pooled, undefined);
          return;
        }
        if (settled || message.job !== job) return;
        switch (message.type) {
          case 'opened': {
            if (message.numPages > limits.maxPages) {
              finish(tooManyPages(message.numPages, limits.maxPages), false);
              return;
            }
            if (!opened) {
              opened = true;
              sink.pageCount = message.numPages;
              watchdog.pages(textPages ? textPages.filter((n) => n <= message.numPages).length : message.numPages);
            }
            watchdog.working(pooled, 1 + index);
            break;
          }
          case 'page':
            sink.geometry(message.geo);
            if (message.needsPdfjs) sink.needsPdfjs(message.geo.pageNumber);
            if (message.found) sink.foundInWorker(message.found);
            if (message.text && message.readPoorly) sink.readPoorly(message.text);
            else if (message.text && sink.keepTexts) sink.texts.set(message.text.pageNumber, message.text);
            watchdog.working(pooled, message.geo.pageNumber + count);
            break;
          case 'done':
            watchdog.idle(pooled);
            if (--running === 0) finish(undefined, true);
            break;
          case 'error': {
            const { failure } = message;
            finish(
              failure.internal ? new ParaphError(failure.code, failure.message, { origin: 'internal' }) : new PdfParseError(failure.code, failure.message),
              false,
            );
            break;
          }
        }
      };
      const onError = (value: unknown): void => {
        const error = value instanceof Error ? value : new Error(String(value));
        if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
          finish(tooComplex(watchdog.pageOf(pooled), `it needs more than ${limits.maxHeapMb} MB of memory`), false);
          return;
        }
        finish(new ParaphError('TEXT_INDEX_FAILED', `The text index worker failed: ${error.message}`, { origin: 'internal', cause: error }), false);
      };
      const onExit = (code: unknown): void => {
        finish(new ParaphError('TEXT_INDEX_FAILED', `The text index worker stopped (exit code ${String(code)}).`, { origin: 'internal' }), false);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      detach.push(() => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      });
      if (pooled.ready) watchdog.working(pooled, undefined);
      const share = { of: count, index };
      worker.postMessage({ type: 'extract', bytes: pdf, job, textPages, queries: sink.queries, keepText: sink.keepTexts, maxPages: limits.maxPages, share });
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
