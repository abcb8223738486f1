/**
 * The timers of a transaction (docs/design/events.md#timers): expiry, reminders and cleaning, derived from the
 * transaction's own dates rather than kept as separate jobs, so that nothing is lost on a restart and a store can
 * index them as plain columns. Pure.
 */
import { TransactionStatus, addDays, formatTime, isEndStatus, signingHoldStaleAt, type Transaction } from './transaction.js';

/**
 * What a timer due on a transaction asks the service to do. `release`: a signing hold went stale (a process died
 * while signing), so the service releases it (back to 10) or, when the transaction's expiry has passed, expires it.
 */
export type TimerKind = 'expire' | 'remind' | 'clean' | 'release';

/** The dates a transaction's timers derive from (a store indexes them). */
export interface TransactionTimers {
  /** While at 5 or 10: the earliest of `ExpiresDateTime` and the unsigned signers' `Expires`. */
  expireAt?: string;
  /** While at 10: the earliest signer `NextReminderDateTime`. */
  remindAt?: string;
  /** While ended and not cleaned: `EndedDateTime` (cleaning is due a retention period later). */
  endedAt?: string;
  /**
   * While at 20 under a signing hold: when the hold goes stale (see `SIGNING_HOLD_STALE_MS`). While a DELETE's grace
   * period runs: when it ends (`CleanDueDateTime`), so that the documents are released to the clean job. One column
   * serves both because a transaction is never in both states (a hold is at 20, a DELETE ends the transaction).
   */
  releaseAt?: string;
}

/** The timer dates of `tx`, all in the {@link formatTime} format; empty for a cleaned transaction. */
export function transactionTimers(tx: Transaction): TransactionTimers {
  const timers: TransactionTimers = {};
  if (tx.cleanedAt !== undefined) return timers;
  if (isEndStatus(tx.Status)) {
    if (tx.EndedDateTime !== undefined) timers.endedAt = tx.EndedDateTime;
    if (tx.CleanDueDateTime !== undefined) timers.releaseAt = tx.CleanDueDateTime;
    return timers;
  }
  if (tx.Status === TransactionStatus.WaitingForDocument || tx.Status === TransactionStatus.WaitingForSigner) timers.expireAt = expiryOf(tx);
  const releaseAt = signingHoldStaleAt(tx);
  if (releaseAt !== undefined) timers.releaseAt = releaseAt;
  if (tx.Status === TransactionStatus.WaitingForSigner) {
    for (const signer of tx.Signers) {
      const at = signer.NextReminderDateTime;
      if (at !== undefined && (timers.remindAt === undefined || at < timers.remindAt)) timers.remindAt = at;
    }
  }
  return timers;
}

/** When `tx` expires unless completed: the earliest of `ExpiresDateTime` and the unsigned signers' `Expires`. */
export function expiryOf(tx: Transaction): string {
  let expireAt = tx.ExpiresDateTime;
  for (const signer of tx.Signers) {
    if (signer.Expires !== undefined && signer.SignedDateTime === undefined) {
      const at = formatTime(new Date(signer.Expires));
      if (at < expireAt) expireAt = at;
    }
  }
  return expireAt;
}

/**
 * The earliest timer of a transaction, derived from its dates (so nothing is lost on restart): expiry while at 5/10,
 * a reminder while at 10, the release of a stale signing hold while at 20, cleaning `retentionDays` after the end. Undefined when none is pending.
 */
export function nextTimerAt(tx: Transaction, retentionDays: number): { kind: TimerKind; at: string } | undefined {
  const timers = transactionTimers(tx);
  const candidates: { kind: TimerKind; at: string }[] = [];
  if (timers.expireAt !== undefined) candidates.push({ kind: 'expire', at: timers.expireAt });
  if (timers.remindAt !== undefined) candidates.push({ kind: 'remind', at: timers.remindAt });
  if (timers.endedAt !== undefined) {
    const retained = addDays(timers.endedAt, retentionDays);
    // A DELETE's grace period holds off retention cleaning too (docs/design/transactions.md#cancellation).
    const due = tx.CleanDueDateTime !== undefined && tx.CleanDueDateTime > retained ? tx.CleanDueDateTime : retained;
    candidates.push({ kind: 'clean', at: due });
  }
  if (timers.releaseAt !== undefined) candidates.push({ kind: tx.CleanDueDateTime !== undefined ? 'clean' : 'release', at: timers.releaseAt });
  candidates.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return candidates[0];
}
