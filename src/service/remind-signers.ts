/**
 * Reminders every `DaysToRemind` days, activity 104 (docs/design/events.md#reminders): when a signer's
 * `NextReminderDateTime` has passed while the transaction waits at 10 and the signer has neither signed nor rejected, a
 * reminder mail is queued and the next reminder is set `DaysToRemind` days later, in one commit (the 104 activity is
 * recorded when the mail is sent). The first reminder date is set when the sign request is sent.
 */
import { TransactionStatus, addDays, formatTime } from '../domain/transaction.js';
import { commitChange, existingTransaction } from './commit-change.js';
import type { ServiceContext } from './context.js';
import { signerMailRow } from './delivery/outbox-rows.js';
import type { OutboxInput } from '../store/store.js';

/** Queues the due reminders of a transaction; returns how many. */
export async function remindSigners(ctx: ServiceContext, transactionId: string): Promise<number> {
  let queued = 0;
  await commitChange(
    ctx,
    existingTransaction(ctx, transactionId),
    (tx, now) => {
      queued = 0;
      if (tx.Status !== TransactionStatus.WaitingForSigner || tx.cleanedAt !== undefined) return undefined;
      const nowText = formatTime(now);
      const outbox: OutboxInput[] = [];
      const signers = tx.Signers.map((s) => {
        if (s.NextReminderDateTime === undefined || s.NextReminderDateTime > nowText) return s;
        if (s.SignedDateTime !== undefined || s.RejectDateTime !== undefined || s.DaysToRemind <= 0) {
          const { NextReminderDateTime: _gone, ...rest } = s;
          return rest;
        }
        outbox.push(signerMailRow(tx, s, 'reminder'));
        return { ...s, NextReminderDateTime: addDays(now, s.DaysToRemind) };
      });
      queued = outbox.length;
      return { transaction: { ...tx, Signers: signers }, outbox };
    },
  );
  return queued;
}
