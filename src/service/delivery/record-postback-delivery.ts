/**
 * Use case behind the postback worker (docs/design/events.md#retries): a postback given up on after 72 hours is written
 * to the transaction's audit trail as `postback.failed`, unless the transaction was cleaned (its audit details are
 * gone).
 */
import { commitChange, existingTransaction } from '../commit-change.js';
import type { ServiceContext } from '../context.js';

/** The postback given up on. `error` names no address, port or system error text (the API client reads it). */
export interface PostbackFailure {
  readonly transactionId: string;
  readonly url: string;
  /** Attempts made, the last included. */
  readonly attempt: number;
  readonly error: string;
  readonly httpStatus?: number;
}

/** Audits a postback given up on. */
export async function recordPostbackFailure(ctx: ServiceContext, failure: PostbackFailure): Promise<void> {
  const { transactionId, url, attempt, error, httpStatus } = failure;
  await commitChange(
    ctx,
    existingTransaction(ctx, transactionId),
    (tx, now) =>
      tx.cleanedAt !== undefined
        ? undefined
        : {
            transaction: tx,
            audit: [{ at: now, type: 'postback.failed', actor: 'system', data: { url, error, attempt, ...(httpStatus !== undefined ? { httpStatus } : {}) } }],
          },
  );
}
