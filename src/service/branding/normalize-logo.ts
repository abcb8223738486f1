/**
 * Runs `normalizeLogo` (logo-image.ts) away from the serving process, in one of the PDF processes (pdf-work.ts) under their V8
 * heap cap, resident-memory watchdog and a time budget, as a drawn scribble is. The header is checked here first (it
 * costs nothing and refuses a bomb or a file of the wrong kind before a process is involved).
 */
import { ParaphError } from '../../errors.js';
import { runPdfJob, type PdfWorkLimits } from '../pdf-jobs/pdf-work.js';
import { ServiceError } from '../service-error.js';
import { LOGO_LIMITS, readLogoHeader, type NormalizedLogo } from './logo-header.js';

/** A 2-million-pixel logo needs 8 MB of pixels, twice over while it is re-encoded. */
const LOGO_WORK_LIMITS: PdfWorkLimits = { maxHeapMb: 96, baseMs: 10_000, perPageMs: 0 };

/** @throws ServiceError `LOGO_INVALID` (400) saying what is wrong, `LOGO_TOO_LARGE` (413). */
export async function checkLogo(bytes: Uint8Array, limits: PdfWorkLimits = LOGO_WORK_LIMITS): Promise<NormalizedLogo> {
  readLogoHeader(bytes);
  try {
    return await runPdfJob({ kind: 'logo', bytes }, limits);
  } catch (error) {
    if (error instanceof ParaphError && (error.code === 'LOGO_INVALID' || error.code === 'LOGO_TOO_LARGE')) throw new ServiceError(error.code, error.message);
    if (error instanceof ParaphError && error.code === 'PDF_TOO_COMPLEX') {
      throw new ServiceError('LOGO_INVALID', `Logo: decoding it needs more memory or time than an image of at most ${LOGO_LIMITS.maxPixels.toLocaleString('en-US')} pixels can; send a plain PNG or JPEG.`);
    }
    throw error;
  }
}
