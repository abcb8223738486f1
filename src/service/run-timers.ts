/**
 * Use cases of the timers (decisions.md §8, issue 5): expiry (a transaction still at 5 or 10 when `DaysToExpire`
 * or a signer's `Expires` passes becomes 50) and cleaning (documents, receipt, audit details and sensitive data of
 * an ended transaction are deleted `retentionDays` after it ended; GET then answers 410). The timers are derived
 * from the transactions' dates by the store, so nothing is lost on restart; reminders are issue 7's.
 */
import { isEndStatus, transition } from '../domain/transaction.js';
import type { DueTimer } from '../store/store.js';
import { commitChange } from './commit-change.js';
import type { ServiceContext } from './context.js';
import { remindSigners } from '../events/remind-signers.js';
import { notificationRow, postbackRow } from './outbox-rows.js';
import { ServiceError } from './service-error.js';

/** What {@link runDueTimers} did. */
export interface TimerRun {
  readonly expired: number;
  readonly cleaned: number;
  /** Timers that failed (logged by the caller), with the error. */
  readonly failures: readonly { timer: DueTimer; error: unknown }[];
}

/** Runs every timer due at the clock's now (at most `limit`). */
export async function runDueTimers(ctx: ServiceContext, limit = 100): Promise<TimerRun> {
  const now = ctx.clock();
  const due = await ctx.store.listDueTimers(now, { retentionDays: ctx.settings.retentionDays, limit });
  let expired = 0;
  let cleaned = 0;
  const failures: { timer: DueTimer; error: unknown }[] = [];
  for (const timer of due) {
    try {
      if (timer.kind === 'expire' && (await expireTransaction(ctx, timer.transactionId))) expired++;
      if (timer.kind === 'clean' && (await cleanTransactionData(ctx, timer.transactionId))) cleaned++;
      if (timer.kind === 'remind') await remindSigners(ctx, timer.transactionId);
    } catch (error) {
      failures.push({ timer, error });
    }
  }
  return { expired, cleaned, failures };
}

async function read(ctx: ServiceContext, id: string) {
  const tx = await ctx.store.getTransaction(id);
  if (tx === undefined) throw new ServiceError('TRANSACTION_NOT_FOUND', `Transaction ${id} does not exist.`, { origin: 'internal' });
  return tx;
}

/** Moves a transaction at 5/10 to 50; false when it is no longer at 5/10 (nothing to do). */
export async function expireTransaction(ctx: ServiceContext, id: string): Promise<boolean> {
  let done = false;
  await commitChange(
    ctx,
    () => read(ctx, id),
    (tx, now) => {
      if (tx.cleanedAt !== undefined || (tx.Status !== 5 && tx.Status !== 10)) {
        done = false;
        return undefined;
      }
      done = true;
      const expired = transition(tx, { type: 'expire' }, now);
      const postback = postbackRow(expired);
      const notice = notificationRow(expired, 'expired');
      return {
        transaction: expired,
        audit: [{ at: now, type: 'transaction.expired', actor: 'system', data: { expiredAt: expired.ModifiedDateTime } }],
        outbox: [...(postback ? [postback] : []), ...(notice ? [notice] : [])],
      };
    },
  );
  return done;
}

/** Cleans an ended transaction; false when it is not ended or already clean. */
export async function cleanTransactionData(ctx: ServiceContext, id: string): Promise<boolean> {
  let done = false;
  await commitChange(
    ctx,
    () => read(ctx, id),
    (tx, now) => {
      if (tx.cleanedAt !== undefined || !isEndStatus(tx.Status)) {
        done = false;
        return undefined;
      }
      done = true;
      return { transaction: transition(tx, { type: 'clean' }, now), purgeAudit: true };
    },
  );
  return done;
}
