/**
 * One-shot worker thread of normalize-pdf.ts: opens the document with PDFium (empty user password), refuses it when
 * it needs a password or carries signatures, and otherwise writes a clean copy without
 * encryption and with a fresh cross-reference table. Input `workerData: { bytes, encrypted }`; one reply
 * `{ ok: true, bytes }` or `{ ok: false, code, message }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { copyIn, FPDF_ERR_PASSWORD, loadPdfium, saveCopy } from './pdfium.js';

interface Input {
  bytes: Uint8Array;
  encrypted: boolean;
}

type Reply = { ok: true; bytes: Uint8Array } | { ok: false; code: string; message: string };

async function normalize({ bytes, encrypted }: Input): Promise<Reply> {
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

const port = parentPort;
if (!port) throw new Error('normalize-worker must run as a worker thread');
normalize(workerData as Input).then(
  (reply) => port.postMessage(reply, reply.ok ? [reply.bytes.buffer as ArrayBuffer] : []),
  (error: unknown) => port.postMessage({ ok: false, code: 'PDF_UNREADABLE', message: `The PDF cannot be read (${error instanceof Error ? error.message : String(error)}).` }),
);
