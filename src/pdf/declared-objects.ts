/**
 * The number of objects a PDF declares, read from its raw bytes before any parser builds them: the largest `/Size`
 * of its trailers and cross-reference streams, and the `/N` of its object streams. A few MB of compressed object
 * streams can hold millions of tiny objects, and a parser that builds every object it finds (pdf-lib does) needs
 * hundreds of bytes of memory for each: such a document is refused before it is parsed, naming the count.
 */
import { PdfParseError } from '../errors.js';

/**
 * Most objects paraph parses in one document (largest trailer `/Size`, or all object streams' `/N` together). A long
 * real document (thousands of pages) declares a few hundred thousand; parsing a million tiny ones takes pdf-lib
 * about 350 MB of heap.
 */
export const DEFAULT_MAX_PDF_OBJECTS = 1_000_000;

/** What {@link declaredObjects} read. */
export interface DeclaredObjects {
  /** The largest integer `/Size` (trailers, cross-reference streams); 0 when there is none. */
  readonly size: number;
  /** The object streams' `/N` added up. */
  readonly inObjectStreams: number;
  /** How many object streams there are. */
  readonly objectStreams: number;
}

/** Reads the declared counts; a number too large for a double still counts as larger than any limit. */
export function declaredObjects(pdf: Uint8Array): DeclaredObjects {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  let size = 0;
  for (const m of text.matchAll(/\/Size[\s\0]+(\d+)(?!\d)(?![\s\0]+\d+[\s\0]+R\b)/g)) {
    if (inCrossReferenceDictionary(text, m.index)) size = Math.max(size, Number(m[1]));
  }
  let inObjectStreams = 0;
  let objectStreams = 0;
  for (const m of text.matchAll(/\/Type[\s\0]*\/ObjStm\b/g)) {
    objectStreams++;
    inObjectStreams += objectStreamCount(text, m.index);
  }
  return { size, inObjectStreams, objectStreams };
}

/**
 * Whether the `/Size` at `at` is a trailer's or a cross-reference stream's: other dictionaries have a `/Size` of their
 * own (an embedded file's `/Params`, a sampled function), which counts bytes or samples, not objects.
 */
function inCrossReferenceDictionary(text: string, at: number): boolean {
  const trailer = text.lastIndexOf('trailer', at);
  const obj = text.lastIndexOf('obj', at);
  if (trailer > obj && at - trailer <= 4096) return true;
  if (obj === -1 || at - obj > 4096) return false;
  const stream = text.indexOf('stream', at);
  const end = stream === -1 ? Math.min(text.length, at + 4096) : Math.min(stream, at + 4096);
  return /\/Type[\s\0]*\/XRef\b/.test(text.slice(obj, end));
}

/** The `/N` of the object stream dictionary around `at`: between its `obj` keyword and its `stream` keyword. */
function objectStreamCount(text: string, at: number): number {
  const start = Math.max(text.lastIndexOf('obj', at), at - 4096, 0);
  const stream = text.indexOf('stream', at);
  const end = stream === -1 ? Math.min(text.length, at + 4096) : Math.min(stream, at + 4096);
  const n = /\/N[\s\0]+(\d+)(?!\d)(?![\s\0]+\d+[\s\0]+R\b)/.exec(text.slice(start, end));
  return n ? Number(n[1]) : 0;
}

/**
 * Refuses `pdf` when it declares more than `maxObjects` objects.
 *
 * @throws PdfParseError `PDF_TOO_MANY_OBJECTS`, naming the count and the limit.
 */
export function checkDeclaredObjects(pdf: Uint8Array, maxObjects = DEFAULT_MAX_PDF_OBJECTS): void {
  const declared = declaredObjects(pdf);
  const count = Math.max(declared.size, declared.inObjectStreams);
  if (count <= maxObjects) return;
  const parts: string[] = [];
  if (declared.size > 0) parts.push(`cross-reference /Size ${format(declared.size)}`);
  if (declared.objectStreams > 0) {
    parts.push(`${declared.objectStreams === 1 ? 'an object stream' : `${declared.objectStreams} object streams`} holding ${format(declared.inObjectStreams)}`);
  }
  throw new PdfParseError(
    'PDF_TOO_MANY_OBJECTS',
    `The PDF declares ${format(count)} objects (${parts.join('; ')}); paraph reads at most ${format(maxObjects)}: simplify the document, e.g. print it to a new PDF, and upload it again.`,
  );
}

function format(n: number): string {
  return Number.isSafeInteger(n) ? n.toLocaleString('en-US') : 'more than 9,007,199,254,740,991';
}
