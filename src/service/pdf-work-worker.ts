/**
 * Worker thread of pdf-work.ts: runs the service's pdf-lib steps (opening and normalizing an upload, checking
 * placements, writing the fields) away from the serving thread, one job at a time. A thread is reused for the next
 * job; the host ends it when a job passes its time budget and the thread's heap cap ends it when it needs more.
 *
 * Protocol: `ready` once loaded; then `{ id, job }` → `{ id, ok: true, result }` | `{ id, ok: false, error }`.
 */
import { parentPort } from 'node:worker_threads';
import { ParaphError, ValidationError } from '../errors.js';
import { documentFacts } from '../pdf/document-facts.js';
import { loadPdf } from '../pdf/load-pdf.js';
import { normalizePdf } from '../pdf/normalize-pdf.js';
import { checkPlacements, placeFields } from '../pdf/place-fields.js';
import type { PdfJob, PdfJobError, PdfJobReply } from './pdf-work-protocol.js';

const port = parentPort;
if (!port) throw new Error('pdf-work-worker must run as a worker thread');

async function run(job: PdfJob): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  switch (job.kind) {
    case 'open': {
      const normalized = await normalizePdf(job.bytes, { timeoutMs: job.normalizeMs });
      const pageCount = normalized.doc.getPageCount();
      // Past the page limit the upload is refused: reading every page would only cost time.
      const opened = pageCount > (job.maxPages ?? Infinity) ? { pageCount } : { pageCount, facts: documentFacts(normalized.doc) };
      if (!normalized.normalization) return { result: opened, transfer: [] };
      const bytes = normalized.bytes;
      return { result: { ...opened, bytes, normalization: normalized.normalization }, transfer: [bytes.buffer as ArrayBuffer] };
    }
    case 'facts':
      return { result: documentFacts(await loadPdf(job.bytes)), transfer: [] };
    case 'check':
      checkPlacements(await loadPdf(job.bytes), job.placements, { pages: job.pages });
      return { result: {}, transfer: [] };
    case 'place': {
      const { bytes } = await placeFields(job.bytes, job.placements, job.pages ? { pages: job.pages } : {});
      return { result: { bytes }, transfer: [bytes.buffer as ArrayBuffer] };
    }
  }
}

/** The error as plain data the host turns back into the same typed error. */
function serialize(error: unknown): PdfJobError {
  if (error instanceof ValidationError) return { kind: 'validation', code: error.code, message: error.message, issues: [...error.issues] };
  if (error instanceof ParaphError) {
    const kind = error.name === 'PlacementError' ? 'placement' : error.name === 'PdfParseError' || error.name === 'PdfTooComplexError' ? 'parse' : 'paraph';
    return { kind, code: error.code, message: error.message, origin: error.origin };
  }
  return { kind: 'internal', message: error instanceof Error ? error.message : String(error) };
}

port.on('message', ({ id, job }: { id: number; job: PdfJob }) => {
  run(job).then(
    ({ result, transfer }) => port.postMessage({ id, ok: true, result } satisfies PdfJobReply, transfer),
    (error: unknown) => port.postMessage({ id, ok: false, error: serialize(error) } satisfies PdfJobReply),
  );
});
port.postMessage({ ready: true });
