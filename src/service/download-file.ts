/**
 * Use case GET /api/transaction/{id}/file/{fileId} (spec §4.5, decisions.md §3): at 5 the PDF as uploaded; from
 * 10 on the prepared PDF with the signatures so far; at 30 the final signed and sealed PDF. Unknown file: 404;
 * cleaned: 410.
 */
import { findFile } from '../domain/transaction.js';
import type { Account } from '../store/store.js';
import { loadOwnTransaction, type ServiceContext } from './context.js';
import { ServiceError } from './service-error.js';
import { assertNotCleaned } from './transaction-guards.js';

/** A PDF to send. */
export interface DownloadedFile {
  readonly bytes: Uint8Array;
  readonly fileName: string;
}

/**
 * The file's current PDF.
 *
 * @throws ServiceError `FILE_NOT_FOUND` (404), `TRANSACTION_NOT_FOUND` (401); TransactionCleanedError (410).
 */
export async function downloadFile(ctx: ServiceContext, account: Account, transactionId: string, fileId: string): Promise<DownloadedFile> {
  const tx = await loadOwnTransaction(ctx, account, transactionId);
  assertNotCleaned(tx);
  const file = findFile(tx, fileId);
  const blob = tx.Status === 5 ? file?.Original : (file?.Current ?? file?.Original);
  if (file === undefined || blob === undefined) throw new ServiceError('FILE_NOT_FOUND', 'file not found.');
  return { bytes: await ctx.store.blobs.read(blob.sha256), fileName: file.DisplayName ?? file.FileId };
}
