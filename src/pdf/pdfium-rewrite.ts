/**
 * The clean rewrite normalize-pdf.ts asks of PDFium: opens the document (empty user password), refuses it when it
 * needs a password or carries signatures, and otherwise writes a copy without encryption and with a fresh
 * cross-reference table. Runs wherever it is called: in normalize-pdf.ts's one-shot worker thread, or in the calling
 * thread of a process that is itself the sandbox (the service's PDF processes).
 */
import { copyIn, FPDF_ERR_PASSWORD, loadPdfium, saveCopy } from './pdfium.js';

/** The rewrite's answer: the new bytes, or the error code and message to refuse the document with. */
export type PdfiumRewrite = { ok: true; bytes: Uint8Array } | { ok: false; code: string; message: string };

/** Rewrites `bytes` with a PDFium instance of its own (its WebAssembly memory is freed with it). */
export async function rewriteWithPdfium(bytes: Uint8Array, encrypted: boolean): Promise<PdfiumRewrite> {
  try {
    return await rewrite(bytes, encrypted);
  } catch (error) {
    return { ok: false, code: 'PDF_UNREADABLE', message: `The PDF cannot be read (${error instanceof Error ? error.message : String(error)}).` };
  }
}

async function rewrite(bytes: Uint8Array, encrypted: boolean): Promise<PdfiumRewrite> {
  const pdfium = await loadPdfium();
  const ptr = copyIn(pdfium, bytes);
  const doc = pdfium.FPDF_LoadMemDocument(ptr, bytes.length, '');
  try {
    if (!doc) {
      return pdfium.FPDF_GetLastError() === FPDF_ERR_PASSWORD
        ? { ok: false, code: 'PDF_ENCRYPTED', message: 'The PDF is encrypted and needs a password to open it: open it with its password, save a copy without password protection, and upload that copy.' }
        : { ok: false, code: 'PDF_UNREADABLE', message: 'The PDF cannot be read, not even by repairing its cross-reference table: it is damaged or truncated.' };
    }
    if (pdfium.FPDF_GetSignatureCount(doc) > 0) {
      // A rewrite would break every signature, and an incremental update on this file is not possible either.
      return encrypted
        ? { ok: false, code: 'PDF_ENCRYPTED', message: 'The PDF is encrypted and already signed: paraph cannot add to it without breaking its signatures; ask for a copy signed without encryption.' }
        : { ok: false, code: 'PDF_DAMAGED_SIGNED', message: 'The PDF is already signed and its cross-reference table is damaged: repairing it would break its signatures; ask for an intact copy.' };
    }
    // The permissions of an owner password bind no reader that opens the file with the empty user password.
    if (encrypted && !pdfium.EPDF_RemoveEncryption(doc)) {
      return { ok: false, code: 'PDF_ENCRYPTED', message: 'The PDF is encrypted and its encryption cannot be removed: remove the protection and upload it again.' };
    }
    const out = saveCopy(pdfium, doc);
    if (!out) return { ok: false, code: 'PDF_UNREADABLE', message: 'The PDF cannot be rewritten: it is damaged.' };
    return { ok: true, bytes: out };
  } finally {
    if (doc) pdfium.FPDF_CloseDocument(doc);
    pdfium.pdfium.wasmExports.free(ptr);
  }
}
