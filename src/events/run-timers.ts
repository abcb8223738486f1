/**
 * The timers' dispatcher (docs/design/events.md#timers): each due timer calls one use case — expiry (a transaction
 * still at 5 or 10 when `DaysToExpire` or a signer's `Expires` passes becomes 50), cleaning (documents, receipt, audit
 * details and sensitive data of an ended transaction are deleted `retentionDays` after it ended; GET then answers 410),
 * and the release of a signing hold a dead process left at 20 (expiry applies to such a transaction too). The timers
 * are derived from the transactions' dates by the store, so nothing is lost on restart; and reminders
 * (docs/design/events.md#timers).
 */
import { cleanTransactionAfterGrace, cleanTransaction } from '../service/clean-transaction.js';
import type { ServiceContext } from '../service/context.js';
import { expireTransaction } from '../service/expire-transaction.js';
import { releaseStaleHold } from '../service/release-stale-hold.js';
import { remindSigners } from '../service/remind-signers.js';
import type { DueTimer } from '../store/store.js';

/** What {@link runDueTimers} did. */
export interface TimerRun {
  readonly expired: number;
  readonly cleaned: number;
  /** Stale signing holds released back to 10 (those whose expiry had passed count as expired). */
  readonly released: number;
  /** Timers that failed (logged by the caller), with the error. */
  readonly failures: readonly { timer: DueTimer; error: unknown }[];
}

/** Runs every timer due at the clock's now (at most `limit`). */
export async function runDueTimers(ctx: ServiceContext, limit = 100): Promise<TimerRun> {
  const now = ctx.clock();
  const due = await ctx.store.listDueTimers(now, { retentionDays: ctx.settings.retentionDays, limit });
  let expired = 0;
  let cleaned = 0;
  let released = 0;
  const failures: { timer: DueTimer; error: unknown }[] = [];
  for (const timer of due) {
    try {
      if (timer.kind === 'expire' && (await expireTransaction(ctx, timer.transactionId))) expired++;
      if (timer.kind === 'clean' && (await cleanTransaction(ctx, timer.transactionId))) cleaned++;
      if (timer.kind === 'remind') await remindSigners(ctx, timer.transactionId);
      if (timer.kind === 'release' && (await cleanTransactionAfterGrace(ctx, timer.transactionId))) cleaned++;
      else if (timer.kind === 'release') {
        const outcome = await releaseStaleHold(ctx, timer.transactionId);
        if (outcome === 'released') released++;
        if (outcome === 'expired') expired++;
      }
    } catch (error) {
      failures.push({ timer, error });
    }
  }
  return { expired, cleaned, released, failures };
}
