/**
 * Opening untrusted PDF bytes with pdf-lib, with every failure turned into a PdfParseError that says what is wrong.
 */
import { ParseSpeeds, PDFDocument } from './pdf-lib.js';
import { PdfParseError } from '../errors.js';
import { checkDeclaredObjects } from './declared-objects.js';
import { assertPdfBytes, hasPdfHeader } from './pdf-header.js';
import { withPdfLibQuiet } from './silence-pdf-lib.js';

export { hasPdfHeader };

/**
 * Parses `bytes` with pdf-lib without touching them (no metadata update), refusing what paraph cannot work on:
 * not a PDF, declaring more objects than `maxObjects` (checked on the raw bytes, before parsing), unreadable,
 * encrypted, or without pages.
 */
export async function loadPdf(bytes: Uint8Array, options: { readonly maxObjects?: number } = {}): Promise<PDFDocument> {
  assertPdfBytes(bytes);
  checkDeclaredObjects(bytes, options.maxObjects);
  let doc: PDFDocument;
  try {
    // Encryption is checked on the parsed document below: pdf-lib's own EncryptedPDFError does not survive
    // `instanceof` across its compiled module boundary. ParseSpeeds.Fastest: pdf-lib otherwise yields to a timer
    // every 100 objects, which costs 25–40% of the load time of a large file.
    doc = await withPdfLibQuiet(() =>
      PDFDocument.load(bytes, {
        updateMetadata: false,
        throwOnInvalidObject: false,
        ignoreEncryption: true,
        parseSpeed: ParseSpeeds.Fastest,
      }),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PdfParseError('PDF_UNREADABLE', `The PDF cannot be read (${reason}): it may be damaged or truncated.`, {
      cause: error,
    });
  }
  if (doc.isEncrypted) {
    throw new PdfParseError('PDF_ENCRYPTED', 'The PDF is encrypted: remove the password protection and upload it again.');
  }
  let pageCount: number;
  try {
    pageCount = doc.getPageCount();
  } catch (error) {
    throw new PdfParseError('PDF_UNREADABLE', 'The PDF has no readable page tree: it may be damaged or truncated.', {
      cause: error,
    });
  }
  if (pageCount === 0) throw new PdfParseError('PDF_NO_PAGES', 'The PDF has no pages: send a document with at least one page.');
  return doc;
}
