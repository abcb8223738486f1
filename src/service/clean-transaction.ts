/**
 * Use case of the cleaning timers (docs/design/transactions.md#cleaning): documents, receipt, audit details and sensitive data of an ended
 * transaction are deleted `retentionDays` after it ended, or when a DELETE's grace period has passed (GET then 410),
 * with the mail files written for it (which carry the signed PDFs and the receipt).
 */
import { isEndStatus, transition } from '../domain/transaction.js';
import { commitChange } from './commit-change.js';
import { loadTransaction, type ServiceContext } from './context.js';

/**
 * Cleans a DELETEd transaction once its grace period has passed (docs/design/transactions.md#cancellation: until then
 * its documents and receipt stay downloadable); false when it has none pending (the timer was a signing hold's).
 */
export async function cleanTransactionAfterGrace(ctx: ServiceContext, id: string): Promise<boolean> {
  const tx = await loadTransaction(ctx, id);
  if (tx.CleanDueDateTime === undefined) return false;
  return cleanTransaction(ctx, id);
}

/** Cleans an ended transaction; false when it is not ended, already clean, or within a DELETE's grace period. */
export async function cleanTransaction(ctx: ServiceContext, id: string): Promise<boolean> {
  let done = false;
  await commitChange(
    ctx,
    () => loadTransaction(ctx, id),
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
  // The mails written without SMTP carry the signed PDFs and the receipt: they go with the documents.
  if (done) await ctx.mailFiles?.remove(id);
  return done;
}
