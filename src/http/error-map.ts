/**
 * The one table from error codes to HTTP statuses (docs/design/api.md#errors) and the
 * fastify error handler that applies it: every error becomes `{"Message": "..."}`. Input errors keep their message;
 * the text of a 5xx never reaches the client (it is logged with the request id instead).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, ParaphError, ValidationError } from '../errors.js';
import { QuotaError } from '../service/policies/quota-error.js';

/** The 401 body, Signhost's text (docs/design/api.md#authentication). */
export const UNAUTHORIZED_MESSAGE = 'Authorization has been denied for this request.';

/**
 * Statuses for codes that are not a plain 400 or 500 (every other input error is 400, every internal error 500): the
 * rows of the error-code table (src/errors.ts) with another status, and fastify's own codes.
 */
const ERROR_STATUS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(
    Object.entries(ERROR_CODES)
      .filter(([, info]) => info.status !== 400 && info.status !== 500)
      .map(([code, info]) => [code, info.status]),
  ),
  NOT_FOUND: 404,
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
      // Only the file upload takes a PDF; every other body is JSON.
      return /\/file\/[^/]+$/.test(request.routeOptions.url ?? '')
        ? "Unexpected or missing Content-Type header, did you specify 'application/pdf'?"
        : "Unexpected or missing Content-Type header: send 'application/json'.";
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty: send a JSON object.';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      // Signhost's text for a body that is not JSON.
      return 'Invalid json structure provided.';
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
  // A 503 the caller's request met (an identity provider or the service is unavailable for now) says what and names
  // its code; other 5xx hide their text.
  const temporary = status === 503 && error instanceof ParaphError && error.origin === 'input';
  if (status >= 500 && !temporary) {
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
