/**
 * The revisions of a PDF file: where each incremental update ends (ISO 32000-2 §7.5.6, "Incremental updates") and
 * which objects each update section defines. Verification (src/pades/verify.ts) uses the boundaries to tell which
 * revision a signature covers, and the per-section objects to judge what changed after it.
 *
 * A revision ends after a `startxref <offset> %%EOF` trailer whose offset points at a cross-reference section
 * (`xref` table or an `N G obj` xref stream) before it. That check skips `%%EOF` markers inside streams, e.g. an
 * embedded PDF attachment, whose `startxref` offsets are relative to the embedded file.
 */
import { PDFName, PDFRef, PDFStream, type PDFObject } from './pdf-lib.js';
import { ObjectStreamCache, XrefView, parseIndirectObjectAt, type XrefSection } from './xref.js';

/** One revision of a PDF: the bytes `[0, end)` form the document as it was when this revision was written. */
export interface PdfRevision {
  /** 0 for the original document, 1 for the first incremental update, … */
  readonly index: number;
  /** Offset where this revision's update section starts (0 for the original). */
  readonly start: number;
  /** Offset just after `%%EOF`. */
  readonly eofEnd: number;
  /** Offset after `%%EOF` and the end-of-line that follows it (equal to `eofEnd` when none does). */
  readonly end: number;
  /** The `startxref` value of this revision's trailer. */
  readonly startxref: number;
  /** Whether the cross-reference section is a classic `xref` table or an xref stream. */
  readonly xrefKind: 'table' | 'stream';
}

/** The objects one revision's section defines (new or replacing earlier definitions), keyed by object number. */
export interface RevisionSection {
  readonly revision: PdfRevision;
  /**
   * For the original (revision 0) every object in use; for an update the objects whose cross-reference entry differs
   * from the previous revision's (new or replaced), as a reader resolves them through this revision's xref chain.
   */
  readonly objects: ReadonlyMap<number, PDFObject>;
  /** Every object as a reader sees it when the file ends after this revision. */
  readonly view: XrefView;
  /** The section trailer's `/Root` and `/Info` references, when present. */
  readonly root: PDFRef | undefined;
  readonly info: PDFRef | undefined;
  /** The section trailer names an /Encrypt dictionary. */
  readonly encrypted: boolean;
  /** Object numbers this update's xref section (table or stream) marks as free (deleted), object 0 excluded. */
  readonly freed: readonly number[];
  /**
   * Where the update's cross-reference section disagrees with its bytes (an entry pointing at no object, or at
   * another definition than the last one). `objects` follows the cross-reference section, as readers do.
   */
  readonly inconsistencies: readonly string[];
  /**
   * Where two conforming readers could resolve an object of this revision differently (an object listed twice in
   * one xref section, xref entries some readers reject and rebuild by scanning, one number twice in an object
   * stream, a hybrid file whose /XRefStm disagrees with its table): each names the object and the readings.
   */
  readonly ambiguities: readonly string[];
}

const EOF_MARK = Buffer.from('%%EOF', 'latin1');

function isWhite(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

/** Reads `startxref <n>` ending right before `eofAt` (whitespace allowed), or undefined. */
function readStartxrefBefore(buf: Buffer, eofAt: number): number | undefined {
  let i = eofAt - 1;
  while (i >= 0 && isWhite(buf[i])) i--;
  const digitsEnd = i + 1;
  while (i >= 0 && isDigit(buf[i])) i--;
  const digitsStart = i + 1;
  if (digitsStart === digitsEnd || digitsEnd - digitsStart > 15) return undefined;
  while (i >= 0 && isWhite(buf[i])) i--;
  const keyword = 'startxref';
  if (i + 1 < keyword.length || buf.toString('latin1', i + 1 - keyword.length, i + 1) !== keyword) return undefined;
  return Number(buf.toString('latin1', digitsStart, digitsEnd));
}

/** Classifies what `startxref` points at, or undefined when it points at neither kind of xref section. */
function xrefKindAt(buf: Buffer, offset: number, limit: number): 'table' | 'stream' | undefined {
  if (offset < 0 || offset >= limit) return undefined;
  let i = offset;
  // Some writers are off by the end-of-line before the keyword; tolerate leading whitespace.
  while (i < limit && isWhite(buf[i])) i++;
  if (buf.toString('latin1', i, i + 4) === 'xref') return 'table';
  const head = buf.toString('latin1', i, Math.min(i + 32, limit));
  return /^\d+\s+\d+\s+obj\b/.test(head) ? 'stream' : undefined;
}

/**
 * Finds every revision of `pdf` in file order. Bytes after the last `%%EOF` are not a revision; callers compare
 * the last revision's `end` with the file length to notice them.
 *
 * @example
 * const revisions = findRevisions(bytes);
 * const original = bytes.subarray(0, revisions[0]!.end);
 */
export function findRevisions(pdf: Uint8Array): PdfRevision[] {
  const buf = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const revisions: PdfRevision[] = [];
  let start = 0;
  let from = 0;
  for (;;) {
    const at = buf.indexOf(EOF_MARK, from);
    if (at < 0) break;
    from = at + EOF_MARK.length;
    const startxref = readStartxrefBefore(buf, at);
    if (startxref === undefined) continue;
    const xrefKind = xrefKindAt(buf, startxref, at);
    if (xrefKind === undefined) continue;
    const eofEnd = at + EOF_MARK.length;
    let end = eofEnd;
    if (buf[end] === 0x0d) end++;
    if (buf[end] === 0x0a) end++;
    revisions.push({ index: revisions.length, start, eofEnd, end, startxref, xrefKind });
    start = end;
    from = end;
  }
  return revisions;
}

function isStructuralStream(object: PDFObject | undefined): boolean {
  if (!(object instanceof PDFStream)) return false;
  const type = object.dict.get(PDFName.of('Type'));
  return type === PDFName.of('XRef') || type === PDFName.of('ObjStm');
}

function refIn(view: XrefView, key: string): PDFRef | undefined {
  const value = view.trailer.get(PDFName.of(key));
  return value instanceof PDFRef ? value : undefined;
}

const OBJECT_DEFINITION = /(?:^|[\r\n])[ \t]*(\d+)[ \t\r\n]+(\d+)[ \t\r\n]+obj\b/g;

/**
 * A table with entries that are not exactly 20 bytes is rejected by some readers (PDFium), which rebuild it by
 * scanning the file for `N G obj` and take the last definition of each object. Lists the objects where that
 * reading differs from the table's.
 */
function rebuiltTableDisagreements(pdf: Uint8Array, revision: PdfRevision, view: XrefView): string[] {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, revision.end).toString('latin1');
  const last = new Map<number, number>();
  for (const m of text.matchAll(OBJECT_DEFINITION)) last.set(Number(m[1]), m.index! + m[0].length - m[0].trimStart().length);
  const out: string[] = [];
  for (const [n, entry] of view.entries) {
    if (entry.kind !== 'offset') continue;
    const scanned = last.get(n);
    if (scanned === undefined || scanned === entry.offset) continue;
    const fromTable = view.get(n);
    const fromScan = parseIndirectObjectAt(pdf, scanned, n)?.object;
    if (String(fromTable) === String(fromScan)) continue;
    out.push(`object ${n}: the xref table (with entries that are not 20 bytes long, which readers such as PDFium reject and rebuild by scanning) says offset ${entry.offset}, a rebuilt table finds its last definition at offset ${scanned}`);
  }
  return out;
}

/**
 * Reads every revision through its own cross-reference chain (tables, xref streams with predictors, hybrid
 * `/XRefStm`, `/Prev`, free entries, object streams) and compares each with the one before, object by object.
 * Throws PdfParseError `PDF_XREF_UNREADABLE` when the original's cross-reference data cannot be read; an
 * unreadable update is reported in its `inconsistencies` (and the update is then judged empty).
 */
export function readRevisionSections(pdf: Uint8Array, revisions: readonly PdfRevision[]): RevisionSection[] {
  const objectStreams = new ObjectStreamCache(pdf);
  const sectionCache = new Map<number, XrefSection>();
  const sections: RevisionSection[] = [];
  let previous: XrefView | undefined;
  for (const revision of revisions) {
    let view: XrefView;
    try {
      view = new XrefView(pdf, revision.startxref, objectStreams, sectionCache);
    } catch (error) {
      if (!previous) throw error;
      sections.push({
        revision,
        objects: new Map(),
        view: previous,
        root: undefined,
        info: undefined,
        encrypted: false,
        freed: [],
        inconsistencies: [`revision ${revision.index}: ${error instanceof Error ? error.message : String(error)}`],
        ambiguities: [],
      });
      continue;
    }
    const objectStreamAmbiguities = objectStreams.ambiguities.length;
    const objects = new Map<number, PDFObject>();
    const freed: number[] = [];
    const inconsistencies: string[] = [];
    for (const [n, entry] of view.entries) {
      if (entry.kind === 'free') continue;
      const key = view.keyOf(n);
      if (previous && previous.keyOf(n) === key) continue;
      const object = view.get(n);
      const where = entry.kind === 'offset' ? `offset ${entry.offset}` : `object stream ${entry.stream}, index ${entry.index}`;
      if (object === undefined) {
        // The object a reader looks for is not there: readers take it as null.
        if (previous?.has(n)) freed.push(n);
        inconsistencies.push(`the cross-reference entry of object ${n} points at ${where}, where object ${n} is not defined`);
        continue;
      }
      if (previous) {
        const storedAt = entry.kind === 'offset' ? entry.offset : view.entries.get(entry.stream)?.kind === 'offset' ? (view.entries.get(entry.stream) as { offset: number }).offset : -1;
        if (storedAt >= 0 && storedAt < revision.start) {
          // An honest update writes a replaced object into its own section; pointing back at bytes an earlier
          // revision already holds (but did not use) shows a definition that was hidden when the document was signed.
          inconsistencies.push(`object ${n}: the cross-reference section of revision ${revision.index} points at an older, hidden definition (${where}) instead of the one earlier revisions use`);
        } else if (storedAt >= revision.end) {
          inconsistencies.push(`object ${n}: the cross-reference section of revision ${revision.index} points past the end of the revision (${where})`);
        }
      }
      if (isStructuralStream(object) && (previous === undefined || previous.get(n) === undefined || isStructuralStream(previous.get(n)))) continue;
      objects.set(n, object);
    }
    if (previous) {
      for (const [n] of previous.entries) if (previous.has(n) && !view.has(n) && !freed.includes(n)) freed.push(n);
      if (revision.startxref < revision.start || revision.startxref >= revision.end) {
        inconsistencies.push(`revision ${revision.index}: its startxref points outside its own update section`);
      }
    }
    const encrypted = view.trailer.get(PDFName.of('Encrypt')) !== undefined;
    const ambiguities = [...view.ambiguities, ...objectStreams.ambiguities.slice(objectStreamAmbiguities)];
    if (view.malformedEntries > 0) ambiguities.push(...rebuiltTableDisagreements(pdf, revision, view));
    sections.push({ revision, objects, view, root: refIn(view, 'Root'), info: refIn(view, 'Info'), encrypted, freed, inconsistencies, ambiguities: ambiguities.map((a) => `revision ${revision.index}: ${a}`) });
    previous = view;
  }
  return sections;
}
