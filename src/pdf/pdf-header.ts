/**
 * Whether bytes are a PDF at all: the one check, made where a job takes its bytes (loading, text extraction in either
 * engine). No parser needed: the text engines' worker threads check it without pdf-lib.
 */
import { PdfParseError } from '../errors.js';

const HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

/** True when `%PDF-` appears within the first 1024 bytes, as ISO 32000 readers accept. */
export function hasPdfHeader(bytes: Uint8Array): boolean {
  const limit = Math.min(bytes.length - HEADER.length, 1024);
  outer: for (let i = 0; i <= limit; i++) {
    for (let j = 0; j < HEADER.length; j++) if (bytes[i + j] !== HEADER[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Refuses, cheaply, what is no PDF at all.
 *
 * @throws PdfParseError `PDF_EMPTY` for no bytes, `PDF_NOT_A_PDF` without a `%PDF-` header.
 */
export function assertPdfBytes(bytes: Uint8Array): void {
  if (bytes.length === 0) throw new PdfParseError('PDF_EMPTY', 'The file is empty: send the bytes of a PDF document.');
  if (!hasPdfHeader(bytes)) throw new PdfParseError('PDF_NOT_A_PDF', 'The file is not a PDF (no "%PDF-" header): send a PDF document.');
}
