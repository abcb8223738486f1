/**
 * Use case GET /api/transaction/{id} (docs/design/api.md#endpoints): the account's transaction; a cleaned one answers
 * 410 with its partial data (docs/design/transactions.md#cleaning), another account's or an unknown one 401
 * (docs/design/api.md#authentication).
 */
import type { Transaction } from '../domain/transaction.js';
import type { Account } from '../domain/account.js';
import { loadOwnTransaction, type ServiceContext } from './context.js';
import { assertNotCleaned } from './policies/transaction-guards.js';

/**
 * The transaction, ready to be rendered by the view.
 *
 * @throws ServiceError `TRANSACTION_NOT_FOUND` (401), TransactionCleanedError (410).
 */
export async function getTransaction(ctx: ServiceContext, account: Account, transactionId: string): Promise<Transaction> {
  const tx = await loadOwnTransaction(ctx, account, transactionId);
  assertNotCleaned(tx);
  return tx;
}
