/**
 * Child process of pdf-work.ts: runs the service's untrusted-input steps (opening and normalizing an upload, checking
 * placements, writing the fields, decoding a signer's scribble) away from the serving process, one job at a time. A
 * process is reused for the next job; the host ends it when a job passes its time budget or its memory cap, and V8
 * ends it when its heap runs out.
 *
 * Protocol (IPC, advanced serialization): `ready` once loaded; then `{ id, job }` → `{ id, ok: true, result }` |
 * `{ id, ok: false, error }`.
 */
import { ParaphError, ValidationError } from '../errors.js';
import { documentFacts } from '../pdf/document-facts.js';
import { loadPdf } from '../pdf/load-pdf.js';
import { normalizePdf, rewritePdf } from '../pdf/normalize-pdf.js';
import { checkPlacements, defaultFieldLabel, placeFields } from '../pdf/place-fields.js';
import type { FieldPlacement } from '../pdf/resolve-locations.js';
import type { PdfJob, PdfJobError, PdfJobMessage, PdfJobReply } from './pdf-work-protocol.js';
import { startPdfProcessSpan } from './pdf-work-span.js';
import { normalizeScribblePng } from './signer/scribble-image.js';

const send = process.send?.bind(process);
if (!send) throw new Error('pdf-work-worker must run as a child process with an IPC channel');

async function run(job: PdfJob): Promise<unknown> {
  switch (job.kind) {
    case 'open': {
      const normalized = await normalizePdf(job.bytes, { timeoutMs: job.normalizeMs });
      const pageCount = normalized.doc.getPageCount();
      // Past the page limit the upload is refused: reading every page would only cost time.
      const opened = pageCount > (job.maxPages ?? Infinity) ? { pageCount } : { pageCount, facts: documentFacts(normalized.doc) };
      if (!normalized.normalization) return opened;
      return { ...opened, bytes: normalized.bytes, normalization: normalized.normalization };
    }
    case 'facts':
      return documentFacts(await loadPdf(job.bytes));
    case 'check':
      checkPlacements(await loadPdf(job.bytes), job.placements, { pages: job.pages });
      return {};
    case 'rewrite':
      return { bytes: await rewritePdf(job.bytes, { timeoutMs: job.timeoutMs }) };
    case 'place': {
      const labels = job.labels;
      const { bytes } = await placeFields(job.bytes, job.placements, {
        ...(job.pages ? { pages: job.pages } : {}),
        ...(labels ? { label: (p: FieldPlacement) => labels[p.field] ?? defaultFieldLabel(p) } : {}),
      });
      return { bytes };
    }
    case 'scribble':
      return normalizeScribblePng(job.bytes);
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

process.on('message', ({ id, job, traceparent }: PdfJobMessage) => {
  const span = startPdfProcessSpan(traceparent, `pdf.work ${job.kind}`, { 'paraph.pdf_job.kind': job.kind, 'process.pid': process.pid });
  run(job).then(
    (result) => send({ id, ok: true, result, ...(span ? { span: span.end() } : {}) } satisfies PdfJobReply),
    (error: unknown) => send({ id, ok: false, error: serialize(error), ...(span ? { span: span.end(error) } : {}) } satisfies PdfJobReply),
  );
});
// The host is gone (or ended the channel): nothing is left to do.
process.on('disconnect', () => process.exit(0));
send({ ready: true });
