/**
 * Incremental updates (ISO 32000-2 §7.5.6): append new and changed objects, a cross-reference section of the same
 * kind as the file's last one and a trailer with `/Prev`, leaving every original byte in place. This is how a
 * signed PDF is changed without breaking its signatures; pdf-lib's own `save()` rewrites the whole file and must
 * never be used on a document that may carry signatures.
 *
 * The file is parsed once (pdf-lib's object model); writing an update serializes only the objects it contains.
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
} from 'pdf-lib';
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
  const modified = new Map<string, PDFRef>();
  const session: PdfUpdateSession = {
    doc,
    original: pdf,
    markModified(ref: PDFRef): void {
      if (ref.objectNumber <= highestOriginal) modified.set(ref.tag, ref);
    },
  };
  states.set(session, { tail, highestOriginal, modified });
  return session;
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
  const { tail, highestOriginal, modified } = state;
  const context = session.doc.context;
  const original = session.original;

  const entries: Array<[PDFRef, PDFObject]> = [];
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (ref.objectNumber > highestOriginal || modified.has(ref.tag)) entries.push([ref, object]);
  }
  // enumerateIndirectObjects sorts by object number; cross-reference entries must ascend too.
  if (entries.length === 0) return { bytes: original, objectOffsets: new Map() };

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
  if (tail.kind === 'table') {
    const section = PDFCrossRefSection.createEmpty();
    for (const [ref] of entries) section.addEntry(ref, offsets.get(ref.objectNumber) as number);
    xrefPart = section;
    trailerPart = PDFTrailerDict.of(trailerValues(Math.max(tail.size, highestWritten + 1)));
  } else {
    const streamRef = PDFRef.of(Math.max(highestOriginal, highestWritten, context.largestObjectNumber) + 1);
    context.largestObjectNumber = Math.max(context.largestObjectNumber, streamRef.objectNumber);
    const stream = PDFCrossRefStream.of(trailerValues(Math.max(tail.size, streamRef.objectNumber + 1)), [], true);
    for (const [ref] of entries) stream.addUncompressedEntry(ref, offsets.get(ref.objectNumber) as number);
    stream.addUncompressedEntry(streamRef, xrefOffset);
    xrefStreamHeader = `${streamRef.objectNumber} 0${OBJ}`;
    xrefPart = stream;
    offsets.set(streamRef.objectNumber, xrefOffset);
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

/** The highest object number of the original file (objects above it are new). Exposed for tests and tooling. */
export function highestOriginalObjectNumber(session: PdfUpdateSession): number {
  const state = states.get(session);
  if (!state) throw new TypeError('highestOriginalObjectNumber needs a session opened with openPdfForUpdate');
  return state.highestOriginal;
}
