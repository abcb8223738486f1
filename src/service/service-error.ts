/**
 * Errors of the service's use cases. Codes the HTTP error table maps to statuses: `TRANSACTION_NOT_FOUND` (401),
 * `TRANSACTION_CLEANED` (410, with the partial view as body), `FILE_NOT_FOUND` and `RECEIPT_NOT_FOUND` (404),
 * `UPLOAD_CONFLICT` and `START_CONFLICT` (409), `FILE_TOO_LARGE` (413); anything else of origin `input` is 400.
 */
import { ParaphError, type ErrorOrigin } from '../errors.js';

/** A use case refused a request. */
export class ServiceError extends ParaphError {
  constructor(code: string, message: string, options: { origin?: ErrorOrigin; cause?: unknown } = {}) {
    super(code, message, { origin: options.origin ?? 'input', cause: options.cause });
  }
}
