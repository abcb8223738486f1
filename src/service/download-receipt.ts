/**
 * Use case GET /api/file/receipt/{id} (spec §4.6, decisions.md §3): the sealed evidential receipt at status 30;
 * otherwise 404 "receipt not found."; 410 once cleaned.
 */
import type { Account } from '../store/store.js';
import { loadOwnTransaction, type ServiceContext } from './context.js';
import { ServiceError } from './service-error.js';
import { assertNotCleaned } from './transaction-guards.js';

/**
 * The receipt PDF.
 *
 * @throws ServiceError `RECEIPT_NOT_FOUND` (404), `TRANSACTION_NOT_FOUND` (401); TransactionCleanedError (410).
 */
export async function downloadReceipt(ctx: ServiceContext, account: Account, transactionId: string): Promise<Uint8Array> {
  const tx = await loadOwnTransaction(ctx, account, transactionId);
  assertNotCleaned(tx);
  if (tx.Status !== 30 || tx.Receipt === undefined) throw new ServiceError('RECEIPT_NOT_FOUND', 'receipt not found.');
  return ctx.store.blobs.read(tx.Receipt.sha256);
}
