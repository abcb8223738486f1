/**
 * One-shot worker thread of normalize-pdf.ts: the PDFium rewrite (pdfium-rewrite.ts) under the thread's heap limit.
 * Input `workerData: { bytes, encrypted }`; one reply `{ ok: true, bytes }` or `{ ok: false, code, message }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { rewriteWithPdfium } from './pdfium-rewrite.js';

interface Input {
  bytes: Uint8Array;
  encrypted: boolean;
}

const port = parentPort;
if (!port) throw new Error('normalize-worker must run as a worker thread');
const { bytes, encrypted } = workerData as Input;
void rewriteWithPdfium(bytes, encrypted).then((reply) => port.postMessage(reply, reply.ok ? [reply.bytes.buffer as ArrayBuffer] : []));
