/**
 * Reads the end of a PDF: the last `startxref` offset and the cross-reference section it points at (a classic
 * table with its trailer, or a cross-reference stream), as an incremental update needs them (ISO 32000-2 §7.5.4,
 * §7.5.5, §7.5.6, §7.5.8). pdf-lib parses a file front to back and forgets these, so they are read here.
 */
import { PDFContext, PDFDict, PDFName, PDFNumber, PDFObjectParser, PDFRawStream } from './pdf-lib.js';
import { PdfParseError } from '../errors.js';

/** What the last cross-reference section of a PDF looks like. */
export interface PdfTail {
  /** The byte offset the file's last `startxref` names: the new section's `/Prev`. */
  readonly startxref: number;
  /** `table` for a classic `xref` table (also hybrid files, whose trailer has `/XRefStm`), `stream` for an xref stream. */
  readonly kind: 'table' | 'stream';
  /** The trailer dictionary (for an xref stream: the stream's dictionary). */
  readonly trailer: PDFDict;
  /** The trailer's `/Size`: one more than the highest object number the file uses. */
  readonly size: number;
  /** Whether the file's last byte is an end-of-line marker. */
  readonly endsWithEol: boolean;
}

const STARTXREF = bytesOf('startxref');
const XREF = bytesOf('xref');
const TRAILER = bytesOf('trailer');
/** How far from the end `startxref` may sit (ISO 32000 says 1024 bytes; some writers add junk, so allow more). */
const TAIL_WINDOW = 4096;

function bytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function matchesAt(bytes: Uint8Array, at: number, word: Uint8Array): boolean {
  if (at < 0 || at + word.length > bytes.length) return false;
  for (let i = 0; i < word.length; i++) if (bytes[at + i] !== word[i]) return false;
  return true;
}

function isWhite(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

function damaged(detail: string): PdfParseError {
  return new PdfParseError(
    'PDF_XREF_UNREADABLE',
    `Cannot append an update to this PDF: ${detail}. Repair it first (for example \`qpdf in.pdf out.pdf\`) and try again.`,
  );
}

/** Reads the unsigned integer at `at` (after skipping white space); returns it and the offset after it. */
function readInt(bytes: Uint8Array, at: number): { value: number; end: number } | undefined {
  let i = at;
  while (isWhite(bytes[i])) i++;
  const start = i;
  while (isDigit(bytes[i])) i++;
  if (i === start) return undefined;
  let value = 0;
  for (let j = start; j < i; j++) value = value * 10 + ((bytes[j] as number) - 0x30);
  return { value, end: i };
}

/**
 * Finds and reads the last cross-reference section of `bytes`. `context` is the pdf-lib context of the same file,
 * used to resolve an indirect `/Length` of an xref stream. Throws PdfParseError `PDF_XREF_UNREADABLE` when the
 * tail is damaged (no `startxref`, or it points at neither a table nor an xref stream).
 */
export function readPdfTail(bytes: Uint8Array, context: PDFContext): PdfTail {
  let keyword = -1;
  for (let i = bytes.length - STARTXREF.length; i >= Math.max(0, bytes.length - TAIL_WINDOW); i--) {
    if (matchesAt(bytes, i, STARTXREF)) {
      keyword = i;
      break;
    }
  }
  if (keyword < 0) throw damaged('no "startxref" near the end of the file');
  const offset = readInt(bytes, keyword + STARTXREF.length);
  if (!offset || offset.value >= bytes.length) throw damaged('"startxref" does not name an offset inside the file');
  const startxref = offset.value;
  const last = bytes[bytes.length - 1];
  const endsWithEol = last === 0x0a || last === 0x0d;

  let at = startxref;
  while (isWhite(bytes[at])) at++;
  if (matchesAt(bytes, at, XREF)) {
    // The table holds only digits, white space and n/f, so the first "trailer" after it is its trailer.
    let t = at + XREF.length;
    while (t < keyword && !matchesAt(bytes, t, TRAILER)) t++;
    if (t >= keyword) throw damaged(`the cross-reference table at offset ${startxref} has no trailer`);
    const trailer = PDFObjectParser.forBytes(bytes.subarray(t + TRAILER.length, keyword), context).parseObject();
    if (!(trailer instanceof PDFDict)) throw damaged(`the trailer after offset ${startxref} is not a dictionary`);
    return { startxref, kind: 'table', trailer, size: sizeOf(trailer), endsWithEol };
  }
  // An xref stream: "<num> <gen> obj" then the stream.
  const num = readInt(bytes, at);
  const gen = num && readInt(bytes, num.end);
  let objAt = gen ? gen.end : -1;
  while (objAt >= 0 && isWhite(bytes[objAt])) objAt++;
  if (!gen || !matchesAt(bytes, objAt, bytesOf('obj'))) {
    throw damaged(`"startxref" points at offset ${startxref}, where there is no cross-reference section`);
  }
  const stream = PDFObjectParser.forBytes(bytes.subarray(objAt + 3), context).parseObject();
  if (!(stream instanceof PDFRawStream) || stream.dict.get(PDFName.of('Type')) !== PDFName.of('XRef')) {
    throw damaged(`the object at offset ${startxref} is not a cross-reference stream`);
  }
  return { startxref, kind: 'stream', trailer: stream.dict, size: sizeOf(stream.dict), endsWithEol };
}

function sizeOf(trailer: PDFDict): number {
  const size = trailer.get(PDFName.of('Size'));
  if (!(size instanceof PDFNumber) || !Number.isInteger(size.asNumber()) || size.asNumber() < 1) {
    throw damaged('the trailer has no valid /Size');
  }
  return size.asNumber();
}
