/**
 * The revisions of a PDF file: where each incremental update ends (ISO 32000-2 §7.5.6, "Incremental updates") and
 * which objects each update section defines. Verification (src/pades/verify.ts) uses the boundaries to tell which
 * revision a signature covers, and the per-section objects to judge what changed after it.
 *
 * A revision ends after a `startxref <offset> %%EOF` trailer whose offset points at a cross-reference section
 * (`xref` table or an `N G obj` xref stream) before it. That check skips `%%EOF` markers inside streams, e.g. an
 * embedded PDF attachment, whose `startxref` offsets are relative to the embedded file.
 */
import { PDFContext, PDFName, PDFObjectParser, PDFParser, PDFRawStream, PDFRef, PDFStream, PDFXRefStreamParser, type PDFObject } from 'pdf-lib';

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
  readonly objects: ReadonlyMap<number, PDFObject>;
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

/** What a cross-reference section says: offsets of objects stored directly in the file, and freed objects. */
interface XrefSection {
  readonly offsets: Map<number, number>;
  readonly freed: number[];
}

/** Reads the classic xref table at `offset` (all subsections), or undefined when there is none. */
function readXrefTable(buf: Buffer, offset: number, limit: number): XrefSection | undefined {
  const text = buf.toString('latin1', offset, limit);
  const head = /^\s*xref\s*/.exec(text);
  if (!head) return undefined;
  const section: XrefSection = { offsets: new Map(), freed: [] };
  let pos = head[0].length;
  const subsectionRe = /^(\d+)[ \t]+(\d+)[ \t]*\r?\n?/;
  const entryRe = /^\s*(\d{10})[ \t](\d{5})[ \t]([fn])/;
  for (;;) {
    const sub = subsectionRe.exec(text.slice(pos, pos + 40));
    if (!sub) return section;
    const first = Number(sub[1]);
    const count = Number(sub[2]);
    pos += sub[0].length;
    for (let k = 0; k < count; k++) {
      const entry = entryRe.exec(text.slice(pos, pos + 24));
      if (!entry) return section;
      pos += entry[0].length;
      const objectNumber = first + k;
      if (objectNumber === 0) continue;
      if (entry[3] === 'f') section.freed.push(objectNumber);
      else section.offsets.set(objectNumber, Number(entry[1]));
    }
    while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  }
}

const OBJECT_HEADER = /^\s*(\d+)\s+(\d+)\s+obj\b/;

/** Parses the indirect object `N G obj … ` at `offset`; undefined when there is no object `expected` there. */
function parseObjectAt(pdf: Uint8Array, offset: number, limit: number, expected?: number): PDFObject | undefined {
  if (offset < 0 || offset >= limit) return undefined;
  const head = OBJECT_HEADER.exec(Buffer.from(pdf.buffer, pdf.byteOffset + offset, Math.min(48, limit - offset)).toString('latin1'));
  if (!head || (expected !== undefined && Number(head[1]) !== expected)) return undefined;
  try {
    return PDFObjectParser.forBytes(pdf.subarray(offset + head[0].length, limit), PDFContext.create()).parseObject();
  } catch {
    return undefined;
  }
}

/** Reads the xref stream at `offset`, or undefined when it cannot be read. */
function readXrefStream(pdf: Uint8Array, offset: number, limit: number): XrefSection | undefined {
  const object = parseObjectAt(pdf, offset, limit);
  if (!(object instanceof PDFRawStream)) return undefined;
  try {
    const section: XrefSection = { offsets: new Map(), freed: [] };
    for (const entry of PDFXRefStreamParser.forStream(object).parseIntoContext()) {
      const n = entry.ref.objectNumber;
      if (n === 0) continue;
      if (entry.deleted) section.freed.push(n);
      else if (!entry.inObjectStream) section.offsets.set(n, entry.offset);
    }
    return section;
  } catch {
    return undefined;
  }
}

function sameObject(a: PDFObject, b: PDFObject): boolean {
  if (a instanceof PDFStream && b instanceof PDFStream) {
    return a.dict.toString() === b.dict.toString() && Buffer.from(a.getContents()).equals(Buffer.from(b.getContents()));
  }
  return a.constructor === b.constructor && a.toString() === b.toString();
}

function isStructuralStream(object: PDFObject): boolean {
  if (!(object instanceof PDFStream)) return false;
  const type = object.dict.get(PDFName.of('Type'));
  return type === PDFName.of('XRef') || type === PDFName.of('ObjStm');
}

/**
 * Makes `objects` (from the linear parse of an update) agree with what a reader sees, which follows the
 * cross-reference offsets: an entry pointing at another definition than the last one in the section (or into an
 * earlier revision) wins, and every disagreement is reported, since an honest writer produces none.
 */
function reconcileWithXref(pdf: Uint8Array, revision: PdfRevision, xref: XrefSection, objects: Map<number, PDFObject>): string[] {
  const inconsistencies: string[] = [];
  const sectionText = Buffer.from(pdf.buffer, pdf.byteOffset + revision.start, revision.end - revision.start).toString('latin1');
  for (const [n, offset] of xref.offsets) {
    // The common case, cheaply: the entry points at the section's only (hence last) definition of the object,
    // which the linear parse already read. Parsing it again would cost as much as the first time (a signature
    // dictionary holds tens of kilobytes of hex).
    if (offset >= revision.start && objects.has(n)) {
      const head = OBJECT_HEADER.exec(sectionText.slice(offset - revision.start, offset - revision.start + 48));
      const later = new RegExp(`(?:^|[^0-9])${n}\\s+\\d+\\s+obj\\b`, 'g');
      later.lastIndex = offset - revision.start + (head?.[0].length ?? 0);
      if (head && Number(head[1]) === n && !later.test(sectionText)) continue;
    }
    const atOffset = parseObjectAt(pdf, offset, revision.end, n);
    if (atOffset === undefined) {
      inconsistencies.push(`the cross-reference entry of object ${n} points at offset ${offset}, where object ${n} is not defined`);
      continue;
    }
    if (isStructuralStream(atOffset)) continue;
    const linear = objects.get(n);
    if (linear !== undefined && sameObject(linear, atOffset)) continue;
    if (linear !== undefined && offset >= revision.start) {
      inconsistencies.push(`object ${n} is defined more than once; the cross-reference section points at another definition than the last`);
    }
    objects.set(n, atOffset);
  }
  return inconsistencies;
}

const SECTION_HEADER = Buffer.from('%PDF-1.7\n', 'latin1');

/**
 * Parses the objects one revision's update section defines, with pdf-lib's parser over just those bytes (objects
 * in object streams included; the xref streams and object streams themselves are not listed). Each section is
 * parsed once, so a caller that walks all revisions reads the file once in total.
 */
export async function parseRevisionSection(pdf: Uint8Array, revision: PdfRevision): Promise<RevisionSection> {
  const body = pdf.subarray(revision.start, revision.end);
  const bytes = revision.start === 0 ? body : Buffer.concat([SECTION_HEADER, body]);
  const parser = PDFParser.forBytesWithOptions(bytes, Infinity, false);
  const context = await parser.parseDocument();
  const objects = new Map<number, PDFObject>();
  for (const [ref, object] of context.enumerateIndirectObjects()) objects.set(ref.objectNumber, object);
  const root = context.trailerInfo.Root instanceof PDFRef ? context.trailerInfo.Root : undefined;
  const info = context.trailerInfo.Info instanceof PDFRef ? context.trailerInfo.Info : undefined;
  // Updates are read as a reader would: their xref section decides which definition counts and what is freed
  // (pdf-lib's parser goes linearly and ignores free entries). The original's internal consistency is the signer's.
  let freed: number[] = [];
  const inconsistencies: string[] = [];
  if (revision.index > 0) {
    const xref =
      revision.xrefKind === 'table'
        ? readXrefTable(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength), revision.startxref, revision.eofEnd)
        : readXrefStream(pdf, revision.startxref, revision.eofEnd);
    if (xref) {
      freed = xref.freed;
      inconsistencies.push(...reconcileWithXref(pdf, revision, xref, objects));
    } else inconsistencies.push(`the cross-reference section at offset ${revision.startxref} cannot be read`);
  }
  const encrypted = context.trailerInfo.Encrypt !== undefined;
  return { revision, objects, root, info, encrypted, freed, inconsistencies };
}
