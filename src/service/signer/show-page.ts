/**
 * Use cases behind ShowUrl (`/show/<token>`) and ReceiptUrl (`/receipt/<token>`) 
 * (docs/design/signer-api.md#show-and-receipt-urls): the signer's read-only view of their documents — the signed ones
 * once the signer has signed — and the receipt once the transaction is 30. Both are authorized by the signer's token,
 * refuse a cleaned transaction (410), honour `SecureDownload` (after signing, a fresh code through POST
 * /api/signer/<token>/verification opens the downloads for 10 minutes) and record the signer's activities: 302
 * SignedDocumentOpened and 303 SignedDocumentDownloaded (Info = fileId) for the signed documents, 402 ReceiptOpened and
 * 403 ReceiptDownloaded.
 */
import { ActivityCode, TransactionStatus, findFile, isEndStatus, receiptFor, recordActivity, type ActivityCodeNumber } from '../../domain/transaction.js';
import { type Language } from '../../i18n/languages.js';
import { commitChange } from '../commit-change.js';
import type { ServiceContext } from '../context.js';
import { postbackRow } from '../delivery/outbox-rows.js';
import { ServiceError } from '../service-error.js';
import { toSessionView } from './session-view.js';
import { assertCanSeeDocuments, findSignerByToken, needsAuthentication, needsSecureDownload, readSignSession, reloadAccess, secureDownloadStep, type SignerAccess } from './signer-access.js';

/** Open in the browser (302, 402) or save as a file (303, 403). */
export type DeliveryMode = 'open' | 'download';

/** What the show page presents. */
export interface ShowView {
  readonly language: Language;
  readonly reference?: string;
  readonly transactionStatus: number;
  /** Why no document can be listed, if none can. */
  readonly unavailable?: 'not-started' | 'authenticate' | 'ended';
  /** When the signer signed (ISO 8601), if they did. */
  readonly signedAt?: string;
  readonly documents: readonly { readonly fileId: string; readonly displayName: string; readonly pages: number }[];
  /** The receipt exists (transaction 30). */
  readonly receiptReady: boolean;
  /** SecureDownload after signing: the code step to pass before downloading, and until when downloads are open. */
  readonly secureDownload?: {
    readonly type: string;
    readonly sentTo?: string;
    readonly codeSent: boolean;
    readonly required: boolean;
    readonly openUntil?: string;
  };
}

/**
 * The show page of the token's signer.
 *
 * @throws ServiceError `SIGN_TOKEN_UNKNOWN` (404), `TRANSACTION_CLEANED` (410).
 */
export async function showDocuments(ctx: ServiceContext, token: string): Promise<ShowView> {
  const access = await findSignerByToken(ctx, token);
  const { transaction: tx, signer } = access;
  const now = ctx.clock();
  const secure = secureDownloadStep(signer);
  const session = readSignSession(signer);
  const step = secure === undefined ? undefined : toSessionView(access, ctx.settings.publicUrl).Verifications.find((v) => v.Index === secure.index);
  const unavailable = tx.Status === TransactionStatus.WaitingForDocument ? 'not-started' : isEndStatus(tx.Status) && tx.Status !== TransactionStatus.Signed ? 'ended' : needsAuthentication(signer) ? 'authenticate' : undefined;
  const documents =
    unavailable !== undefined
      ? []
      : [...tx.Files]
          .filter((f) => f.Original !== undefined)
          .sort((a, b) => (a.Metadata?.DisplayOrder ?? Number.MAX_SAFE_INTEGER) - (b.Metadata?.DisplayOrder ?? Number.MAX_SAFE_INTEGER))
          .map((f) => ({ fileId: f.FileId, displayName: f.DisplayName ?? f.Metadata?.DisplayName ?? f.FileId, pages: f.Original?.pages ?? 0 }));
  const openUntil = session.downloadUntil !== undefined && Date.parse(session.downloadUntil) > now.getTime() ? session.downloadUntil : undefined;
  return {
    language: signer.Language ?? tx.Language,
    ...(tx.Reference !== undefined ? { reference: tx.Reference } : {}),
    transactionStatus: tx.Status,
    ...(unavailable !== undefined ? { unavailable } : {}),
    ...(signer.SignedDateTime !== undefined ? { signedAt: signer.SignedDateTime } : {}),
    documents,
    receiptReady: tx.Status === TransactionStatus.Signed && tx.Receipt !== undefined,
    ...(secure !== undefined
      ? {
          secureDownload: {
            type: secure.type,
            ...(step?.SentTo !== undefined ? { sentTo: step.SentTo } : {}),
            codeSent: step?.CodeSent ?? false,
            required: needsSecureDownload(signer, now),
            ...(openUntil !== undefined ? { openUntil } : {}),
          },
        }
      : {}),
  };
}

/**
 * A document of the show page. Records 302 (open) or 303 (download) once the signer has signed.
 *
 * @throws ServiceError `SIGN_TOKEN_UNKNOWN`, `FILE_NOT_FOUND` (404), `TRANSACTION_CLEANED`,
 *   `TRANSACTION_ENDED` (410), `TRANSACTION_NOT_STARTED` (409), `AUTHENTICATION_REQUIRED`, `SECURE_DOWNLOAD_REQUIRED` (403).
 */
export async function deliverShownDocument(ctx: ServiceContext, token: string, fileId: string, mode: DeliveryMode): Promise<{ bytes: Uint8Array; fileName: string }> {
  const access = await findSignerByToken(ctx, token);
  const { transaction: tx, signer } = access;
  assertCanSeeDocuments(tx, signer);
  if (needsAuthentication(signer)) throw new ServiceError('AUTHENTICATION_REQUIRED', 'Confirm who you are first on the signing page to see the documents.');
  assertDownloadOpen(access, ctx.clock());
  const file = findFile(tx, fileId);
  const blob = file?.Current ?? file?.Original;
  if (file === undefined || blob === undefined) throw new ServiceError('FILE_NOT_FOUND', `There is no document ${JSON.stringify(fileId)} in this transaction.`);
  const bytes = await ctx.store.blobs.read(blob.sha256);
  if (signer.SignedDateTime !== undefined) await recordSignerActivity(ctx, access, mode === 'open' ? ActivityCode.SignedDocumentOpened : ActivityCode.SignedDocumentDownloaded, fileId);
  return { bytes, fileName: file.DisplayName ?? file.FileId };
}

/** The receipt of ReceiptUrl, or why there is none yet. */
export type ReceiptDelivery =
  | { readonly kind: 'receipt'; readonly bytes: Uint8Array; readonly transactionId: string; readonly language: Language }
  | { readonly kind: 'not-ready' | 'ended'; readonly language: Language };

/**
 * The receipt for the token's signer once the transaction is 30, in the signer's language where it was built in it
 * (`receiptFor`); records 402 (open) or 403 (download).
 *
 * @throws ServiceError `SIGN_TOKEN_UNKNOWN` (404), `TRANSACTION_CLEANED` (410), `SECURE_DOWNLOAD_REQUIRED` (403).
 */
export async function deliverShownReceipt(ctx: ServiceContext, token: string, mode: DeliveryMode): Promise<ReceiptDelivery> {
  const access = await findSignerByToken(ctx, token);
  const { transaction: tx, signer } = access;
  const language = signer.Language ?? tx.Language;
  const receipt = receiptFor(tx, language);
  if (tx.Status !== TransactionStatus.Signed || receipt === undefined) return { kind: isEndStatus(tx.Status) ? 'ended' : 'not-ready', language };
  assertDownloadOpen(access, ctx.clock());
  const bytes = await ctx.store.blobs.read(receipt.blob.sha256);
  await recordSignerActivity(ctx, access, mode === 'open' ? ActivityCode.ReceiptOpened : ActivityCode.ReceiptDownloaded);
  return { kind: 'receipt', bytes, transactionId: tx.Id, language: receipt.language };
}

function assertDownloadOpen(access: SignerAccess, now: Date): void {
  if (!needsSecureDownload(access.signer, now)) return;
  const type = secureDownloadStep(access.signer)?.type ?? 'PhoneNumber';
  throw new ServiceError(
    'SECURE_DOWNLOAD_REQUIRED',
    `Confirm who you are again to download the signed documents: ask for a new code (POST verification {"Type": "${type}"}) and enter it; it opens the downloads for 10 minutes.`,
  );
}

async function recordSignerActivity(ctx: ServiceContext, access: SignerAccess, code: ActivityCodeNumber, info?: string): Promise<void> {
  await commitChange(
    ctx,
    async () => (await reloadAccess(ctx, access)).transaction,
    (current, now) => {
      if (!current.Signers.some((s) => s.Id === access.signer.Id)) return undefined;
      const next = recordActivity(current, { signerId: access.signer.Id }, { id: ctx.ids.id(), code, ...(info !== undefined ? { info } : {}) }, now);
      const postback = postbackRow(next);
      return { transaction: next, outbox: postback ? [postback] : [] };
    },
  );
}
