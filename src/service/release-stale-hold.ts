/**
 * Use case of the release timer: a signing hold a dead process left at 20 goes back to 10, or to 50 when
 * the transaction expired meanwhile.
 */
import { isSigningHoldStale, signingHoldOf, transition } from '../domain/transaction.js';
import { expiryOf } from '../domain/transaction-timers.js';
import { commitChange } from './commit-change.js';
import { loadTransaction, type ServiceContext } from './context.js';
import { notificationRow, postbackRow } from './delivery/outbox-rows.js';

/**
 * Recovers a transaction left at 20 by a process that died while applying a signature, without waiting for the
 * signer: once the signing hold is stale, it goes back to 10 (the signer may sign again; nothing of the interrupted
 * signing was committed) or, when its expiry has passed meanwhile, to 50 (docs/design/transactions.md#signing-hold).
 * Both are audited with `signing.released`. Returns what happened; undefined when there is no stale hold (nothing to
 * do).
 */
export async function releaseStaleHold(ctx: ServiceContext, id: string): Promise<'released' | 'expired' | undefined> {
  let outcome: 'released' | 'expired' | undefined;
  await commitChange(
    ctx,
    () => loadTransaction(ctx, id),
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
