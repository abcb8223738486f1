/**
 * Use case of the expiry timer (docs/design/transactions.md#expiry): a transaction still at 5 or 10 when `DaysToExpire`
 * or a signer's `Expires` passes becomes 50, with its postback and notification.
 */
import { TransactionStatus, transition } from '../domain/transaction.js';
import { commitChange } from './commit-change.js';
import { loadTransaction, type ServiceContext } from './context.js';
import { notificationRow, postbackRow } from './delivery/outbox-rows.js';

/** Moves a transaction at 5/10 to 50; false when it is no longer at 5/10 (nothing to do). */
export async function expireTransaction(ctx: ServiceContext, id: string): Promise<boolean> {
  let done = false;
  await commitChange(
    ctx,
    () => loadTransaction(ctx, id),
    (tx, now) => {
      if (tx.cleanedAt !== undefined || (tx.Status !== TransactionStatus.WaitingForDocument && tx.Status !== TransactionStatus.WaitingForSigner)) {
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
