/**
 * Use case GET /api/file/receipt/{id} (docs/design/receipt.md#availability, docs/design/transactions.md#cleaning): the
 * sealed evidential receipt at status 30 (also after a DELETE, until the clean job ran); otherwise 404 "receipt not
 * found."; 410 "The receipt is no longer available" once cleaned.
 */
import type { Account } from '../domain/account.js';
import { loadOwnTransaction, type ServiceContext } from './context.js';
import { ServiceError } from './service-error.js';
import { TransactionStatus } from '../domain/transaction.js';

/** Signhost's 410 text once the receipt is cleaned (docs/design/transactions.md#cleaning). */
const RECEIPT_GONE_MESSAGE = 'The receipt is no longer available';

/**
 * The receipt PDF.
 *
 * @throws ServiceError `RECEIPT_NOT_FOUND` (404), `TRANSACTION_NOT_FOUND` (401), `RECEIPT_GONE` (410).
 */
export async function downloadReceipt(ctx: ServiceContext, account: Account, transactionId: string): Promise<Uint8Array> {
  const tx = await loadOwnTransaction(ctx, account, transactionId);
  if (tx.cleanedAt !== undefined) throw new ServiceError('RECEIPT_GONE', RECEIPT_GONE_MESSAGE);
  if (tx.Status !== TransactionStatus.Signed || tx.Receipt === undefined) throw new ServiceError('RECEIPT_NOT_FOUND', 'receipt not found.');
  return ctx.store.blobs.read(tx.Receipt.sha256);
}
