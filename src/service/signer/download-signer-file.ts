/**
 * Use case GET /api/signer/<token>/file/<fileId> (docs/design/signer-api.md#session): the PDF the signer is shown — the
 * prepared document with the signatures so far. Records activity 105 (DocumentOpened, Info = fileId) the first time the
 * signer opens each document, with an audit entry. After signing, a signer whose authentication has
 * `SecureDownload: true` downloads only within the window a fresh code opened
 * (docs/design/signer-api.md#authentications).
 */
import { ActivityCode, TransactionStatus, findFile, recordActivity } from '../../domain/transaction.js';
import { commitChange } from '../commit-change.js';
import type { ServiceContext } from '../context.js';
import { postbackRow } from '../delivery/outbox-rows.js';
import { ServiceError } from '../service-error.js';
import { assertCanSeeDocuments, findSignerByToken, needsAuthentication, needsSecureDownload, reloadAccess, secureDownloadStep, type SignerRequestInfo } from './signer-access.js';

/**
 * The document's current PDF for the token's signer.
 *
 * @throws ServiceError `SIGN_TOKEN_UNKNOWN`, `FILE_NOT_FOUND` (404), `TRANSACTION_CLEANED`,
 *   `TRANSACTION_ENDED` (410), `TRANSACTION_NOT_STARTED` (409), `AUTHENTICATION_REQUIRED`, `SECURE_DOWNLOAD_REQUIRED` (403).
 */
export async function downloadSignerFile(
  ctx: ServiceContext,
  token: string,
  fileId: string,
  _info: SignerRequestInfo,
): Promise<{ bytes: Uint8Array; fileName: string }> {
  const access = await findSignerByToken(ctx, token);
  const tx = access.transaction;
  assertCanSeeDocuments(tx, access.signer);
  if (needsAuthentication(access.signer)) {
    throw new ServiceError('AUTHENTICATION_REQUIRED', 'Confirm who you are first (the authentication step) to see the documents.');
  }
  if (needsSecureDownload(access.signer, ctx.clock())) {
    const type = secureDownloadStep(access.signer)?.type ?? 'PhoneNumber';
    throw new ServiceError(
      'SECURE_DOWNLOAD_REQUIRED',
      `Confirm who you are again to download the signed documents: ask for a new code (POST verification {"Type": "${type}"}) and enter it; it opens the downloads for 10 minutes.`,
    );
  }
  const file = findFile(tx, fileId);
  const blob = file?.Current ?? file?.Original;
  if (file === undefined || blob === undefined) throw new ServiceError('FILE_NOT_FOUND', `There is no document ${JSON.stringify(fileId)} in this transaction.`);
  const bytes = await ctx.store.blobs.read(blob.sha256);
  const opened = access.signer.Activities.some((a) => a.Code === ActivityCode.DocumentOpened && a.Info === fileId);
  if (!opened && tx.Status === TransactionStatus.WaitingForSigner) {
    await commitChange(
      ctx,
      async () => (await reloadAccess(ctx, access)).transaction,
      (current, now) => {
        const signer = current.Signers.find((s) => s.Id === access.signer.Id);
        if (signer === undefined || current.Status !== TransactionStatus.WaitingForSigner || signer.Activities.some((a) => a.Code === ActivityCode.DocumentOpened && a.Info === fileId)) return undefined;
        const next = recordActivity(current, { signerId: signer.Id }, { id: ctx.ids.id(), code: ActivityCode.DocumentOpened, info: fileId }, now);
        const postback = postbackRow(next);
        return {
          transaction: next,
          audit: [{ at: now, type: 'document.opened', actor: `signer:${signer.Id}`, data: { signerId: signer.Id, fileId } }],
          outbox: postback ? [postback] : [],
        };
      },
    );
  }
  return { bytes, fileName: file.DisplayName ?? file.FileId };
}
