/**
 * Use case DELETE /api/transaction/{id} (docs/design/transactions.md#cancellation): on 5/10/20 the transaction becomes
 * 60 with CanceledDateTime and CancelationReason; on an end status the status stays. Either way its sensitive data is
 * deleted at once (the domain's `deleteSensitiveData`); its documents and receipt stay downloadable for
 * `deleteGraceMinutes` (default 15, 0: at once), then the timers clean them (run-timers.ts) and the blobs go with the
 * store's garbage collection. The answer is the transaction as it was just before the data went. A cleaned
 * transaction answers 410. With `SendNotifications`, signers still waiting who were sent a sign request get a
 * cancellation mail.
 */
import { isEndStatus, transition, type Transaction } from '../domain/transaction.js';
import type { Account } from '../domain/account.js';
import type { OutboxInput } from '../store/store.js';
import { commitChange } from './commit-change.js';
import { loadOwnTransaction, type ServiceContext } from './context.js';
import { postbackRow, signerMailRow } from './delivery/outbox-rows.js';
import { assertNotCleaned } from './policies/transaction-guards.js';

/** Minutes the documents and receipt stay downloadable after a DELETE when the settings say nothing. */
const DEFAULT_DELETE_GRACE_MINUTES = 15;

/** The optional DELETE body. */
export interface CancelRequest {
  readonly SendNotifications?: boolean;
  readonly Reason?: string;
}

/**
 * Cancels (or, at an end status, cleans) the transaction; returns it as it was before its data was deleted.
 *
 * @throws TransactionCleanedError (410) when it was cleaned already.
 */
export async function cancelTransaction(ctx: ServiceContext, account: Account, transactionId: string, request: CancelRequest): Promise<Transaction> {
  let before: Transaction | undefined;
  let cleaned = false;
  await commitChange(
    ctx,
    () => loadOwnTransaction(ctx, account, transactionId),
    (tx, now) => {
      assertNotCleaned(tx);
      const wasEnded = isEndStatus(tx.Status);
      const graceMinutes = ctx.settings.deleteGraceMinutes ?? DEFAULT_DELETE_GRACE_MINUTES;
      const cancelled = transition(tx, { type: 'cancel', graceMinutes, ...(request.Reason !== undefined ? { reason: request.Reason } : {}) }, now);
      before = {
        ...tx,
        Status: cancelled.Status,
        ModifiedDateTime: cancelled.ModifiedDateTime,
        ...(cancelled.CanceledDateTime !== undefined ? { CanceledDateTime: cancelled.CanceledDateTime } : {}),
        ...(cancelled.CancelationReason !== undefined ? { CancelationReason: cancelled.CancelationReason } : {}),
      };
      const outbox: OutboxInput[] = [];
      if (request.SendNotifications === true && !wasEnded) {
        for (const signer of tx.Signers) {
          if (signer.SendSignRequest && signer.SignedDateTime === undefined && signer.RejectDateTime === undefined) {
            outbox.push(signerMailRow(tx, signer, 'cancellation'));
          }
        }
      }
      cleaned = cancelled.cleanedAt !== undefined;
      const postback = wasEnded ? undefined : postbackRow(cancelled);
      if (postback) outbox.push(postback);
      return {
        transaction: cancelled,
        audit: [
          { at: now, type: 'transaction.cancelled', actor: 'api', data: request.Reason !== undefined ? { reason: request.Reason } : {} },
          {
            at: now,
            type: 'transaction.cleaned',
            actor: 'api',
            data: { what: cancelled.cleanedAt !== undefined ? ['documents', 'receipt', 'sensitive data'] : ['sensitive data'] },
          },
        ],
        outbox,
      };
    },
  );
  // The mails written without SMTP carry the signed PDFs and the receipt: they go with the documents.
  if (cleaned) await ctx.mailFiles?.remove(transactionId);
  return before as Transaction;
}
