/**
 * The one table from error codes to HTTP statuses (STYLE.md "Errors"; spec §2.9, §7; decisions.md §2–§3) and the
 * fastify error handler that applies it: every error becomes `{"Message": "..."}`. Input errors keep their message;
 * the text of a 5xx never reaches the client (it is logged with the request id instead).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ParaphError, ValidationError } from '../errors.js';
import { QuotaError } from '../service/quota-error.js';

/** The 401 body of decisions.md §2. */
export const UNAUTHORIZED_MESSAGE = 'Authorization has been denied for this request.';

/** Statuses for codes that are not a plain 400 (every other input error is 400, every internal error 500). */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  UNAUTHORIZED: 401,
  TRANSACTION_NOT_FOUND: 401, // never reveal whether another account's transaction exists (decisions.md §2)
  FILE_NOT_FOUND: 404,
  RECEIPT_NOT_FOUND: 404,
  NOT_FOUND: 404,
  UPLOAD_CONFLICT: 409,
  START_CONFLICT: 409,
  TRANSACTION_CLEANED: 410,
  DOCUMENT_GONE: 410,
  RECEIPT_GONE: 410,
  FILE_TOO_LARGE: 413,
  CONCURRENT_MODIFICATION: 409,
  BLOB_TOO_LARGE: 413,
  // signer API (issue 6)
  SIGN_TOKEN_UNKNOWN: 404,
  AUTHENTICATION_REQUIRED: 403,
  SECURE_DOWNLOAD_REQUIRED: 403,
  SIGNER_TRANSACTION_CLEANED: 410,
  SIGNER_TRANSACTION_ENDED: 410,
  SIGNER_ALREADY_REJECTED: 410,
  SIGNER_ALREADY_SIGNED: 409,
  SIGNING_NOT_STARTED: 409,
  SIGNING_IN_PROGRESS: 409,
  SIGNER_NOT_AT_TURN: 409,
  CODE_RESEND_TOO_SOON: 429,
  CODE_SEND_LIMIT: 429,
  // quotas (issue 13): the refusing code sets Retry-After
  ACCOUNT_RATE_LIMITED: 429,
  ACCOUNT_STORAGE_QUOTA: 429,
  // fastify's own errors
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_ERR_NOT_FOUND: 404,
};

/** The status an error maps to. */
export function statusOf(error: unknown): number {
  if (error instanceof ParaphError) {
    const mapped = ERROR_STATUS[error.code];
    if (mapped !== undefined) return mapped;
    return error.origin === 'input' ? 400 : 500;
  }
  const fastifyError = error as Partial<FastifyError> | null;
  if (fastifyError && typeof fastifyError.code === 'string') {
    const mapped = ERROR_STATUS[fastifyError.code];
    if (mapped !== undefined) return mapped;
  }
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return status;
  return 500;
}

/** The `Message` of a client error; never called for a 5xx. */
function messageOf(error: unknown, request: FastifyRequest): string {
  if (error instanceof ValidationError) return error.issues.join('; ');
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // Only the file upload takes a PDF; every other body is JSON (issue 13 point 8).
      return /\/file\/[^/]+$/.test(request.routeOptions.url ?? '')
        ? "Unexpected or missing Content-Type header, did you specify 'application/pdf'?"
        : "Unexpected or missing Content-Type header: send 'application/json'.";
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty: send a JSON object.';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return `The request body is not valid JSON: ${fastifyError.message ?? ''}`.trim();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    default:
      break;
  }
  if (error instanceof SyntaxError) return `The request body is not valid JSON: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** fastify error handler: `{"Message"}` bodies, 5xx texts hidden and logged. */
export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const status = statusOf(error);
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed');
    void reply.code(status).send({ Message: 'An internal error occurred; it has been logged.' });
    return;
  }
  if (status === 401) {
    void reply.code(401).send({ Message: UNAUTHORIZED_MESSAGE });
    return;
  }
  if (error instanceof QuotaError) void reply.header('retry-after', String(error.retryAfterSeconds));
  request.log.info({ code: (error as { code?: unknown }).code, status }, 'request refused');
  // The signing pages show the refusal in the signer's language by this stable code (sign-page-error-texts.ts).
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') void reply.header('paraph-error-code', code);
  void reply.code(status).send({ Message: messageOf(error, request) });
}
