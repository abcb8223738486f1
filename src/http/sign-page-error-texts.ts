/**
 * The signer API's refusals in the signer's language: the API answers `{"Message"}` in English and names
 * its stable error code in the `Paraph-Error-Code` header (error-map.ts); the pages show the catalogue text for that
 * code, else a localized text for the HTTP status — never the API's English. Pure.
 */
import type { SignPageTexts } from './sign-page-texts.js';

type ErrorKey = keyof SignPageTexts['apiErrors'];

/** The catalogue key of each error code a signer can meet on the signing, show and receipt pages. */
const API_ERROR_KEYS: Readonly<Record<string, ErrorKey>> = {
  CODE_WRONG: 'codeWrong',
  CODE_EXPIRED: 'codeExpired',
  CODE_ATTEMPTS_EXCEEDED: 'codeAttempts',
  CODE_NOT_SENT: 'codeNotSent',
  CODE_RESEND_TOO_SOON: 'codeTooSoon',
  CODE_SEND_LIMIT: 'codeLimit',
  SCRIBBLE_INVALID: 'scribbleInvalid',
  SCRIBBLE_NAME_FIXED: 'scribbleInvalid',
  REJECT_REASON_INVALID: 'rejectReason',
  SIGNER_NOT_AT_TURN: 'notYourTurn',
  SIGNER_ALREADY_SIGNED: 'alreadySigned',
  SIGNER_ALREADY_REJECTED: 'alreadyRejected',
  TRANSACTION_ENDED: 'ended',
  TRANSACTION_CLEANED: 'cleaned',
  DOCUMENT_GONE: 'cleaned',
  RECEIPT_GONE: 'cleaned',
  SIGNING_IN_PROGRESS: 'busy',
  CONCURRENT_MODIFICATION: 'busy',
  TRANSACTION_NOT_STARTED: 'notStarted',
  AUTHENTICATION_REQUIRED: 'authenticateFirst',
  SECURE_DOWNLOAD_REQUIRED: 'authenticateFirst',
  VERIFICATION_UNKNOWN: 'stepUnavailable',
  VERIFICATION_OUT_OF_ORDER: 'stepUnavailable',
  VERIFICATION_NO_RECIPIENT: 'stepUnavailable',
  VERIFICATION_NOT_AVAILABLE: 'stepUnavailable',
  VERIFICATION_MISSING: 'stepUnavailable',
  VERIFICATION_ALREADY_DONE: 'stepUnavailable',
  IDENTITY_STATE_INVALID: 'stepUnavailable',
  IDENTITY_NOT_ESTABLISHED: 'identityFailed',
  IDENTITY_MISMATCH: 'identityMismatch',
  IDENTITY_PROVIDER_UNAVAILABLE: 'identityUnavailable',
  SIGN_TOKEN_UNKNOWN: 'invalidLink',
  ACCOUNT_RATE_LIMITED: 'tooManyRequests',
};

/** The catalogue key for a refusal: by its code, else by its HTTP status (0: no answer at all). */
function apiErrorKey(code: string | undefined, status: number): ErrorKey {
  const byCode = code === undefined ? undefined : API_ERROR_KEYS[code];
  if (byCode !== undefined) return byCode;
  if (status === 0) return 'network';
  if (status === 404) return 'invalidLink';
  if (status === 410) return 'ended';
  if (status === 429) return 'tooManyRequests';
  if (status >= 500) return 'server';
  return 'notAccepted';
}

/** The localized text for a refusal. */
export function apiErrorText(t: SignPageTexts, code: string | undefined, status: number): string {
  return t.apiErrors[apiErrorKey(code, status)];
}

/** The `data-api-errors` attribute value for a page's script: code → key and the status fallbacks, with the texts. */
export function apiErrorTable(t: SignPageTexts): string {
  return JSON.stringify({
    keys: API_ERROR_KEYS,
    texts: t.apiErrors,
    status: { 0: 'network', 404: 'invalidLink', 410: 'ended', 429: 'tooManyRequests', 500: 'server' },
  });
}
