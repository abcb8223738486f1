/**
 * Incremental updates (ISO 32000-2 §7.5.6): append new and changed objects, a cross-reference section of the same
 * kind as the file's last one and a trailer with `/Prev`, leaving every original byte in place. This is how a
 * signed PDF is changed without breaking its signatures; pdf-lib's own `save()` rewrites the whole file and must
 * never be used on a document that may carry signatures.
 *
 * The file is parsed once (pdf-lib's object model); writing an update serializes only the objects it contains.
 * Several updates can follow one another from that one parse ({@link continueUpdates}), e.g. one per signature.
 */
import {
  PDFArray,
  PDFCrossRefSection,
  PDFCrossRefStream,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFRef,
  PDFTrailer,
  PDFTrailerDict,
  type PDFObject,
} from './pdf-lib.js';
import { loadPdf } from './load-pdf.js';
import { readPdfTail, type PdfTail } from './pdf-tail.js';

/**
 * An open PDF being changed for one incremental update. Change `doc` with pdf-lib (new objects are found
 * automatically), and call `markModified` for every existing object you changed in place.
 */
export interface PdfUpdateSession {
  /** The parsed document; changes go here. */
  readonly doc: PDFDocument;
  /** The bytes the update is appended to; never modified. */
  readonly original: Uint8Array;
  /** Records that the existing object `ref` was changed and must be written in the update. */
  markModified(ref: PDFRef): void;
}

/** The result of {@link writeIncrementalUpdate}. */
export interface IncrementalUpdate {
  /** The original bytes followed by the update. */
  readonly bytes: Uint8Array;
  /** Object number → byte offset (in `bytes`) of every object written in the update. */
  readonly objectOffsets: ReadonlyMap<number, number>;
}

interface SessionState {
  readonly tail: PdfTail;
  /** Object numbers above this did not exist in the original and are always written. */
  readonly highestOriginal: number;
  /** Existing objects marked changed, keyed by `number generation`: a file may hold several generations of a number. */
  readonly modified: Map<string, PDFRef>;
  /**
   * After {@link continueUpdates}: every object as the earlier updates left it. An object pdf-lib replaced since
   * (`context.assign` on an existing number) is written too; objects changed in place still need `markModified`.
   */
  readonly known?: ReadonlyMap<string, PDFObject>;
  /** Set by {@link writeIncrementalUpdate}: the length of the file it produced and that file's tail. */
  written?: { readonly length: number; readonly tail: PdfTail };
}

const states = new WeakMap<PdfUpdateSession, SessionState>();

/**
 * Parses `pdf` (with {@link loadPdf}'s checks) and opens it for one incremental update.
 * Throws PdfParseError for what is not a usable PDF, `PDF_XREF_UNREADABLE` when its tail is damaged.
 */
export async function openPdfForUpdate(pdf: Uint8Array): Promise<PdfUpdateSession> {
  const doc = await loadPdf(pdf);
  const context = doc.context;
  const tail = readPdfTail(pdf, context);
  // New objects must not reuse numbers the file already accounts for (free entries, xref streams, object streams).
  const highestOriginal = Math.max(context.largestObjectNumber, tail.size - 1);
  context.largestObjectNumber = highestOriginal;
  return newSession(doc, pdf, { tail, highestOriginal, modified: new Map() });
}

function newSession(doc: PDFDocument, original: Uint8Array, state: SessionState): PdfUpdateSession {
  const { highestOriginal, modified } = state;
  const session: PdfUpdateSession = {
    doc,
    original,
    markModified(ref: PDFRef): void {
      if (ref.objectNumber <= highestOriginal) modified.set(ref.tag, ref);
    },
  };
  states.set(session, state);
  return session;
}

/**
 * The next incremental update of the same parsed document, without parsing again: `bytes` is what the last
 * {@link writeIncrementalUpdate} of `session` returned, in which placeholders may have been filled in place since
 * (a signature's /Contents and /ByteRange: same length). Everything written so far becomes the original of the
 * returned session; `session` itself is closed. Objects of the earlier updates that are changed in place must be
 * marked modified again.
 *
 * @throws TypeError when `session` wrote no update yet (or was closed), or `bytes` is not the length it wrote.
 */
export function continueUpdates(session: PdfUpdateSession, bytes: Uint8Array): PdfUpdateSession {
  const state = states.get(session);
  if (!state?.written) throw new TypeError('continueUpdates needs a session whose update was written with writeIncrementalUpdate');
  if (bytes.length !== state.written.length) {
    throw new TypeError(`continueUpdates: the update written was ${state.written.length} bytes, got ${bytes.length}`);
  }
  states.delete(session);
  const context = session.doc.context;
  const tail = state.written.tail;
  const highestOriginal = Math.max(context.largestObjectNumber, tail.size - 1);
  context.largestObjectNumber = highestOriginal;
  const known = new Map<string, PDFObject>();
  for (const [ref, object] of context.enumerateIndirectObjects()) known.set(ref.tag, object);
  return newSession(session.doc, bytes, { tail, highestOriginal, modified: new Map(), known });
}

const OBJ = ' obj\n';
const ENDOBJ = '\nendobj\n';

function writeAscii(text: string, buffer: Uint8Array, offset: number): number {
  for (let i = 0; i < text.length; i++) buffer[offset + i] = text.charCodeAt(i);
  return text.length;
}

/**
 * Appends one update holding the session's new objects and the existing ones marked modified, then a
 * cross-reference section (xref stream when the file's last section is one, else a classic table), a trailer with
 * `/Prev`, `/Size`, `/Root`, `/Info`, `/ID`, and `startxref`/`%%EOF`. The original bytes are an exact prefix of the
 * result. Objects are serialized with pdf-lib's `copyBytesInto(buffer, offset)` into the buffer of the whole
 * resulting file, so `offset` is an absolute file offset (the signature placeholder relies on this to record where
 * `/Contents` and `/ByteRange` land). An update with nothing to write returns the original bytes unchanged.
 */
export function writeIncrementalUpdate(session: PdfUpdateSession): IncrementalUpdate {
  const state = states.get(session);
  if (!state) throw new TypeError('writeIncrementalUpdate needs a session opened with openPdfForUpdate');
  const { tail, highestOriginal, modified, known } = state;
  const context = session.doc.context;
  const original = session.original;

  const entries: Array<[PDFRef, PDFObject]> = [];
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    const replaced = known !== undefined && known.get(ref.tag) !== object;
    if (ref.objectNumber > highestOriginal || modified.has(ref.tag) || replaced) entries.push([ref, object]);
  }
  // enumerateIndirectObjects sorts by object number; cross-reference entries must ascend too.
  if (entries.length === 0) {
    state.written = { length: original.length, tail };
    return { bytes: original, objectOffsets: new Map() };
  }

  const base = original.length + (tail.endsWithEol ? 0 : 1);
  const headers = entries.map(([ref]) => `${ref.objectNumber} ${ref.generationNumber}${OBJ}`);
  let size = base;
  const offsets = new Map<number, number>();
  entries.forEach(([ref, object], i) => {
    offsets.set(ref.objectNumber, size);
    size += (headers[i] as string).length + object.sizeInBytes() + ENDOBJ.length;
  });
  const xrefOffset = size;
  const highestWritten = entries.length > 0 ? (entries[entries.length - 1] as [PDFRef, PDFObject])[0].objectNumber : 0;

  const trailerValues = (newSize: number): PDFDict => {
    const dict = context.obj({ Size: newSize, Prev: tail.startxref }) as PDFDict;
    // The trailer the update continues is the one its /Prev names; pdf-lib's trailerInfo only fills gaps.
    const parsed = context.trailerInfo;
    const carried = { Root: parsed.Root, Info: parsed.Info, ID: parsed.ID };
    for (const key of ['Root', 'Info', 'ID'] as const) {
      const value = tail.trailer.get(PDFName.of(key)) ?? carried[key];
      if (value) dict.set(PDFName.of(key), value);
    }
    return dict;
  };

  let xrefPart: { sizeInBytes(): number; copyBytesInto(buffer: Uint8Array, offset: number): number };
  let trailerPart: PDFTrailerDict | undefined;
  let xrefStreamHeader = '';
  let nextTail: PdfTail;
  if (tail.kind === 'table') {
    const section = PDFCrossRefSection.createEmpty();
    for (const [ref] of entries) section.addEntry(ref, offsets.get(ref.objectNumber) as number);
    xrefPart = section;
    const newSize = Math.max(tail.size, highestWritten + 1);
    const trailer = trailerValues(newSize);
    trailerPart = PDFTrailerDict.of(trailer);
    nextTail = { startxref: xrefOffset, kind: 'table', trailer, size: newSize, endsWithEol: true };
  } else {
    const streamRef = PDFRef.of(Math.max(highestOriginal, highestWritten, context.largestObjectNumber) + 1);
    context.largestObjectNumber = Math.max(context.largestObjectNumber, streamRef.objectNumber);
    const newSize = Math.max(tail.size, streamRef.objectNumber + 1);
    const trailer = trailerValues(newSize);
    const stream = PDFCrossRefStream.of(trailer, [], true);
    for (const [ref] of entries) stream.addUncompressedEntry(ref, offsets.get(ref.objectNumber) as number);
    stream.addUncompressedEntry(streamRef, xrefOffset);
    xrefStreamHeader = `${streamRef.objectNumber} 0${OBJ}`;
    xrefPart = stream;
    offsets.set(streamRef.objectNumber, xrefOffset);
    nextTail = { startxref: xrefOffset, kind: 'stream', trailer, size: newSize, endsWithEol: true };
  }

  const startxref = PDFTrailer.forLastCrossRefSectionOffset(xrefOffset);
  size += xrefStreamHeader.length + xrefPart.sizeInBytes() + (xrefStreamHeader ? ENDOBJ.length : 1);
  if (trailerPart) size += trailerPart.sizeInBytes() + 1;
  size += startxref.sizeInBytes() + 1;

  const buffer = new Uint8Array(size);
  buffer.set(original, 0);
  let at = original.length;
  if (!tail.endsWithEol) buffer[at++] = 0x0a;
  entries.forEach(([, object], i) => {
    at += writeAscii(headers[i] as string, buffer, at);
    at += object.copyBytesInto(buffer, at);
    at += writeAscii(ENDOBJ, buffer, at);
  });
  if (xrefStreamHeader) {
    at += writeAscii(xrefStreamHeader, buffer, at);
    at += xrefPart.copyBytesInto(buffer, at);
    at += writeAscii(ENDOBJ, buffer, at);
  } else {
    at += xrefPart.copyBytesInto(buffer, at);
    buffer[at++] = 0x0a;
  }
  if (trailerPart) {
    at += trailerPart.copyBytesInto(buffer, at);
    buffer[at++] = 0x0a;
  }
  at += startxref.copyBytesInto(buffer, at);
  buffer[at++] = 0x0a;
  if (at !== size) throw new Error(`incremental writer computed ${size} bytes but wrote ${at}`);
  state.written = { length: size, tail: nextTail };
  return { bytes: buffer, objectOffsets: offsets };
}

/**
 * Adds `annotRef` to the `/Annots` of the page `pageRef` and marks what changed (the page, or its `/Annots` array
 * when that is an indirect object). Use this instead of pdf-lib's `PDFPageLeaf.addAnnot`, which "normalizes" the
 * page first: it wraps the page's content streams in q/Q streams, a content change that validators flag after a
 * signature.
 */
export function appendPageAnnotation(session: PdfUpdateSession, pageRef: PDFRef, annotRef: PDFRef): void {
  const context = session.doc.context;
  const page = context.lookup(pageRef, PDFDict);
  const annots = page.get(PDFName.of('Annots'));
  if (annots instanceof PDFRef) {
    const array = context.lookup(annots);
    if (array instanceof PDFArray) {
      array.push(annotRef);
      session.markModified(annots);
      return;
    }
  } else if (annots instanceof PDFArray) {
    annots.push(annotRef);
    session.markModified(pageRef);
    return;
  }
  page.set(PDFName.of('Annots'), context.obj([annotRef]));
  session.markModified(pageRef);
}
