/**
 * Use cases of the timers (decisions.md §8, issue 5): expiry (a transaction still at 5 or 10 when `DaysToExpire`
 * or a signer's `Expires` passes becomes 50), cleaning (documents, receipt, audit details and sensitive data of
 * an ended transaction are deleted `retentionDays` after it ended; GET then answers 410), and the release of a
 * signing hold a dead process left at 20 (issue 6; expiry applies to such a transaction too). The timers are derived
 * from the transactions' dates by the store, so nothing is lost on restart; reminders are issue 7's.
 */
import { isEndStatus, isSigningHoldStale, signingHoldOf, transition } from '../domain/transaction.js';
import { expiryOf } from '../domain/transaction-timers.js';
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
      if (timer.kind === 'clean' && (await cleanTransactionData(ctx, timer.transactionId))) cleaned++;
      if (timer.kind === 'remind') await remindSigners(ctx, timer.transactionId);
      if (timer.kind === 'release' && (await cleanAfterDeleteGrace(ctx, timer.transactionId))) cleaned++;
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

/**
 * Recovers a transaction left at 20 by a process that died while applying a signature, without waiting for the
 * signer: once the signing hold is stale, it goes back to 10 (the signer may sign again; nothing of the interrupted
 * signing was committed) or, when its expiry has passed meanwhile, to 50 (decisions.md §8). Both are audited with
 * `signing.released`. Returns what happened; undefined when there is no stale hold (nothing to do).
 */
export async function releaseStaleHold(ctx: ServiceContext, id: string): Promise<'released' | 'expired' | undefined> {
  let outcome: 'released' | 'expired' | undefined;
  await commitChange(
    ctx,
    () => read(ctx, id),
    (tx, now) => {
      outcome = undefined;
      const hold = signingHoldOf(tx);
      if (tx.cleanedAt !== undefined || hold === undefined || !isSigningHoldStale(tx, now)) return undefined;
      const expire = Date.parse(expiryOf(tx)) <= now.getTime();
      const reason = expire
        ? 'The signature was being applied when the service stopped, and the transaction expired meanwhile.'
        : 'The signature was being applied when the service stopped; the signer can sign again.';
      const released = { at: now, type: 'signing.released' as const, actor: 'system' as const, data: { signerId: hold.signerId, heldSince: hold.since, reason } };
      if (expire) {
        outcome = 'expired';
        const expired = transition(tx, { type: 'expire' }, now);
        const postback = postbackRow(expired);
        const notice = notificationRow(expired, 'expired');
        return {
          transaction: expired,
          audit: [released, { at: now, type: 'transaction.expired', actor: 'system', data: { expiredAt: expired.ModifiedDateTime } }],
          outbox: [...(postback ? [postback] : []), ...(notice ? [notice] : [])],
        };
      }
      outcome = 'released';
      const back = transition(tx, { type: 'release' }, now);
      const postback = postbackRow(back);
      return { transaction: back, audit: [released], outbox: postback ? [postback] : [] };
    },
  );
  return outcome;
}

/**
 * Cleans a DELETEd transaction once its grace period has passed (decisions.md §8: until then its documents and
 * receipt stay downloadable); false when it has none pending (the timer was a signing hold's).
 */
export async function cleanAfterDeleteGrace(ctx: ServiceContext, id: string): Promise<boolean> {
  const tx = await read(ctx, id);
  if (tx.CleanDueDateTime === undefined) return false;
  return cleanTransactionData(ctx, id);
}

/** Cleans an ended transaction; false when it is not ended, already clean, or within a DELETE's grace period. */
export async function cleanTransactionData(ctx: ServiceContext, id: string): Promise<boolean> {
  let done = false;
  await commitChange(
    ctx,
    () => read(ctx, id),
    (tx, now) => {
      const inGrace = tx.CleanDueDateTime !== undefined && Date.parse(tx.CleanDueDateTime) > now.getTime();
      if (tx.cleanedAt !== undefined || !isEndStatus(tx.Status) || inGrace) {
        done = false;
        return undefined;
      }
      done = true;
      return { transaction: transition(tx, { type: 'clean' }, now), purgeAudit: true };
    },
  );
  return done;
}
