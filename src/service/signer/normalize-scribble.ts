/**
 * Runs {@link normalizeScribblePng} away from the serving process: the drawn signature is decoded and re-encoded in
 * one of the PDF processes (pdf-work.ts), under their V8 heap cap, resident-memory watchdog and a time budget. A
 * process, unlike a worker thread, can run out of memory without taking the service with it. The buffers the decode
 * allocates are bounded by the scribble's checked header (at most {@link SCRIBBLE_LIMITS} pixels); a decode that
 * needs more memory or time than that is stopped and the scribble refused.
 */
import { ParaphError } from '../../errors.js';
import { runPdfJob, type PdfWorkLimits } from '../pdf-jobs/pdf-work.js';
import { ServiceError } from '../service-error.js';
import { readPngHeader, SCRIBBLE_LIMITS, type NormalizedScribble } from './scribble-image.js';

/** The decoding process's limits: a 2-million-pixel scribble needs about 8 MB of pixels and little heap. */
const SCRIBBLE_WORK_LIMITS: PdfWorkLimits = { maxHeapMb: 64, baseMs: 10_000, perPageMs: 0 };

/**
 * Checks the scribble's header here (it costs nothing and refuses a bomb before any process is involved), then
 * decodes and re-encodes it in a PDF process.
 *
 * @throws ServiceError `SCRIBBLE_INVALID` (400) saying what is wrong, or when decoding it needs more memory or time
 *   than a drawn signature can.
 */
export async function normalizeScribble(png: Uint8Array, limits: PdfWorkLimits = SCRIBBLE_WORK_LIMITS): Promise<NormalizedScribble> {
  readPngHeader(png);
  try {
    return await runPdfJob({ kind: 'scribble', bytes: png }, limits);
  } catch (error) {
    if (error instanceof ParaphError && error.code === 'SCRIBBLE_INVALID') throw new ServiceError('SCRIBBLE_INVALID', error.message);
    if (error instanceof ParaphError && error.code === 'PDF_TOO_COMPLEX') {
      throw new ServiceError(
        'SCRIBBLE_INVALID',
        `Image: decoding the drawn signature needs more memory or time than a drawing of at most ${SCRIBBLE_LIMITS.maxWidth}×${SCRIBBLE_LIMITS.maxHeight} pixels; send a plain PNG image.`,
      );
    }
    throw error;
  }
}
