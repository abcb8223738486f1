/**
 * Checks every use case makes before touching a transaction: a cleaned transaction
 * (docs/design/transactions.md#cleaning) answers 410 with its partial data, which the HTTP layer renders from the
 * transaction this error carries.
 */
import type { Transaction } from '../../domain/transaction.js';
import { ServiceError } from '../service-error.js';

/** The transaction was cleaned (DELETE or retention): 410 with the partial view of {@link transaction}. */
export class TransactionCleanedError extends ServiceError {
  readonly transaction: Transaction;
  constructor(transaction: Transaction) {
    super('TRANSACTION_CLEANED', `Transaction ${transaction.Id} was cleaned: its documents and data are gone.`);
    this.transaction = transaction;
  }
}

/** @throws TransactionCleanedError when `tx` was cleaned. */
export function assertNotCleaned(tx: Transaction): void {
  if (tx.cleanedAt !== undefined) throw new TransactionCleanedError(tx);
}
