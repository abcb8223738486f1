/**
 * The text index behind Location `Search` (docs/design/locations.md#search): every page's geometry, and per page a
 * normalized string (runs of white space = one space) with an exact box per character in reader coordinates
 * (CropBox, /Rotate applied, origin top-left, y down, points). Extract once with {@link indexText}, then every
 * search is a string search with {@link findText}.
 *
 * Box of a character: along the text, the glyph's advance (character spacing excluded); across it, from 0.2 em
 * below the baseline to 0.8 em above it (em = the font size as drawn), whatever the font's own ascent and descent,
 * so the box height of text at size s is s; a Type3 font's glyphs instead span its FontBBox through its FontMatrix
 * (its glyph space is whatever that matrix makes it). Text drawn at an angle gets the axis-aligned box of its rotated box.
 *
 * Two engines extract: PDFium in WebAssembly by default (text-index/pdfium-host.ts), or pdf.js in worker
 * threads (text-index/pdfjs-worker.ts) over ranges of pages; either's threads are kept in a small pool between documents
 * (unref'd, ended after 10 idle seconds) because loading an engine costs 0.1–0.5 s.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { ParaphError, PdfParseError } from '../../errors.js';
import { startWorkerThread, type TsxThreadPrelude } from '../../worker-entry.js';
import type { PageGeometry, ReaderRect } from '../page-geometry.js';
import { checkDeclaredObjects } from '../declared-objects.js';
import { assertPdfBytes } from '../pdf-header.js';
import { BigramPostings, needleBits } from './bigrams.js';
import { TEXT_ENGINES, defaultTextEngine, type TextEngine } from './text-engine.js';
import { compactNeedle, mergeFound, normalizeSearchText, PageBoxes, SearchBudget, searchPage, withoutSpaces, type FoundMatches, type PageFound, type TextQuery } from './search.js';
import type { ExtractFailure, ExtractedText, ExtractSink } from './pdfjs-extract.js';
import { INDEX_BALANCE_MIN_PAGES, balancePageTree } from '../page-tree-balance.js';
import { findDrawingCycle } from '../drawing-cycles.js';
import { extractionReserveBytes, pdfJobAdmission } from '../memory-admission.js';
import { ExtractionWatchdog, type IndexLimits, PdfTooComplexError, resolveIndexLimits, tooComplex, tooManyPages } from './limits.js';

/** The extracted text of one page. */
export interface PageText {
  pageNumber: number;
  geometry: PageGeometry;
  /** The page's text in content order, white space runs (and line breaks) as single spaces, trimmed. */
  text: string;
  /** Reader box of `text[index]` (one per UTF-16 code unit); undefined for spaces and out-of-range indexes. */
  charBox(index: number): ReaderRect | undefined;
  /** Union of the boxes of `text[start..end)`, spaces ignored; undefined when the range holds no visible character. */
  rangeBox(start: number, end: number): ReaderRect | undefined;
}

/** Geometry of every page of a document and the text of the pages that were extracted. */
export interface TextIndex {
  pageCount: number;
  /** Geometry of every page, `pages[n - 1]` for page n, whether or not its text was extracted. */
  pages: readonly PageGeometry[];
  /** The text of page `pageNumber` (1-based); undefined when it was not extracted or does not exist. */
  text(pageNumber: number): PageText | undefined;
}

/** Options of {@link indexText}. */
export interface IndexTextOptions {
  /** Extract text only from these 1-based pages (geometry is always read for all); numbers past the end are ignored. */
  pages?: readonly number[];
  /**
   * Worker threads to use: 0 extracts in the calling thread (which then loads pdf.js and its global polyfills and
   * is blocked meanwhile); n ≥ 1 uses up to n threads, one per ~30 pages. Default: the machine's parallelism, at most 4.
   */
  workers?: number;
  /** Aborts the extraction; the promise rejects with the signal's reason and every worker is terminated. */
  signal?: AbortSignal;
  /**
   * Page count, memory and time limits (text-index/limits.ts; defaults: `setDefaultIndexLimits`). Memory and time are
   * enforced with worker threads only; `workers: 0` checks the page count.
   */
  limits?: Partial<IndexLimits>;
  /**
   * The text engine: `pdfium` (default, see `setDefaultTextEngine`: PDFium in WebAssembly, one or two worker
   * threads; a page whose forms nest deeper than PDFium reads is read with pdf.js) or `pdfjs`. Both give the same
   * per-page structure, boxes within 1 pt.
   */
  engine?: TextEngine;
  /**
   * Called once the text is being extracted in worker threads (never with `workers: 0`): the calling thread is idle
   * until the result comes, and may do other work meanwhile (placeFieldsFromMetadata opens the document then).
   */
  whileExtracting?: () => void;
}

export { TEXT_ENGINES, type TextEngine } from './text-engine.js';

/** One place where a search text was found. */
export interface TextMatch {
  pageNumber: number;
  /** Union of the matched characters' boxes, reader coordinates. */
  box: ReaderRect;
  /** The matched page text (after white space normalization). */
  text: string;
}

/** Options of {@link findText}. */
export interface FindTextOptions {
  /** Search only this 1-based page. */
  pageNumber?: number;
}

const PAGES_PER_WORKER = 30;
/**
 * Heap limits of a worker. pdf.js makes plenty of short-lived garbage, and V8 lets a heap grow as far as it may
 * before collecting: small limits keep the whole extraction of 5,000 pages under ~400 MB RSS. A worker that still
 * runs out (a page with huge images or content) is replaced by one with large limits that redoes its range.
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 160, maxYoungGenerationSizeMb: 12 };
/** Files from this size on start two workers at once (a worker takes a few hundred ms to start). */
const SPECULATIVE_SPAWN_BYTES = 512 * 1024;
/** Pages extracted in this thread before pdf.js's document is opened again (it keeps every loaded page). */
const PAGES_PER_OPEN = 400;
const CHUNK_PAGES = 25;

export { normalizeSearchText, type FoundMatch, type FoundMatches, type TextQuery } from './search.js';

class IndexedPage implements PageText {
  private compact: { text: string; map: Int32Array } | undefined;
  private readonly boxes: PageBoxes;

  constructor(
    readonly pageNumber: number,
    readonly geometry: PageGeometry,
    readonly text: string,
    boxes: Uint8Array,
  ) {
    this.boxes = new PageBoxes(text, boxes);
  }

  charBox(index: number): ReaderRect | undefined {
    return this.rangeBox(index, index + 1);
  }

  rangeBox(start: number, end: number): ReaderRect | undefined {
    return this.boxes.rangeBox(start, end);
  }

  /** The text without spaces, and for each of its characters the index in `text`; built on first use. */
  withoutSpaces(): { text: string; map: Int32Array } {
    this.compact ??= withoutSpaces(this.text);
    return this.compact;
  }
}

class Index implements TextIndex {
  constructor(
    readonly pages: readonly PageGeometry[],
    private readonly texts: ReadonlyMap<number, IndexedPage>,
    /** Bigram signatures of every page's text and of its text without spaces, by page (slot = page number − 1). */
    private readonly postings: BigramPostings,
    private readonly compactPostings: BigramPostings,
  ) {}

  /** The indexed pages, in page order, that may contain a needle with these bigram bits. */
  candidates(bits: Uint16Array, compact: boolean): IndexedPage[] {
    const slots = (compact ? this.compactPostings : this.postings).candidates(bits);
    return slots.map((slot) => this.texts.get(slot + 1) as IndexedPage);
  }

  get pageCount(): number {
    return this.pages.length;
  }

  /** Whether the text of every page was extracted. */
  get complete(): boolean {
    return this.texts.size === this.pages.length;
  }

  text(pageNumber: number): PageText | undefined {
    return this.texts.get(pageNumber);
  }
}

/**
 * Finds `needle` in the indexed text, in page order (then text order), as docs/design/locations.md#search defines:
 * case-sensitive, runs of white space in the needle and the text count as one space, never across pages,
 * non-overlapping matches. When that finds nothing in the pages searched, the needle is matched again with all white
 * space removed from both sides, so letter-spaced text (`{ { s i g n } }`) is found too. A blank needle matches
 * nothing. Pages whose bigram signature rules the needle out are skipped, so a search of thousands of pages scans only
 * a few.
 *
 * @throws ParaphError `TEXT_NOT_INDEXED` when a page to search was left out by `indexText`'s `pages` option.
 * @example
 * const index = await indexText(pdfBytes);
 * const [first] = findText(index, '{{Signer1}}'); // { pageNumber, box: { left, top, width, height }, text }
 */
export function findText(index: TextIndex, needle: string, options: FindTextOptions = {}): TextMatch[] {
  const pages = searchPages(index, options.pageNumber);
  const normalized = normalizeSearchText(needle);
  if (normalized === '') return [];
  // A whole-document search asks the document's bigram postings which pages may match, rather than every page.
  const filtered = options.pageNumber === undefined && index instanceof Index;
  const found: TextMatch[] = [];
  for (const page of filtered ? index.candidates(needleBits(normalized), false) : pages) {
    for (let at = page.text.indexOf(normalized); at !== -1; at = page.text.indexOf(normalized, at + normalized.length)) {
      pushMatch(found, page, at, at + normalized.length);
    }
  }
  if (found.length > 0) return found;
  const joined = compactNeedle(normalized);
  for (const page of filtered ? index.candidates(needleBits(joined), true) : pages) {
    const { text, map } = page.withoutSpaces();
    for (let at = text.indexOf(joined); at !== -1; at = text.indexOf(joined, at + joined.length)) {
      pushMatch(found, page, map[at]!, map[at + joined.length - 1]! + 1);
    }
  }
  return found;
}

function pushMatch(found: TextMatch[], page: IndexedPage, start: number, end: number): void {
  const box = page.rangeBox(start, end);
  if (box) found.push({ pageNumber: page.pageNumber, box, text: page.text.slice(start, end) });
}

/** The pages to search, after checking they were indexed; for a whole-document search of an Index, none. */
function searchPages(index: TextIndex, pageNumber: number | undefined): IndexedPage[] {
  if (pageNumber === undefined && index instanceof Index && index.complete) return [];
  const numbers =
    pageNumber === undefined ? Array.from({ length: index.pageCount }, (_, i) => i + 1) : [pageNumber];
  const pages: IndexedPage[] = [];
  for (const n of numbers) {
    if (!Number.isInteger(n) || n < 1 || n > index.pageCount) return [];
    const page = index.text(n);
    if (!(page instanceof IndexedPage)) {
      throw new ParaphError(
        'TEXT_NOT_INDEXED',
        `Page ${n} was not text-indexed: pass it in indexText's "pages" option before searching it.`,
        { origin: 'internal' },
      );
    }
    pages.push(page);
  }
  return pages;
}

/**
 * Extracts the geometry of every page and the text of every page (or of `options.pages`) of a PDF, with exact
 * per-character boxes. Runs the engine (PDFium unless `options.engine` or `setDefaultTextEngine` says pdf.js) in worker
 * threads unless `workers: 0`. Does not modify `pdf`.
 *
 * @throws PdfParseError `PDF_EMPTY`, `PDF_NOT_A_PDF`, `PDF_UNREADABLE`, `PDF_ENCRYPTED` or `PDF_NO_PAGES`;
 *   `PDF_TOO_COMPLEX` (naming the page) past a limit of `options.limits`.
 * @example
 * const index = await indexText(pdfBytes);
 * index.pages[0]; // { pageNumber: 1, width: 595.28, height: 841.89, rotation: 0, cropBox: {...} }
 * findText(index, '{{Signer1}}');
 */
export async function indexText(pdf: Uint8Array, options: IndexTextOptions = {}): Promise<TextIndex> {
  return (await extract(pdf, options, [], true)).build();
}

/** What {@link searchText} found: every page's geometry and the matches of each query. */
export interface TextSearch {
  pageCount: number;
  /** Geometry of every page, `pages[n - 1]` for page n. */
  pages: readonly PageGeometry[];
  /** The matches of `queries[query]` in page order (the first `keep`), with `total` counting all of them. */
  found(query: number): FoundMatches;
}

/**
 * Reads every page's geometry and finds each of `queries` (findText's semantics, docs/design/locations.md#search) where
 * the text is extracted: in the index's worker threads, within the extraction's time budget, so neither the search nor
 * the page texts reach the calling thread; only the kept matches' boxes do. With `workers: 0` in the calling thread.
 *
 * @throws as {@link indexText}.
 * @example
 * const search = await searchText(pdf, [{ needle: '{{Signer1}}', keep: 1 }]);
 * search.found(0)[0]; // { pageNumber, box }
 */
export async function searchText(pdf: Uint8Array, queries: readonly TextQuery[], options: IndexTextOptions = {}): Promise<TextSearch> {
  for (const q of queries) {
    if (!Number.isInteger(q.keep) || q.keep < 0) throw new RangeError(`searchText: keep must be a whole number ≥ 0, got ${String(q.keep)}`);
  }
  const collected = await extract(pdf, options, queries, false);
  const pages = collected.allGeometries();
  const found = collected.found;
  return { pageCount: pages.length, pages, found: (query) => mergeFound(found, query, queries[query]?.keep ?? 0) };
}

async function extract(pdf: Uint8Array, options: IndexTextOptions, queries: readonly TextQuery[], keepTexts: boolean): Promise<Collector> {
  const wanted = options.pages ? new Set(options.pages.filter((n) => Number.isInteger(n) && n >= 1)) : undefined;
  const maxWorkers = options.workers ?? Math.min(4, Math.max(1, availableParallelism()));
  if (!Number.isInteger(maxWorkers) || maxWorkers < 0) {
    throw new RangeError(`indexText: workers must be a whole number ≥ 0, got ${String(options.workers)}`);
  }
  options.signal?.throwIfAborted();
  // The one `%PDF-` check of the job: every engine and worker is reached only from here, after it.
  assertPdfBytes(pdf);
  checkDeclaredObjects(pdf);
  const limits = resolveIndexLimits(options.limits);
  const collected = new Collector(queries, keepTexts);
  const engine = options.engine ?? defaultTextEngine();
  if (!TEXT_ENGINES.includes(engine)) throw new RangeError(`indexText: engine must be one of ${TEXT_ENGINES.join(', ')}, got ${String(engine)}`);
  // Extractions in worker threads start when memory allows (memory-admission.ts), not only as many as come.
  const done = maxWorkers === 0 ? undefined : await pdfJobAdmission.admit(extractionReserveBytes(limits), options.signal);
  try {
    await extractWith(engine, pdf, wanted, maxWorkers, limits, collected, options);
  } finally {
    done?.();
  }
  return collected;
}

async function extractWith(
  engine: TextEngine,
  pdf: Uint8Array,
  wanted: ReadonlySet<number> | undefined,
  maxWorkers: number,
  limits: IndexLimits,
  collected: Collector,
  options: IndexTextOptions,
): Promise<void> {
  if (engine === 'pdfium') {
    const host = await import('./pdfium-host.js');
    if (maxWorkers === 0) await host.extractPdfiumInThread(pdf, wanted, limits, collected, options.signal);
    else await started(host.extractPdfiumInWorker(pdf, wanted, limits, collected, options.signal, maxWorkers), options);
    if (collected.pdfjsPages.size > 0) await rereadWithPdfjs(pdf, wanted, collected, maxWorkers, limits, options.signal);
    if (collected.poorTexts.size > 0) await rereadPoorPages(pdf, collected, maxWorkers, limits, options.signal);
    return;
  }
  if (maxWorkers === 0) await extractInThread(pdf, wanted, limits, collected, options.signal);
  else await started(extractInWorkers(pdf, wanted, maxWorkers, limits, collected, options.signal), options);
}

/** `extraction`, once `options.whileExtracting` has been told that it runs in worker threads. */
function started(extraction: Promise<void>, options: IndexTextOptions): Promise<void> {
  try {
    options.whileExtracting?.();
  } catch (error) {
    extraction.catch(() => undefined);
    throw error;
  }
  return extraction;
}

/**
 * Reads with pdf.js the pages PDFium could not read as pdf.js does (forms nested deeper than it follows, a visible area
 * it cannot tell), replacing their geometry, and their text and matches where wanted, in `collected`.
 */
async function rereadWithPdfjs(
  pdf: Uint8Array,
  wanted: ReadonlySet<number> | undefined,
  collected: Collector,
  maxWorkers: number,
  limits: IndexLimits,
  signal: AbortSignal | undefined,
): Promise<void> {
  const pages = collected.pdfjsPages;
  const textPages = new Set([...pages].filter((n) => !wanted || wanted.has(n)));
  const again = new Collector(collected.queries, collected.keepTexts);
  if (maxWorkers === 0) await extractInThread(pdf, textPages, limits, again, signal);
  else await extractInWorkers(pdf, textPages, maxWorkers, limits, again, signal);
  for (const n of pages) {
    const geo = again.geometries[n - 1];
    if (geo) collected.geometry(geo);
    const text = again.texts.get(n);
    if (text) collected.texts.set(n, text);
  }
  collected.found.push(...again.found.filter((f) => textPages.has(f.pageNumber)));
}

/**
 * Reads with pdf.js the pages PDFium read poorly (characters whose fonts give it no Unicode: text-index/pdfium-extract.ts,
 * readsPoorly), whose fallbacks (glyph names, the fonts' own tables) read such fonts as poppler does. Where pdf.js fails
 * on the document, or finds no text on a page PDFium read, PDFium's text stays.
 */
async function rereadPoorPages(pdf: Uint8Array, collected: Collector, maxWorkers: number, limits: IndexLimits, signal: AbortSignal | undefined): Promise<void> {
  const poor = collected.poorTexts;
  const again = new Collector(collected.queries, true);
  try {
    if (maxWorkers === 0) await extractInThread(pdf, new Set(poor.keys()), limits, again, signal);
    else await extractInWorkers(pdf, new Set(poor.keys()), maxWorkers, limits, again, signal);
  } catch (error) {
    signal?.throwIfAborted();
    if (!(error instanceof ParaphError)) throw error;
  }
  for (const [n, text] of [...poor].sort(([a], [b]) => a - b)) {
    const better = again.texts.get(n);
    if (better && better.text.length > 0) {
      collected.found.push(...again.found.filter((f) => f.pageNumber === n));
      if (collected.keepTexts) collected.texts.set(n, better);
    } else {
      collected.text(text);
    }
  }
}

class Collector implements ExtractSink {
  readonly geometries: PageGeometry[] = [];
  readonly texts = new Map<number, ExtractedText>();
  readonly found: PageFound[] = [];
  /** Pages the PDFium engine could not read as pdf.js does, to be read with pdf.js. */
  readonly pdfjsPages = new Set<number>();
  /** Texts of the pages PDFium read poorly, to be read with pdf.js if it can. */
  readonly poorTexts = new Map<number, ExtractedText>();
  pageCount = 0;

  /** What the pages extracted in this thread kept of the matches (in page order, as they come). */
  private readonly budget: SearchBudget;

  /** `queries` are searched on each page as it comes in (in-thread extraction; workers search their own pages). */
  constructor(
    readonly queries: readonly TextQuery[],
    readonly keepTexts: boolean,
  ) {
    this.budget = new SearchBudget(queries);
  }

  geometry(geo: PageGeometry): void {
    this.geometries[geo.pageNumber - 1] = geo;
  }

  text(text: ExtractedText): void {
    if (this.queries.length > 0) this.found.push(...searchPage(text.pageNumber, text.text, text.boxes, this.queries, this.budget));
    if (this.keepTexts) this.texts.set(text.pageNumber, text);
  }

  /** The pages' results of a worker's search. */
  foundInWorker(found: readonly PageFound[]): void {
    this.found.push(...found);
  }

  needsPdfjs(pageNumber: number): void {
    this.pdfjsPages.add(pageNumber);
  }

  readPoorly(text: ExtractedText): void {
    this.poorTexts.set(text.pageNumber, text);
  }

  allGeometries(): PageGeometry[] {
    const pages: PageGeometry[] = [];
    for (let n = 1; n <= this.pageCount; n++) {
      const geo = this.geometries[n - 1];
      if (!geo) throw new ParaphError('TEXT_INDEX_FAILED', `Page ${n} is missing from the text index.`, { origin: 'internal' });
      pages.push(geo);
    }
    return pages;
  }

  build(): TextIndex {
    const pages: PageGeometry[] = [];
    const texts = new Map<number, IndexedPage>();
    const signatures: (Uint32Array | undefined)[] = [];
    const compactSignatures: (Uint32Array | undefined)[] = [];
    for (let n = 1; n <= this.pageCount; n++) {
      const geo = this.geometries[n - 1];
      if (!geo) throw new ParaphError('TEXT_INDEX_FAILED', `Page ${n} is missing from the text index.`, { origin: 'internal' });
      pages.push(geo);
      const t = this.texts.get(n);
      signatures.push(t?.signature);
      compactSignatures.push(t?.compactSignature);
      if (t) texts.set(n, new IndexedPage(n, geo, t.text, t.boxes));
    }
    return new Index(pages, texts, new BigramPostings(signatures), new BigramPostings(compactSignatures));
  }
}

async function extractInThread(
  pdf: Uint8Array,
  wanted: ReadonlySet<number> | undefined,
  limits: IndexLimits,
  sink: Collector,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { extractRange, openPdf } = await import('./pdfjs-extract.js');
  let doc = await openPdf(pdf);
  if (doc.numPages > limits.maxPages) {
    await doc.destroy();
    throw tooManyPages(doc.numPages, limits.maxPages);
  }
  // As in text-index/pdfjs-worker.ts: pdf.js reads a balanced copy of a large flat page tree (page-tree-balance.ts).
  if (doc.numPages >= INDEX_BALANCE_MIN_PAGES) {
    const balanced = await balancePageTree(pdf);
    const other = balanced === pdf ? undefined : await openPdf(balanced).catch(() => undefined);
    if (other && other.numPages === doc.numPages) {
      await doc.destroy();
      pdf = balanced;
      doc = other;
    } else await other?.destroy();
  }
  try {
    const pageCount = doc.numPages;
    sink.pageCount = pageCount;
    for (let from = 1; from <= pageCount; from += PAGES_PER_OPEN) {
      // pdf.js keeps every loaded page until the document is destroyed: open it afresh now and then.
      if (from > 1) {
        await doc.destroy();
        doc = await openPdf(pdf);
      }
      await extractRange(doc, from, Math.min(pageCount, from + PAGES_PER_OPEN - 1), wanted, sink, signal);
      signal?.throwIfAborted();
    }
  } finally {
    await doc.destroy();
  }
}

/**
 * The refusal of a page, naming the content that draws itself when that is why (drawing-cycles.ts, run once the
 * threads are ended and only for a refused page).
 */
async function explain(error: PdfTooComplexError, pdf: Uint8Array): Promise<PdfTooComplexError> {
  if (error.cycle) return error;
  const cycle = await findDrawingCycle(pdf, error.page!).catch(() => undefined);
  if (!cycle) return error;
  return cycleError(error.page, cycle);
}

/** The refusal of a page whose content draws itself. */
function cycleError(page: number | undefined, cycle: readonly string[]): PdfTooComplexError {
  return tooComplex(page, `${cycle[0]} draws itself, ${cycle.join(' → ')}, which never ends`, cycle);
}

/** A page running longer than this (ms, at most half the page budget) is checked for a drawing cycle. */
const SLOW_PAGE_MS = 1000;
/** Slow pages checked per document (each check parses the document with pdf-lib). */
const MAX_CYCLE_CHECKS = 2;


interface Chunk {
  from: number;
  to: number;
}

type WorkerMessage = { job?: number } & (
  | { type: 'ready' }
  | { type: 'opened'; numPages: number }
  | { type: 'geometry'; geo: PageGeometry; found?: PageFound[] }
  | { type: 'text'; geo: PageGeometry; text: ExtractedText; found?: PageFound[] }
  | { type: 'rangeDone' }
  | { type: 'closed' }
  | { type: 'error'; failure: ExtractFailure }
);

function failureError(failure: ExtractFailure): ParaphError {
  return failure.internal
    ? new ParaphError(failure.code, failure.message, { origin: 'internal' })
    : new PdfParseError(failure.code, failure.message);
}

/** A worker thread with pdf.js loaded; `large` ones have the generous heap limits. */
/**
 * Under tsx the thread's bootstrap loads pdf.js natively, before tsx's hooks: through them its 4 MB of modules cost
 * seconds and hundreds of MB per thread. It keeps the native `Array.prototype.push` for the worker under a registry
 * symbol first, as pdf.js's polyfills replace it (the compiled worker saves it itself).
 */
const TSX_PRELUDE: TsxThreadPrelude = {
  statement: `globalThis[Symbol.for('paraph.nativePush')] = Array.prototype.push;`,
  nativeImports: ['pdfjs-dist/legacy/build/pdf.mjs', 'pdfjs-dist/legacy/build/pdf.worker.mjs'],
};

interface PooledWorker {
  worker: Worker;
  large: boolean;
  /** Our listeners, so they can be removed without touching Node's own (removeAllListeners would). */
  listeners: Array<[WorkerEvent, (value: unknown) => void]>;
  /** Counts the times it went idle, so an old idle timer does not end it after it was reused and released again. */
  released: number;
  /** It has loaded pdf.js (sent `ready`). */
  ready: boolean;
}

type WorkerEvent = 'message' | 'error' | 'exit';

function listen(pooled: PooledWorker, event: WorkerEvent, listener: (value: unknown) => void): void {
  pooled.worker.on(event, listener);
  pooled.listeners.push([event, listener]);
}

function unlisten(pooled: PooledWorker, only?: WorkerEvent): void {
  pooled.listeners = pooled.listeners.filter(([event, listener]) => {
    if (only !== undefined && event !== only) return true;
    pooled.worker.off(event, listener);
    return false;
  });
}

/**
 * Threads that finished a document cleanly wait here for the next one (loading pdf.js costs a few hundred ms per
 * thread). They do not keep the process alive, and end after a few idle seconds.
 */
const idle: PooledWorker[] = [];
/** Numbers the documents given to workers, so that a reused thread's late replies about an earlier one are ignored. */
let lastJob = 0;
const IDLE_MS = 10_000;
const MAX_IDLE = 4;

function spawnWorker(large: false): PooledWorker;
function spawnWorker(large: true, maxHeapMb: number): PooledWorker;
function spawnWorker(large: boolean, maxHeapMb = 0): PooledWorker {
  const worker = startWorkerThread(import.meta.url, './pdfjs-worker.js', { resourceLimits: large ? { maxOldGenerationSizeMb: maxHeapMb } : WORKER_LIMITS }, TSX_PRELUDE);
  return { worker, large, listeners: [], released: 0, ready: false };
}

function acquireWorker(): PooledWorker {
  const pooled = idle.pop();
  if (pooled) {
    unlisten(pooled);
    pooled.worker.ref();
    return pooled;
  }
  return spawnWorker(false);
}

/** Takes back a worker that has closed its document, or ends it when the pool is full. */
function releaseWorker(pooled: PooledWorker): void {
  const { worker } = pooled;
  unlisten(pooled);
  if (pooled.large || idle.length >= MAX_IDLE) {
    void worker.terminate();
    return;
  }
  const drop = (): void => {
    const at = idle.indexOf(pooled);
    if (at !== -1) idle.splice(at, 1);
  };
  listen(pooled, 'error', drop);
  listen(pooled, 'exit', drop);
  worker.unref();
  idle.push(pooled);
  const generation = ++pooled.released;
  setTimeout(() => {
    if (pooled.released === generation && idle.includes(pooled)) {
      drop();
      void worker.terminate();
    }
  }, IDLE_MS).unref();
}

function extractInWorkers(
  pdf: Uint8Array,
  wanted: ReadonlySet<number> | undefined,
  maxWorkers: number,
  limits: IndexLimits,
  sink: Collector,
  signal: AbortSignal | undefined,
): Promise<void> {
  const textPages = wanted ? [...wanted].sort((a, b) => a - b) : null;
  const job = ++lastJob;
  const chunks: Chunk[] = [];
  const active = new Set<PooledWorker>();
  const current = new Map<PooledWorker, Chunk>();
  let planned = false;
  let settled = false;
  let started = 0;

  return new Promise<void>((resolve, reject) => {
    // A page that takes too long (a cycle of forms or patterns pdf.js follows forever) or a document past its total
    // budget ends the extraction; finish() terminates the threads, which frees whatever they hold.
    const watchdog = new ExtractionWatchdog<PooledWorker>(limits, () => performance.now(), (error) => finish(error));
    // Cycle detection while extracting: a page still running after a second is checked for content that
    // draws itself, and a cycle ends the extraction at once rather than when the page's time or memory runs out.
    let cycleChecks = 0;
    watchdog.watchSlowPages(Math.min(SLOW_PAGE_MS, limits.pageMs / 2), (page) => {
      if (++cycleChecks > MAX_CYCLE_CHECKS) return;
      void findDrawingCycle(pdf, page)
        .catch(() => undefined)
        .then((cycle) => {
          if (cycle) finish(cycleError(page, cycle));
        });
    });
    const finish = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      watchdog.stop();
      signal?.removeEventListener('abort', onAbort);
      // Threads still busy with this document are not reused: they may be mid-page.
      for (const pooled of active) {
        unlisten(pooled);
        void pooled.worker.terminate();
      }
      active.clear();
      if (error === undefined) resolve();
      else if (error instanceof PdfTooComplexError && error.page !== undefined) void explain(error, pdf).then(reject);
      else reject(error);
    };
    const onAbort = (): void => finish(signal?.reason ?? new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });

    const next = (pooled: PooledWorker): void => {
      current.delete(pooled);
      watchdog.idle(pooled);
      const chunk = chunks.shift();
      if (chunk) {
        current.set(pooled, chunk);
        watchdog.working(pooled, chunk.from);
        pooled.worker.postMessage({ type: 'range', from: chunk.from, to: chunk.to, textPages, queries: sink.queries, keepText: sink.keepTexts });
        return;
      }
      if (current.size > 0) return; // others are still busy; this one waits
      // Every page is in: the threads close the document and go back to the pool at once (a thread handles its
      // messages in order, so the next document's `open` waits for this `close`).
      const done = [...active];
      active.clear();
      for (const p of done) {
        p.worker.postMessage({ type: 'close' });
        releaseWorker(p);
      }
      finish();
    };

    const start = (pooled: PooledWorker): void => {
      started++;
      active.add(pooled);
      const { worker } = pooled;
      listen(pooled, 'message', (value) => {
        const message = value as WorkerMessage;
        // A new thread's start-up (loading pdf.js) is not the document's fault: its clock starts once it is ready.
        if (message.type === 'ready') {
          pooled.ready = true;
          if (!settled && active.has(pooled)) watchdog.working(pooled, undefined);
        }
        if (settled || message.job !== job) return;
        switch (message.type) {
          case 'opened':
            if (message.numPages > limits.maxPages) {
              finish(tooManyPages(message.numPages, limits.maxPages));
              return;
            }
            if (!planned) plan(message.numPages);
            next(pooled);
            break;
          case 'geometry':
            sink.geometry(message.geo);
            if (message.found) sink.foundInWorker(message.found);
            watchdog.working(pooled, message.geo.pageNumber + 1);
            break;
          case 'text':
            sink.geometry(message.geo);
            if (message.found) sink.foundInWorker(message.found);
            if (sink.keepTexts) sink.texts.set(message.text.pageNumber, message.text);
            watchdog.working(pooled, message.geo.pageNumber + 1);
            break;
          case 'rangeDone':
            next(pooled);
            break;
          case 'error':
            finish(failureError(message.failure));
            break;
          default:
            break;
        }
      });
      listen(pooled, 'error', (value) => {
        const error = value instanceof Error ? value : new Error(String(value));
        if (settled) return;
        const code = (error as { code?: unknown }).code;
        active.delete(pooled);
        const page = watchdog.pageOf(pooled);
        watchdog.idle(pooled);
        if (code === 'ERR_WORKER_OUT_OF_MEMORY' && !pooled.large && limits.maxHeapMb > WORKER_LIMITS.maxOldGenerationSizeMb) {
          // The small heap that keeps memory flat was not enough for some page: redo its range with room to spare.
          const chunk = current.get(pooled);
          current.delete(pooled);
          if (chunk) chunks.unshift(chunk);
          launch(spawnWorker(true, limits.maxHeapMb));
          return;
        }
        if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
          const heap = pooled.large ? limits.maxHeapMb : WORKER_LIMITS.maxOldGenerationSizeMb;
          finish(tooComplex(page, `it needs more than ${heap} MB of memory`));
          return;
        }
        finish(new ParaphError('TEXT_INDEX_FAILED', `The text index worker failed: ${error.message}`, { origin: 'internal', cause: error }));
      });
      listen(pooled, 'exit', (code) => {
        if (!settled && active.has(pooled)) {
          finish(new ParaphError('TEXT_INDEX_FAILED', `The text index worker stopped (exit code ${code}).`, { origin: 'internal' }));
        }
      });
      if (pooled.ready) watchdog.working(pooled, undefined);
      worker.postMessage({ type: 'open', bytes: pdf, job });
    };

    const launch = (pooled?: PooledWorker): void => {
      try {
        start(pooled ?? acquireWorker());
      } catch (error) {
        finish(new ParaphError('TEXT_INDEX_FAILED', `Could not start a text index worker: ${String(error)}`, { origin: 'internal', cause: error }));
      }
    };

    const plan = (numPages: number): void => {
      planned = true;
      sink.pageCount = numPages;
      const textCount = textPages ? textPages.filter((n) => n <= numPages).length : numPages;
      watchdog.pages(textCount);
      const size = Math.max(1, Math.min(CHUNK_PAGES, Math.ceil(numPages / 8)));
      for (let from = 1; from <= numPages; from += size) chunks.push({ from, to: Math.min(numPages, from + size - 1) });
      const extra = Math.min(maxWorkers, Math.ceil(textCount / PAGES_PER_WORKER)) - started;
      for (let i = 0; i < extra; i++) launch();
    };

    launch();
    // A large file will want a second thread: start it now rather than after the first has opened the document.
    if (maxWorkers > 1 && !wanted && pdf.length >= SPECULATIVE_SPAWN_BYTES) launch();
  });
}
