/**
 * Typed errors of the paraph library. Every error carries a stable string `code` that callers (the CLI, the HTTP
 * service) map to exit codes and HTTP statuses, and a message that names the bad value and what to do about it.
 */

/** Whether an error was caused by the caller's input (fixable by them) or by paraph itself. */
export type ErrorOrigin = 'input' | 'internal';

/** Base class of every error paraph throws on purpose. */
export class ParaphError extends Error {
  /** Stable machine-readable code, e.g. `PDF_ENCRYPTED`. Never changes between versions. */
  readonly code: string;
  /** `input` when the caller can fix it by sending something else. */
  readonly origin: ErrorOrigin;

  constructor(code: string, message: string, options: { origin?: ErrorOrigin; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.origin = options.origin ?? 'input';
  }
}

/** A value (FileMetaData, options, a request body) broke one or more rules. `issues` lists every one of them. */
export class ValidationError extends ParaphError {
  readonly issues: readonly string[];

  constructor(issues: readonly string[], code = 'INVALID_INPUT') {
    super(code, issues.join('; '));
    this.issues = issues;
  }
}

/** The bytes are not a PDF we can work on (garbage, truncated, encrypted, no pages). */
export class PdfParseError extends ParaphError {}

/** A Location could not be resolved to a place on a page. */
export class PlacementError extends ParaphError {}

/** Producing or embedding a signature failed. */
export class SigningError extends ParaphError {}

/** A time-stamp authority could not be reached or gave an unacceptable answer. */
export class TimestampError extends ParaphError {}

/** True for errors the caller caused; anything that is not a ParaphError counts as internal. */
export function isInputError(error: unknown): error is ParaphError {
  return error instanceof ParaphError && error.origin === 'input';
}
