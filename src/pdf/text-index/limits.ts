/**
 * Bounded work per document for the text index: a page-count limit, a heap cap for the
 * worker that retries what the small worker could not hold, a time budget per page and one for the whole document
 * (scaled by its pages). A document past any of them is refused with `PDF_TOO_COMPLEX` naming the page, and the
 * threads working on it are ended, so the process that asked keeps serving with its memory back where it was.
 */
import { PdfParseError } from '../../errors.js';

/** Limits of one text extraction; every field has a default (see {@link DEFAULT_INDEX_LIMITS}). */
export interface IndexLimits {
  /** Most pages a document may have. */
  readonly maxPages: number;
  /** Heap (MB) of the worker that redoes a range the small worker ran out of memory on; beyond it the page is refused. */
  readonly maxHeapMb: number;
  /**
   * Resident memory (MB) of the whole process past which the extraction in progress is stopped. The heap cap does not
   * cover memory outside the JavaScript heap, where pdf.js keeps inflated streams (a 1 MB flate bomb inflates to 1 GB).
   */
  readonly maxRssMb: number;
  /** Longest a single page (or opening the document) may take, in ms. */
  readonly pageMs: number;
  /** The whole document may take `baseMs + perPageMs × pages`. */
  readonly baseMs: number;
  readonly perPageMs: number;
  /**
   * Most widgets one Location without Occurence may get, one per match of its Search (locate.ts): past it the
   * placement is refused naming the field and the count, before any box of the matches is decoded past the cap.
   */
  readonly maxWidgetsPerLocation: number;
  /**
   * Most widgets one document may get in all (every widget of every field: the metadata's, the default signature
   * fields, a fillable PDF's own): past it the document is refused naming the count (resolve-placements.ts).
   */
  readonly maxWidgetsPerDocument: number;
  /**
   * Most Signature fields one signer signs in one document; each is a signature of its own, written over the whole
   * document, so their cost grows faster than their number.
   */
  readonly maxSignaturesPerSigner: number;
}

/** Defaults: generous for real documents (the 5,000-page bench book takes ~1 ms a page, a heavy page well under 1 s). */
export const DEFAULT_INDEX_LIMITS: IndexLimits = {
  maxPages: 20_000,
  maxHeapMb: 1024,
  maxRssMb: 3072,
  pageMs: 15_000,
  baseMs: 20_000,
  perPageMs: 100,
  maxWidgetsPerLocation: 1000,
  maxWidgetsPerDocument: 2000,
  maxSignaturesPerSigner: 20,
};

let processDefaults: IndexLimits = DEFAULT_INDEX_LIMITS;

/**
 * Sets the limits that extractions without their own `limits` option use, for the whole process (the service's
 * composition root calls it with its configuration). Fields left out keep {@link DEFAULT_INDEX_LIMITS}.
 */
export function setDefaultIndexLimits(limits: Partial<IndexLimits>): void {
  processDefaults = resolveIndexLimits(limits, DEFAULT_INDEX_LIMITS);
}

/** The limits of one extraction: `limits` over the process defaults, each checked to be a positive number. */
export function resolveIndexLimits(limits: Partial<IndexLimits> | undefined, base: IndexLimits = processDefaults): IndexLimits {
  const merged = { ...base, ...stripUndefined(limits ?? {}) };
  for (const [key, value] of Object.entries(merged)) {
    if (typeof value !== 'number' || !(value > 0)) throw new RangeError(`text index limit ${key} must be a positive number, got ${String(value)}`);
  }
  return merged;
}

function stripUndefined(limits: Partial<IndexLimits>): Partial<IndexLimits> {
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) as Partial<IndexLimits>;
}

/** A document that needs more than the limits allow (code `PDF_TOO_COMPLEX`); `page` when one page is to blame. */
export class PdfTooComplexError extends PdfParseError {
  constructor(
    readonly page: number | undefined,
    readonly why: string,
    /** The drawing cycle that is to blame, when one was found (drawing-cycles.ts). */
    readonly cycle?: readonly string[],
  ) {
    const where = page === undefined ? 'The PDF' : `Page ${page} of the PDF`;
    super('PDF_TOO_COMPLEX', `${where} is too complex to read its text (${why}): simplify the document, e.g. print it to a new PDF, and upload it again.`);
  }
}

/** The refusal of a document that needs more than the limits allow; `page` undefined for the document as a whole. */
export function tooComplex(page: number | undefined, why: string, cycle?: readonly string[]): PdfTooComplexError {
  return new PdfTooComplexError(page, why, cycle);
}

/** The refusal of a document with more pages than allowed. */
export function tooManyPages(pageCount: number, maxPages: number): PdfParseError {
  return new PdfParseError(
    'PDF_TOO_COMPLEX',
    `The PDF has ${pageCount} pages, more than the ${maxPages} allowed: split it into smaller documents.`,
  );
}

/** What a watchdog knows of one thread: the page it works on and since when. */
interface Progress {
  page: number | undefined;
  since: number;
}

/**
 * Watches the progress of the threads of one extraction and reports the first budget that is exceeded: a thread that
 * spent more than `pageMs` on one page (or on opening the document), or the document past its total budget.
 */
export class ExtractionWatchdog<K> {
  private readonly progress = new Map<K, Progress>();
  /** Pages already reported to `onSlowPage`. */
  private readonly slowSeen = new Set<number>();
  private onSlowPage: ((page: number) => void) | undefined;
  private slowPageMs = Infinity;
  /** When the document was opened (its page count known): the total budget runs from then. */
  private started: number | undefined;
  private totalMs: number;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly limits: IndexLimits,
    private readonly now: () => number,
    onExceeded: (error: PdfParseError) => void,
    private readonly rssBytes: () => number = () => process.memoryUsage.rss(),
    checkEveryMs = 50,
  ) {
    this.totalMs = limits.baseMs;
    let lastTick = now();
    let skipped = false;
    this.timer = setInterval(() => {
      // A tick this late means this thread was busy (placeFieldsFromMetadata parses the document meanwhile): the
      // threads' messages of that time are still queued behind it, so their progress is judged at the next tick.
      // Never two ticks in a row, so that a loop that is always late still gets its verdicts.
      const tick = now();
      const late = tick - lastTick > 4 * checkEveryMs;
      lastTick = tick;
      if (late && !skipped) {
        skipped = true;
        return;
      }
      skipped = false;
      this.reportSlowPages();
      const error = this.check();
      if (error) {
        this.stop();
        onExceeded(error);
      }
    }, checkEveryMs);
    this.timer.unref();
  }

  /**
   * The document is open and has this many pages to extract: its total budget starts now (threads starting up
   * under load are not the document's fault; opening it has the per-page budget).
   */
  pages(count: number): void {
    this.started = this.now();
    this.totalMs = this.limits.baseMs + this.limits.perPageMs * count;
  }

  /** `thread` now works on `page` (undefined: opening the document). */
  working(thread: K, page: number | undefined): void {
    this.progress.set(thread, { page, since: this.now() });
  }

  /** `thread` is idle (no budget runs for it). */
  idle(thread: K): void {
    this.progress.delete(thread);
  }

  /**
   * Calls `listener` once for each page a thread has worked on for more than `afterMs` (at most `maxPages` pages), so
   * that the cause of a slow page can be looked for while its budget still runs (a drawing cycle, drawing-cycles.ts).
   */
  watchSlowPages(afterMs: number, listener: (page: number) => void): void {
    this.slowPageMs = afterMs;
    this.onSlowPage = listener;
  }

  /** Reports the pages that have just become slow. */
  reportSlowPages(): void {
    if (!this.onSlowPage) return;
    const now = this.now();
    for (const { page, since } of this.progress.values()) {
      if (page === undefined || this.slowSeen.has(page) || now - since <= this.slowPageMs) continue;
      this.slowSeen.add(page);
      this.onSlowPage(page);
    }
  }

  /** The page `thread` is on, if any. */
  pageOf(thread: K): number | undefined {
    return this.progress.get(thread)?.page;
  }

  /** The exceeded budget, if any. */
  check(): PdfParseError | undefined {
    const now = this.now();
    for (const { page, since } of this.progress.values()) {
      if (now - since > this.limits.pageMs) {
        const what = page === undefined ? 'opening it' : 'it';
        // The usual cause: a form XObject, pattern or Type3 glyph that draws itself, which pdf.js follows forever.
        return tooComplex(page, `${what} took more than ${seconds(this.limits.pageMs)}; content that draws itself never ends`);
      }
    }
    if (this.started !== undefined && now - this.started > this.totalMs) return tooComplex(this.firstPending(), `the document took more than ${seconds(this.totalMs)} in all`);
    if (this.progress.size > 0 && this.rssBytes() > this.limits.maxRssMb * 1024 * 1024) {
      return tooComplex(this.firstPending(), `reading it took the process past ${this.limits.maxRssMb} MB of memory`);
    }
    return undefined;
  }

  /** The lowest page a thread is working on. */
  private firstPending(): number | undefined {
    const pending = [...this.progress.values()].map((p) => p.page).filter((p): p is number => p !== undefined);
    return pending.length > 0 ? Math.min(...pending) : undefined;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
