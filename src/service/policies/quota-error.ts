/**
 * A refused request because a quota of the account is used up: 429 with `Retry-After`.
 */
import { ParaphError } from '../../errors.js';

/** Codes `ACCOUNT_RATE_LIMITED`, `ACCOUNT_STORAGE_QUOTA`, `AUTH_THROTTLED`; the HTTP layer sends `Retry-After: retryAfterSeconds`. */
export class QuotaError extends ParaphError {
  constructor(
    code: 'ACCOUNT_RATE_LIMITED' | 'ACCOUNT_STORAGE_QUOTA' | 'AUTH_THROTTLED',
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(code, message);
  }
}
