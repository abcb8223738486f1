/**
 * Normalization of unsigned PDFs that readers open but paraph could not work on: a document encrypted
 * with an empty user password (owner-password "protection", permissions allowing form filling or signing), or one
 * whose cross-reference table is damaged (`startxref` off, a table that does not point at its objects). Such a file is
 * rewritten once, cleanly, by PDFium (pdfium-rewrite.ts) in a worker thread with a time budget (or in the calling
 * thread of a process that is its own sandbox); incremental updates and signatures then work on the copy. A document that already carries signatures is never rewritten: it is refused.
 */
import { PDFDict, PDFName, PDFNumber, PDFRef, type PDFDocument } from './pdf-lib.js';
import type { Worker } from 'node:worker_threads';
import { ParaphError, PdfParseError } from '../errors.js';
import { startWorkerThread } from '../worker-entry.js';
import { loadPdf } from './load-pdf.js';
import { repairPageTree } from './page-tree-repair.js';
import { rewriteWithPdfium, type PdfiumRewrite } from './pdfium-rewrite.js';
import { readPdfTail } from './pdf-tail.js';
import { decryptedCopy } from './standard-decryption.js';
import { tooComplex } from './text-index/limits.js';
import { ObjectStreamCache, XrefView } from './xref.js';

/** Why a document had to be rewritten. */
export interface PdfNormalization {
  readonly reason: 'encrypted-empty-password' | 'damaged-xref';
  /** What was wrong, in words (for the audit trail). */
  readonly detail: string;
}

/** The result of {@link normalizePdf}. */
export interface NormalizedPdf {
  /** The bytes to work on: the input itself when nothing had to change. */
  readonly bytes: Uint8Array;
  /** `bytes` opened with pdf-lib (as `loadPdf` opens them), for a caller that reads them next. */
  readonly doc: PDFDocument;
  /** Set when the document was rewritten. */
  readonly normalization?: PdfNormalization;
}

/** Options of {@link normalizePdf}. */
export interface NormalizePdfOptions {
  /** Time the rewrite may take, ms (default 30,000); past it `PDF_TOO_COMPLEX`. Enforced only in a worker thread. */
  timeoutMs?: number;
  /**
   * Whether PDFium's rewrite runs in a one-shot worker thread under a heap limit and `timeoutMs` (default true).
   * `false` runs it in the calling thread, which is blocked meanwhile: for a process that is itself the sandbox
   * (its own heap cap and time budget, as the service's PDF processes have), where a thread would only nest.
   */
  workerThread?: boolean;
}

/** Heap of the rewrite's thread (PDFium's own memory is WebAssembly memory, bounded by its 4 GB address space). */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 };
/** In-use entries of the last cross-reference table checked against the objects they point at. */
const MAX_CHECKED_ENTRIES = 100_000;

/**
 * Why `pdf` must be rewritten before paraph can use it, or undefined when it is fine as it is. Cheap for a sound
 * file (pdf-lib's parse plus a look at the last cross-reference section).
 *
 * @throws PdfParseError for what is no PDF at all (`PDF_EMPTY`, `PDF_NOT_A_PDF`) or has no pages.
 */
export async function normalizationNeeded(pdf: Uint8Array): Promise<PdfNormalization | undefined> {
  const inspected = await inspect(pdf);
  return 'reason' in inspected ? inspected : undefined;
}

/** `pdf` opened with pdf-lib when paraph can use it as it is, else why it must be rewritten. */
async function inspect(pdf: Uint8Array): Promise<PdfNormalization | { doc: PDFDocument }> {
  let doc;
  try {
    doc = await loadPdf(pdf);
  } catch (error) {
    if (!(error instanceof PdfParseError)) throw error;
    if (error.code === 'PDF_ENCRYPTED') return { reason: 'encrypted-empty-password', detail: 'encrypted, opening without a password' };
    if (error.code === 'PDF_UNREADABLE') return { reason: 'damaged-xref', detail: error.message };
    if (error.code === 'PDF_NOT_A_PDF' && startsLikePdfBody(pdf)) return { reason: 'damaged-xref', detail: HEADERLESS };
    throw error;
  }
  try {
    const tail = readPdfTail(pdf, doc.context);
    if (!isSigned(pdf)) {
      const disagreement = readerDisagreement(pdf, tail.startxref);
      if (disagreement !== undefined) return { reason: 'damaged-xref', detail: disagreement };
    }
    if (tail.kind === 'table') {
      const bad = firstMisplacedObject(pdf, tail.startxref);
      if (bad !== undefined) {
        const which = bad.section === 0 ? 'the cross-reference table' : `an earlier cross-reference table (${bad.section} back)`;
        return { reason: 'damaged-xref', detail: `${which} does not point at object ${bad.object}` };
      }
    }
    // An incremental update copies /Prev from here: it must lead to an earlier cross-reference section.
    const prev = tail.trailer.get(PDFName.of('Prev'));
    if (prev !== undefined && !(prev instanceof PDFNumber && isXrefSectionAt(pdf, prev.asNumber()))) {
      return { reason: 'damaged-xref', detail: 'the trailer\'s /Prev does not point at a cross-reference section' };
    }
  } catch (error) {
    if (error instanceof PdfParseError) return { reason: 'damaged-xref', detail: error.message };
    throw error;
  }
  return { doc };
}

/**
 * Returns `pdf` unchanged when paraph can use it, else a clean rewrite of it (encryption removed, cross-reference
 * table rebuilt) with the reason. Never rewrites a signed document.
 *
 * @throws PdfParseError `PDF_ENCRYPTED` (a password is needed, permissions forbid signing, or it is signed and
 *   encrypted), `PDF_DAMAGED_SIGNED` (signed and damaged), `PDF_UNREADABLE`, `PDF_TOO_COMPLEX` (past the time budget).
 * @example
 * const { bytes, normalization } = await normalizePdf(upload);
 * if (normalization) audit('file.normalized', normalization.reason);
 */
export async function normalizePdf(pdf: Uint8Array, options: NormalizePdfOptions = {}): Promise<NormalizedPdf> {
  const normalization = await inspect(pdf);
  if ('doc' in normalization) return { bytes: pdf, doc: normalization.doc };
  const input = normalization.detail === HEADERLESS ? withHeader(pdf) : pdf;
  let bytes: Uint8Array;
  try {
    bytes = await rewriteWithPdfiumIn(input, normalization.reason === 'encrypted-empty-password', options);
  } catch (error) {
    // PDFium gives up on some files other readers open: a trailer cut off mid-string, a catalog with a broken entry,
    // an encryption key derived without the metadata. An unsigned one is rebuilt without PDFium, or refused as it said.
    const fallback = canFallBack(error, input, normalization) ? await rewriteWithoutPdfium(input, normalization) : undefined;
    if (!fallback) throw error;
    return { ...fallback, normalization };
  }
  // The rewrite must be what paraph needs: readable by pdf-lib, unencrypted, with a sound tail.
  let again = await inspectRewrite(bytes);
  if ('reason' in again) {
    // PDFium keeps a page tree it walks leniently (loops, wrong /Type, a false /Count) as it is: flatten it.
    const flat = await repairPageTree(bytes);
    const flatAgain = flat && (await inspectRewrite(flat));
    if (!flat || !flatAgain || 'reason' in flatAgain) {
      const fallback = isSigned(input) ? undefined : await rewriteWithoutPdfium(input, normalization);
      if (fallback) return { ...fallback, normalization };
      throw new PdfParseError('PDF_UNREADABLE', `The PDF cannot be repaired (${normalization.detail}; the rewrite: ${again.detail}).`);
    }
    bytes = flat;
    again = flatAgain;
  }
  return { bytes, doc: again.doc, normalization };
}

/** Whether PDFium's refusal `error` leaves a rewrite without it worth trying (never on a signed file). */
function canFallBack(error: unknown, input: Uint8Array, normalization: PdfNormalization): boolean {
  if (!(error instanceof PdfParseError) || isSigned(input)) return false;
  return normalization.reason === 'encrypted-empty-password' ? error.code === 'PDF_ENCRYPTED' : error.code === 'PDF_UNREADABLE';
}

/**
 * `input` rewritten by pdf-lib alone — decrypted with the empty password when it is encrypted, its page tree rebuilt
 * from a lenient parse when it must be — and checked as PDFium's rewrites are; undefined when that fails too.
 */
async function rewriteWithoutPdfium(input: Uint8Array, normalization: PdfNormalization): Promise<{ bytes: Uint8Array; doc: PDFDocument } | undefined> {
  const source = normalization.reason === 'encrypted-empty-password' ? await decryptedCopy(input) : input;
  if (!source) return undefined;
  const checked = source === input ? undefined : await inspectRewrite(source);
  if (checked && 'doc' in checked) return { bytes: source, doc: checked.doc };
  const rebuilt = await repairPageTree(source);
  const rebuiltChecked = rebuilt && (await inspectRewrite(rebuilt));
  return rebuilt && rebuiltChecked && 'doc' in rebuiltChecked ? { bytes: rebuilt, doc: rebuiltChecked.doc } : undefined;
}

/**
 * A clean rewrite of an unsigned, unencrypted `pdf` (PDFium, fresh cross-reference table, one revision), checked as
 * {@link normalizePdf} checks its rewrites: for a document paraph's own update on it left unreadable to other readers.
 *
 * @throws PdfParseError `PDF_DAMAGED_SIGNED` (it carries signatures), `PDF_UNREADABLE`, `PDF_TOO_COMPLEX`.
 */
export async function rewritePdf(pdf: Uint8Array, options: NormalizePdfOptions = {}): Promise<Uint8Array> {
  const bytes = await rewriteWithPdfiumIn(pdf, false, options);
  const again = await inspect(bytes).catch((error: unknown) => ({ reason: 'damaged-xref' as const, detail: String(error) }));
  if ('reason' in again) throw new PdfParseError('PDF_UNREADABLE', `The PDF cannot be rewritten cleanly (${again.detail}).`);
  return bytes;
}

function inspectRewrite(bytes: Uint8Array): Promise<PdfNormalization | { doc: PDFDocument }> {
  return inspect(bytes).catch((error: unknown) => ({ reason: 'damaged-xref' as const, detail: error instanceof Error ? error.message : String(error) }));
}

/** PDFium's rewrite of `pdf`, where `options` say (a worker thread unless `workerThread: false`). */
async function rewriteWithPdfiumIn(pdf: Uint8Array, encrypted: boolean, options: NormalizePdfOptions): Promise<Uint8Array> {
  if (options.workerThread !== false) return rewriteInWorker(pdf, encrypted, options.timeoutMs ?? 30_000);
  const reply = await rewriteWithPdfium(pdf, encrypted);
  if (reply.ok) return reply.bytes;
  throw new PdfParseError(reply.code, reply.message);
}

function rewriteInWorker(pdf: Uint8Array, encrypted: boolean, timeoutMs: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = startWorkerThread(import.meta.url, './normalize-worker.js', { resourceLimits: WORKER_LIMITS, workerData: { bytes: pdf, encrypted } });
    } catch (error) {
      reject(new ParaphError('PDF_NORMALIZE_FAILED', `Could not start the PDF repair thread: ${String(error)}`, { origin: 'internal', cause: error }));
      return;
    }
    let settled = false;
    const settle = (error: unknown, bytes?: Uint8Array): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (bytes) resolve(bytes);
      else reject(error);
    };
    const timer = setTimeout(() => settle(tooComplex(undefined, `repairing it took more than ${timeoutMs / 1000} s`)), timeoutMs);
    worker.on('message', (reply: PdfiumRewrite) => {
      if (reply.ok) settle(undefined, reply.bytes);
      else settle(new PdfParseError(reply.code, reply.message));
    });
    worker.on('error', (error) => {
      if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') settle(tooComplex(undefined, 'repairing it needs too much memory'));
      else settle(new ParaphError('PDF_NORMALIZE_FAILED', `The PDF repair thread failed: ${error.message}`, { origin: 'internal', cause: error }));
    });
    worker.on('exit', (code) => settle(new ParaphError('PDF_NORMALIZE_FAILED', `The PDF repair thread stopped (exit code ${code}).`, { origin: 'internal' })));
  });
}


const HEADERLESS = 'it has no "%PDF-" header';

/**
 * Whether `pdf`, which has no `%PDF-` header, starts as a PDF body does (comment lines, then `n g obj`) and has a
 * trailer or cross-reference stream: a PDF that lost its header, which readers open all the same.
 */
function startsLikePdfBody(pdf: Uint8Array): boolean {
  const head = ascii(pdf, 0, Math.min(pdf.length, 1024));
  if (!/^\s*(?:%[^\r\n]*[\r\n]+\s*)*\d+\s+\d+\s+obj\b/.test(head)) return false;
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  return text.includes('trailer') || text.includes('/XRef');
}

function withHeader(pdf: Uint8Array): Uint8Array {
  const header = new TextEncoder().encode('%PDF-1.7\n');
  const out = new Uint8Array(header.length + pdf.length);
  out.set(header);
  out.set(pdf, header.length);
  return out;
}

function isSigned(pdf: Uint8Array): boolean {
  return Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).includes('/ByteRange');
}

/**
 * Where the cross-reference chain of an unsigned `pdf`, read strictly as paraph's verifier and careful readers read it
 * (every section through /Prev and /XRefStm, each in-use entry at its own `n g obj`), differs from what pdf-lib made of
 * the file by scanning it, or undefined when they agree. A file on which they differ is one readers repair each their
 * own way: an update appended to it may show no signature, or none that verifies, to some of them.
 */
function readerDisagreement(pdf: Uint8Array, startxref: number): string | undefined {
  let view: XrefView;
  try {
    view = new XrefView(pdf, startxref, new ObjectStreamCache(pdf), new Map());
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (view.malformedEntries > 0) return `the cross-reference table has ${view.malformedEntries} entries that are not 20 bytes long`;
  if (view.ambiguities.length > 0) return view.ambiguities[0];
  let checked = 0;
  for (const [n, entry] of view.entries) {
    if (entry.kind !== 'offset') continue;
    if (++checked > MAX_CHECKED_ENTRIES) break;
    const head = ascii(pdf, entry.offset, Math.min(pdf.length, entry.offset + 32));
    const found = /^\s*(\d+)\s+(\d+)\s+obj/.exec(head);
    if (!found || Number(found[1]) !== n || Number(found[2]) !== entry.generation) {
      return `the cross-reference section does not point at object ${n} (offset ${entry.offset})`;
    }
  }
  const root = view.trailer.get(PDFName.of('Root'));
  if (!(root instanceof PDFRef) || !(view.get(root.objectNumber) instanceof PDFDict)) return 'the trailer\'s /Root does not lead to a catalog';
  const catalog = view.get(root.objectNumber) as PDFDict;
  const pages = catalog.get(PDFName.of('Pages'));
  if (!(pages instanceof PDFRef) || !(view.get(pages.objectNumber) instanceof PDFDict)) return 'the catalog\'s /Pages does not lead to a page tree';
  return undefined;
}

/** Classic cross-reference sections followed back through /Prev at most. */
const MAX_CHECKED_SECTIONS = 64;

/**
 * The first object that the cross-reference table at `startxref`, or an earlier table its trailer's /Prev leads to,
 * says is at an offset where it is not (`n g obj` expected), or undefined. An entry a later section replaces does not
 * count. Readers repair such files silently, each its own way; an incremental update on them would not verify
 * (some readers then see no signature at all). A document that carries signatures has only its last table checked:
 * it cannot be rewritten, and readers that opened it when it was signed read its earlier sections as they are.
 */
function firstMisplacedObject(bytes: Uint8Array, startxref: number): { object: string; section: number } | undefined {
  const signed = isSigned(bytes);
  const replaced = new Set<number>();
  const visited = new Set<number>();
  let checked = 0;
  let at = startxref;
  for (let section = 0; section < (signed ? 1 : MAX_CHECKED_SECTIONS) && !visited.has(at); section++) {
    visited.add(at);
    const read = checkTable(bytes, at, section === 0, replaced, MAX_CHECKED_ENTRIES - checked);
    if (read.bad !== undefined) return { object: read.bad, section };
    checked += read.checked;
    if (read.prev === undefined || checked >= MAX_CHECKED_ENTRIES) return undefined;
    at = read.prev;
  }
  return undefined;
}

/**
 * Checks the classic table at `start` (entries of `replaced` skipped, at most `budget` checked; the numbers it lists
 * are added to `replaced`): its first misplaced object, how many it checked, and its trailer's /Prev when that leads
 * to another classic table.
 */
function checkTable(
  bytes: Uint8Array,
  start: number,
  last: boolean,
  replaced: Set<number>,
  budget: number,
): { bad?: string; checked: number; prev?: number } {
  let at = start;
  const skipWhite = (): void => {
    while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09)) at++;
  };
  const readNumber = (): number | undefined => {
    skipWhite();
    const from = at;
    while (at < bytes.length && bytes[at]! >= 0x30 && bytes[at]! <= 0x39) at++;
    return at > from ? Number(ascii(bytes, from, at)) : undefined;
  };
  // startxref must name the keyword itself: pointing at whitespace before it, the /Prev an update copies is off too.
  if (ascii(bytes, at, at + 4) !== 'xref') {
    skipWhite();
    if (last && ascii(bytes, at, at + 4) === 'xref') return { bad: 'xref (startxref points before the keyword)', checked: 0 };
    return { checked: 0 };
  }
  at += 4;
  let checked = 0;
  const listed: number[] = [];
  for (;;) {
    const first = readNumber();
    const count = readNumber();
    if (first === undefined || count === undefined) break; // "trailer": the table ended
    skipWhite();
    for (let i = 0; i < count; i++) {
      const entry = ascii(bytes, at, at + 18);
      at += 18;
      skipWhite();
      const objectNumber = first + i;
      const match = /^(\d{10}) (\d{5}) ([nf])$/.exec(entry);
      if (!match) return { bad: `${objectNumber} (entry unreadable)`, checked };
      if (replaced.has(objectNumber)) continue;
      listed.push(objectNumber);
      if (match[3] !== 'n' || checked >= budget) continue;
      checked++;
      const offset = Number(match[1]);
      const head = ascii(bytes, offset, Math.min(bytes.length, offset + 32));
      const found = /^\s*(\d+)\s+(\d+)\s+obj/.exec(head);
      if (!found || Number(found[1]) !== objectNumber || Number(found[2]) !== Number(match[2])) return { bad: `${objectNumber} ${Number(match[2])} R`, checked };
    }
  }
  for (const n of listed) replaced.add(n);
  const trailer = ascii(bytes, at, Math.min(bytes.length, at + 2048));
  const end = trailer.indexOf('startxref');
  const prev = /^trailer[\s\S]*?\/Prev\s+(\d+)(?!\s+\d+\s+R)/.exec(end === -1 ? trailer : trailer.slice(0, end))?.[1];
  return { checked, ...(prev !== undefined && ascii(bytes, Number(prev), Number(prev) + 4) === 'xref' ? { prev: Number(prev) } : {}) };
}

/** Whether an `xref` table or an xref stream object (`n g obj`) starts at `offset`. */
function isXrefSectionAt(bytes: Uint8Array, offset: number): boolean {
  if (!Number.isInteger(offset) || offset < 0 || offset >= bytes.length) return false;
  const head = ascii(bytes, offset, Math.min(bytes.length, offset + 32));
  return /^(xref|\d+\s+\d+\s+obj)/.test(head);
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(Math.max(0, from), Math.max(0, to)));
}
