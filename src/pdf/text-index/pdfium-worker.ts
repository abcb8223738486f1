/**
 * Worker thread of the PDFium text engine (text-index/pdfium-host.ts): loads PDFium once, then for each
 * `extract {bytes, job, textPages, queries, keepText, maxPages, share}` replies `opened {numPages}`, one `page` message
 * per page of its share (its geometry, its text when `keepText`, the matches of `queries` on it, or `needsPdfjs`
 * when PDFium cannot read it as pdf.js does, or its text and `readPoorly` when PDFium read it poorly) and `done` | `error`. Every reply
 * carries the job's number. The host ends the thread when a budget is exceeded: PDFium cannot be interrupted.
 */
import { parentPort } from 'node:worker_threads';
import type { ExtractedText } from './builder.js';
import { loadPdfium } from '../pdfium.js';
import { extractPdfiumDocument, pdfiumFailure } from './pdfium-extract.js';
import { type PageFound, SearchBudget, searchPage, type TextQuery } from './search.js';

interface ExtractMessage {
  type: 'extract';
  bytes: Uint8Array;
  job: number;
  textPages: number[] | null;
  queries: TextQuery[];
  keepText: boolean;
  maxPages: number;
  share: { of: number; index: number };
}

const port = parentPort;
if (!port) throw new Error('text-index-pdfium-worker must run as a worker thread');
const pdfium = await loadPdfium();

port.on('message', (message: ExtractMessage) => {
  const { job, queries, keepText } = message;
  // This thread's pages come in page order: it keeps the boxes of at most `keep` matches per query in all of them.
  const budget = new SearchBudget(queries);
  try {
    extractPdfiumDocument(pdfium, message.bytes, message.textPages ? new Set(message.textPages) : undefined, {
      opened: (numPages) => {
        port.postMessage({ type: 'opened', job, numPages });
        return numPages <= message.maxPages;
      },
      page: (geo, text, needsPdfjs, readPoorly) => {
        if (needsPdfjs) {
          port.postMessage({ type: 'page', job, geo, needsPdfjs });
          return;
        }
        if (readPoorly && text) {
          // Not searched here: the host reads the page again with pdf.js, and searches this text only if that fails.
          const transfer = [text.boxes.buffer as ArrayBuffer, text.signature.buffer as ArrayBuffer, text.compactSignature.buffer as ArrayBuffer];
          port.postMessage({ type: 'page', job, geo, text, readPoorly }, transfer);
          return;
        }
        const found: PageFound[] | undefined =
          text && queries.length > 0 ? searchPage(text.pageNumber, text.text, text.boxes, queries, budget) : undefined;
        const kept: ExtractedText | undefined = keepText ? text : undefined;
        const transfer = kept ? [kept.boxes.buffer as ArrayBuffer, kept.signature.buffer as ArrayBuffer, kept.compactSignature.buffer as ArrayBuffer] : [];
        port.postMessage({ type: 'page', job, geo, text: kept, found }, transfer);
      },
    }, undefined, message.share);
    port.postMessage({ type: 'done', job });
  } catch (error) {
    port.postMessage({ type: 'error', job, failure: pdfiumFailure(error) });
  }
});
port.postMessage({ type: 'ready' });
