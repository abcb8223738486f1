/**
 * Use case PUT /api/transaction/{id}/file/{fileId} (docs/design/files.md#file-ids): a PDF (streamed into the blob
 * store with the Digest checked while streaming, then opened with pdf-lib and pdf.js) or FileMetaData JSON.
 * Locations are resolved as soon as both are present; when that fails nothing of the upload is kept (the blob
 * written meanwhile is unreferenced and goes with the store's garbage collection). 201 new PDF, 204 replaced (or
 * metadata for a PDF already there), 202 metadata awaiting its PDF; 409 for a repeated upload (upload-guard.ts).
 */
import { createHash } from 'node:crypto';
import { parseFileMetaData, type FileMetaData } from '../pdf/file-metadata.js';
import type { DocumentFacts } from '../pdf/document-facts.js';
import { TransactionStatus, findFile, preparationKey, putFile, type BlobRef, type StoredFile, type Transaction } from '../domain/transaction.js';
import { invalidFileIdMessage, isValidFileId } from '../domain/transaction-file-id.js';
import { PdfParseError, ValidationError } from '../errors.js';
import { QuotaError } from './policies/quota-error.js';
import { serviceQuotas } from './policies/service-quotas.js';
import type { Account, AuditEntryInput } from '../store/store.js';
import { commitChange } from './commit-change.js';
import { loadOwnTransaction, type ServiceContext } from './context.js';
import { DEFAULT_PDF_WORK_LIMITS, runPdfJob } from './pdf-jobs/pdf-work.js';
import { resolveDocument, type ResolvedDocument } from './prepare-document.js';
import { ServiceError } from './service-error.js';
import { assertNotCleaned } from './policies/transaction-guards.js';

/** The request, as the HTTP layer hands it over. */
export interface UploadFileInput {
  readonly account: Account;
  readonly transactionId: string;
  /** Already percent-decoded once. */
  readonly fileId: string;
  /** The media type without parameters, lowercase; undefined when the header is missing. */
  readonly mediaType: string | undefined;
  readonly digests: { readonly sha256?: string; readonly sha512?: string };
  /** The raw PDF stream, or the JSON body bytes. */
  readonly body: AsyncIterable<Uint8Array> | Uint8Array | undefined;
  /** Content-Length, when sent (413 before reading anything). */
  readonly declaredLength?: number;
}

/** The status the upload answers with. */
export type UploadFileStatus = 201 | 202 | 204;

const CONTENT_TYPE_MESSAGE = "Unexpected or missing Content-Type header, did you specify 'application/pdf'?";
/** Checks a fileId against the file id rule (docs/design/files.md#file-ids; see transaction-file-id.ts). */
function checkFileId(fileId: string): void {
  if (!isValidFileId(fileId)) throw new ServiceError('INVALID_FILE_ID', invalidFileIdMessage(fileId));
}

/**
 * Stores an upload.
 *
 * @throws ServiceError / ValidationError / PdfParseError / PlacementError / StoreError (digest, size) as above.
 */
export async function uploadFile(ctx: ServiceContext, input: UploadFileInput): Promise<UploadFileStatus> {
  checkFileId(input.fileId);
  const kind = input.mediaType === 'application/pdf' ? 'pdf' : input.mediaType === 'application/json' ? 'metadata' : undefined;
  if (kind === undefined) throw new ServiceError('UNSUPPORTED_CONTENT_TYPE', CONTENT_TYPE_MESSAGE);
  const tx = await loadOwnTransaction(ctx, input.account, input.transactionId);
  assertUploadable(tx);
  if (kind === 'pdf' && input.declaredLength !== undefined && input.declaredLength > maxFileBytes(ctx, input.account)) {
    throw tooLarge(maxFileBytes(ctx, input.account));
  }
  if (input.declaredLength !== undefined) await checkStorageQuota(ctx, input.account, input.declaredLength);
  const release = await ctx.uploads.begin(tx.Id, input.fileId, kind, ctx.clock().getTime());
  let accepted = false;
  try {
    const status = kind === 'pdf' ? await uploadPdf(ctx, input) : await uploadMetadata(ctx, input);
    accepted = true;
    return status;
  } finally {
    await release(accepted, ctx.clock().getTime());
  }
}

function assertUploadable(tx: Transaction): void {
  assertNotCleaned(tx);
  if (tx.Status !== TransactionStatus.WaitingForDocument) throw new ServiceError('TRANSACTION_ALREADY_STARTED', 'The transaction has already been started.');
}

/** The largest PDF the account may upload: the service's limit, or the account's lower one (docs/design/accounts.md#accounts). */
function maxFileBytes(ctx: ServiceContext, account: Account): number {
  return Math.min(ctx.settings.maxFileBytes, account.Limits?.MaxFileBytes ?? Number.POSITIVE_INFINITY);
}

function tooLarge(limit: number): ServiceError {
  return new ServiceError('FILE_TOO_LARGE', `The file is larger than the maximum of ${limit} bytes.`);
}

async function uploadPdf(ctx: ServiceContext, input: UploadFileInput): Promise<UploadFileStatus> {
  if (input.body === undefined) throw new ServiceError('EMPTY_BODY', 'The file is empty: send the bytes of a PDF document.');
  let info;
  try {
    info = await ctx.store.blobs.write(input.body, {
      maxBytes: maxFileBytes(ctx, input.account),
      ...(input.digests.sha256 !== undefined ? { expectSha256: input.digests.sha256 } : {}),
      ...(input.digests.sha512 !== undefined ? { expectSha512: input.digests.sha512 } : {}),
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'BLOB_TOO_LARGE') throw tooLarge(maxFileBytes(ctx, input.account));
    throw error;
  }
  // An unsigned document with an empty user password or a damaged xref is rewritten once (normalize-pdf.ts); the
  // rewrite is what the transaction works on, and the audit entry keeps the uploaded file's SHA-256 and the reason.
  // pdf-lib reads it in pdf-work.ts's threads, within their heap and time budget.
  const uploaded = info;
  let bytes: Uint8Array;
  let pages: number;
  let facts: DocumentFacts | undefined;
  let normalizedFrom: { sha256: string; bytes: number; reason: string } | undefined;
  try {
    await checkStorageQuota(ctx, input.account, info.size);
    bytes = await ctx.store.blobs.read(uploaded.sha256);
    // Its page count is not known yet: the budget is the base one, and the repair (if any) gets all of it.
    const limits = ctx.settings.pdfWork ?? DEFAULT_PDF_WORK_LIMITS;
    const maxPages = serviceQuotas(ctx.settings).maxPages;
    const opened = await runPdfJob({ kind: 'open', bytes, normalizeMs: limits.baseMs, maxPages }, limits, { trace: ctx.trace });
    if (opened.bytes && opened.normalization) {
      bytes = opened.bytes;
      info = await ctx.store.blobs.write(bytes);
      normalizedFrom = { sha256: uploaded.sha256, bytes: uploaded.size, reason: `${opened.normalization.reason}: ${opened.normalization.detail}` };
    }
    pages = opened.pageCount;
    facts = opened.facts;
    checkPageCount(pages, maxPages);
  } catch (error) {
    // A refused upload does not stay on disk until the garbage collection.
    await ctx.store.discardBlob(info.sha256);
    if (info !== uploaded) await ctx.store.discardBlob(uploaded.sha256);
    throw error;
  }

  return commitFileChange(ctx, input, {
    written: info === uploaded ? [info.sha256] : [info.sha256, uploaded.sha256],
    uploadedPdf: bytes,
    ...(facts ? { facts } : {}),
    change: (file, now) => ({
      ...file,
      Original: { sha256: info.sha256, size: info.size, pages },
      UploadedDateTime: now.toISOString().replace(/Z$/, '+00:00'),
    }),
    audit: (file, now) => ({
      at: now,
      type: 'file.uploaded',
      actor: 'api',
      data: {
        fileId: input.fileId,
        displayName: file.DisplayName ?? input.fileId,
        sha256: info.sha256,
        bytes: info.size,
        pages,
        ...(normalizedFrom ? { normalizedFrom } : {}),
      },
    }),
    status: (existing) => (existing?.Original !== undefined ? 204 : 201),
  });
}

async function uploadMetadata(ctx: ServiceContext, input: UploadFileInput): Promise<UploadFileStatus> {
  const body = input.body;
  if (body === undefined || !(body instanceof Uint8Array) || body.length === 0) {
    throw new ServiceError('EMPTY_BODY', 'The metadata is empty: send a FileMetaData JSON object.');
  }
  checkDigests(body, input.digests);
  const metadata = parseFileMetaData(body, { fileId: input.fileId });

  const first = await loadOwnTransaction(ctx, input.account, input.transactionId);
  checkSignerIds(first, metadata);
  const info = await ctx.store.blobs.write(body);
  return commitFileChange(ctx, input, {
    written: [info.sha256],
    change: (file) => {
      const changed: StoredFile = { ...file, Metadata: metadata, MetadataBlob: { sha256: info.sha256, size: info.size } };
      if (metadata.DisplayName !== undefined) changed.DisplayName = metadata.DisplayName;
      else delete changed.DisplayName;
      return changed;
    },
    audit: (_file, now) => ({ at: now, type: 'metadata.uploaded', actor: 'api', data: { fileId: input.fileId, sha256: info.sha256, bytes: info.size } }),
    status: (existing) => (existing?.Original !== undefined ? 204 : 202),
  });
}

/** What one upload (a PDF or a metadata document) changes in its file. */
interface FileChange {
  /** The blobs the upload wrote: discarded when it is refused. */
  readonly written: readonly string[];
  /** The uploaded PDF, when the upload is one; else the file's stored PDF (if any) is read. */
  readonly uploadedPdf?: Uint8Array;
  /** What the upload's worker job read of `uploadedPdf` for resolving its placements. */
  readonly facts?: DocumentFacts;
  /** The file with the upload applied, from the stored one without what the upload makes stale. */
  readonly change: (file: StoredFile, now: Date) => StoredFile;
  readonly audit: (file: StoredFile, now: Date) => AuditEntryInput;
  /** The answer, from the file as it was before. */
  readonly status: (existing: StoredFile | undefined) => UploadFileStatus;
}

/**
 * Commits an upload to its file under optimistic concurrency, with the placements resolved again whenever the file
 * then has a PDF (once per preparation key: a retried commit reuses them). Nothing of a refused upload is kept.
 */
async function commitFileChange(ctx: ServiceContext, input: UploadFileInput, change: FileChange): Promise<UploadFileStatus> {
  let resolved: ResolvedDocument | undefined;
  let existing: StoredFile | undefined;
  try {
    await commitChange(
      ctx,
      () => loadOwnTransaction(ctx, input.account, input.transactionId),
      async (tx, now) => {
        assertUploadable(tx);
        existing = findFile(tx, input.fileId);
        const file = change.change({ ...withoutDerived(existing), FileId: input.fileId }, now);
        if (file.Original !== undefined) {
          resolved = await resolvedFor(ctx, file, file.Original, tx, change, resolved);
          file.Placements = resolved.placements;
          file.Prepared = { key: resolved.key };
        }
        return { transaction: putFile(tx, file, now), audit: [change.audit(file, now)] };
      },
    );
  } catch (error) {
    for (const sha256 of change.written) await ctx.store.discardBlob(sha256);
    throw error;
  }
  return change.status(existing);
}

/** The stored file without what an upload makes stale (placements and their key, the prepared PDF). */
function withoutDerived(file: StoredFile | undefined): Partial<StoredFile> {
  if (file === undefined) return {};
  const { Placements: _placements, Current: _current, Prepared: _prepared, ...rest } = file;
  return rest;
}

/** `earlier` when it was resolved from what `file` and the transaction's signers are now, else a new resolution. */
async function resolvedFor(
  ctx: ServiceContext,
  file: StoredFile,
  original: BlobRef,
  tx: Transaction,
  change: FileChange,
  earlier: ResolvedDocument | undefined,
): Promise<ResolvedDocument> {
  const signerIds = tx.Signers.map((s) => s.Id);
  if (earlier !== undefined && earlier.key === preparationKey(file, signerIds)) return earlier;
  if (change.uploadedPdf !== undefined) return resolveDocument(ctx, file, change.uploadedPdf, signerIds, change.facts);
  return resolveDocument(ctx, file, await ctx.store.blobs.read(original.sha256), signerIds);
}

/**
 * Refuses more pages than the limit, as pdf-lib reads them (docs/design/files.md#pdf-checks: normalize-pdf.ts opened
 * the PDF with pdf-lib). pdf.js reads it only in the text index's workers, when prepare-document.ts resolves its
 * placements, never on the serving thread.
 */
function checkPageCount(pages: number, maxPages: number): void {
  if (pages > maxPages) {
    throw new PdfParseError('PDF_TOO_MANY_PAGES', `The PDF has ${pages} pages; this service accepts at most ${maxPages}.`);
  }
}

/** Refuses an upload of `bytes` more when the account's stored uploads would pass its quota (429). */
async function checkStorageQuota(ctx: ServiceContext, account: Account, bytes: number): Promise<void> {
  const quota = account.Limits?.StorageBytes ?? serviceQuotas(ctx.settings).accountStorageBytes;
  const used = await ctx.store.accountStorageBytes(account.Id);
  if (used + bytes > quota) {
    throw new QuotaError(
      'ACCOUNT_STORAGE_QUOTA',
      `The account's storage quota of ${quota} bytes is used up (${used} bytes stored): delete or wait for ended transactions to be cleaned.`,
      3600,
    );
  }
}

function checkDigests(body: Uint8Array, digests: UploadFileInput['digests']): void {
  if (digests.sha256 !== undefined && createHash('sha256').update(body).digest('hex') !== digests.sha256) {
    throw new ServiceError('DIGEST_MISMATCH', 'SHA-256 digest mismatch');
  }
  if (digests.sha512 !== undefined && createHash('sha512').update(body).digest('hex') !== digests.sha512) {
    throw new ServiceError('DIGEST_MISMATCH', 'SHA-512 digest mismatch');
  }
}

/** Every signer the metadata names must be a signer of the transaction. */
function checkSignerIds(tx: Transaction, metadata: FileMetaData): void {
  const known = new Set(tx.Signers.map((s) => s.Id));
  const unknown = Object.keys(metadata.Signers ?? {}).filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new ValidationError(
      // Signhost's text.
      unknown.map((id) => `Signer '${id}' not found.`),
      'INVALID_FILE_METADATA',
    );
  }
}
