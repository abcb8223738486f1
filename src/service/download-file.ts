/**
 * Use case GET /api/transaction/{id}/file/{fileId} (docs/design/files.md#downloads): at 5 the PDF as uploaded; from
 * 10 on the prepared PDF with the signatures so far; at 30 the final signed and sealed PDF; after a DELETE, the same
 * until the clean job ran. Unknown file: 404; cleaned: 410, both with Signhost's texts.
 */
import { TransactionStatus, findFile } from '../domain/transaction.js';
import type { Account } from '../domain/account.js';
import { loadOwnTransaction, type ServiceContext } from './context.js';
import { ServiceError } from './service-error.js';

/** A PDF to send. */
export interface DownloadedFile {
  readonly bytes: Uint8Array;
  readonly fileName: string;
}

/** Signhost's 404 text for an unknown file (docs/design/api.md#errors). */
const FILE_NOT_FOUND_MESSAGE = 'Either the file or transaction does not exist or the file has not yet been processed.';
/** Signhost's 410 text once the documents are cleaned (docs/design/transactions.md#cleaning). */
const DOCUMENT_GONE_MESSAGE = 'The document is no longer available';

/**
 * The file's current PDF.
 *
 * @throws ServiceError `FILE_NOT_FOUND` (404), `TRANSACTION_NOT_FOUND` (401), `DOCUMENT_GONE` (410).
 */
export async function downloadFile(ctx: ServiceContext, account: Account, transactionId: string, fileId: string): Promise<DownloadedFile> {
  const tx = await loadOwnTransaction(ctx, account, transactionId);
  if (tx.cleanedAt !== undefined) throw new ServiceError('DOCUMENT_GONE', DOCUMENT_GONE_MESSAGE);
  const file = findFile(tx, fileId);
  const blob = tx.Status === TransactionStatus.WaitingForDocument ? file?.Original : (file?.Current ?? file?.Original);
  if (file === undefined || blob === undefined) throw new ServiceError('FILE_NOT_FOUND', FILE_NOT_FOUND_MESSAGE);
  return { bytes: await ctx.store.blobs.read(blob.sha256), fileName: file.DisplayName ?? file.FileId };
}
