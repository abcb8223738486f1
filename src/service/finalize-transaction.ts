/**
 * Finishing a transaction at status 20 (a seal-only start and the last signature both end
 * here; docs/design/signatures.md#seal): every document is sealed when `Seal` is true (the seal is the last signature,
 * in its own incremental update), then the evidential receipt is built from the whole audit chain with
 * `buildReceipt` and sealed too (one PDF job, receipt-job.ts), and one store commit writes the final PDFs, the
 * receipt, status 30 and their audit entries. Idempotent: when the commit loses a race or the process dies first,
 * the transaction is still at 20 and finalizing again redoes it all.
 */
import { X509Certificate } from 'node:crypto';
import { appendAuditEntry, type AuditCertificate, type AuditEntry } from '../receipt/audit-log.js';
import type { ReceiptCertificate, ReceiptDocument, ReceiptSigner, ReceiptTransaction } from '../receipt/types.js';
import { TransactionStatus, receiptTranslationLanguages, transition, updateFile, type BlobRef, type Transaction } from '../domain/transaction.js';
import { type Language } from '../i18n/languages.js';
import { ConcurrencyError, type AuditEntryInput, type OutboxInput } from '../store/store.js';
import { commitTransaction, changeTime } from './commit-change.js';
import type { ServiceContext } from './context.js';
import { completionMailRows, notificationRow, postbackRow } from './delivery/outbox-rows.js';
import { signerEvidence } from './signer/signer-evidence.js';
import { DEFAULT_PDF_WORK_LIMITS, runPdfJob } from './pdf-jobs/pdf-work.js';
import type { SealedDocument } from './pdf-jobs/pdf-work-protocol.js';
import { accountSeal, sealInPool, sealStep } from './pdf-jobs/seal-job.js';
import type { AccountSeal } from './keys/account-seals.js';
import { receiptInPool } from './pdf-jobs/receipt-job.js';
import { ParaphError, isInputError } from '../errors.js';

/** Subject, serial (hex) and issuer of a DER certificate, as the audit trail and the receipt show them. */
export function describeCertificate(der: Uint8Array): AuditCertificate {
  // The seal certificate is the same object for every transaction: parse it once.
  let described = describedCertificates.get(der);
  if (described === undefined) {
    const cert = new X509Certificate(der);
    const line = (name: string): string => name.split('\n').filter(Boolean).join(', ');
    described = { subject: line(cert.subject), serial: cert.serialNumber.toLowerCase(), issuer: line(cert.issuer) };
    describedCertificates.set(der, described);
  }
  return { ...described };
}

const describedCertificates = new WeakMap<Uint8Array, AuditCertificate>();

/** What an earlier step of the same commit already did (a seal-only start: status 5 → 20 → 30 in one commit). */
export interface PriorChange {
  /** The stored version the commit compares against. */
  readonly expectedVersion: number;
  readonly audit: readonly AuditEntryInput[];
  readonly outbox: readonly OutboxInput[];
}

/** Documents the caller already sealed at `at` (the last signer's sign job seals from its own parse), by FileId. */
export interface Presealed {
  readonly at: Date;
  readonly files: ReadonlyMap<string, SealedDocument>;
}

/** How {@link finalizeTransaction} runs besides its inputs. */
export interface FinalizeOptions {
  /** Used when `at` is not before the transaction's last change (else every document is sealed afresh). */
  readonly presealed?: Presealed;
  /** Ends the PDF jobs (and so the finalization, nothing committed) when aborted. */
  readonly signal?: AbortSignal;
}

/**
 * Seals (when `Seal`), builds the receipt and moves `tx` (at 20) to 30 in one commit, together with `prior` when
 * given (then `tx` is the in-memory result of that earlier step). Every PDF read or written (each seal, its check, the
 * receipt and its seal) is a PDF job (pdf-work.ts); the serving process lends the seal key one signature at a time.
 *
 * @throws ConcurrencyError when the transaction changed meanwhile (nothing is written: finalize or start again).
 */
export async function finalizeTransaction(
  ctx: ServiceContext,
  tx: Transaction,
  prior?: PriorChange,
  options: FinalizeOptions = {},
): Promise<Transaction> {
  const { presealed, signal } = options;
  const usable = presealed !== undefined && presealed.at.getTime() >= Date.parse(tx.ModifiedDateTime) ? presealed : undefined;
  const now = usable?.at ?? changeTime(ctx, tx);
  const seal = await accountSeal(ctx, tx.AccountId);
  const sealCert = seal.signer.certificateChain[0];
  if (sealCert === undefined) throw new Error('The seal signer has no certificate.');
  const certificate = describeCertificate(sealCert);
  const level = seal.level;

  const finals = new Map<string, { sha256: string; size: number; rewrittenBecause?: string }>();
  for (const file of tx.Files) {
    const source = file.Current ?? file.Original;
    if (source === undefined) continue;
    const read = () => ctx.store.blobs.read(source.sha256);
    let bytes: Uint8Array;
    let rewrittenBecause: string | undefined;
    if (tx.Seal) {
      const pages = file.Original?.pages ?? 0;
      ({ bytes, rewrittenBecause } = await sealChecked(ctx, seal, file.FileId, read, pages, usable?.files.get(file.FileId), now, tx.Language, signal));
    } else bytes = await read();
    const info = await ctx.store.blobs.write(bytes);
    finals.set(file.FileId, { sha256: info.sha256, size: info.size, ...(rewrittenBecause !== undefined ? { rewrittenBecause } : {}) });
  }

  const audit: AuditEntryInput[] = [...(prior?.audit ?? [])];
  if (tx.Seal) {
    audit.push({ at: now, type: 'transaction.sealed', actor: 'system', data: { certificate, level, fileIds: [...finals.keys()] } });
  }
  for (const [fileId, info] of finals) {
    const rewritten = info.rewrittenBecause !== undefined ? { rewrittenBecause: info.rewrittenBecause } : {};
    audit.push({ at: now, type: 'document.finalized', actor: 'system', data: { fileId, sha256: info.sha256, bytes: info.size, ...rewritten } });
  }
  audit.push({ at: now, type: 'transaction.completed', actor: 'system', data: { status: TransactionStatus.Signed } });

  let completed = transition(tx, { type: 'complete' }, now);
  for (const [fileId, final] of finals) completed = updateFile(completed, fileId, (file) => ({ ...file, Current: final }), now);

  let chain: readonly AuditEntry[] = await ctx.store.listAuditEntries(tx.Id);
  // The receipt must show the chain of the version this commit replaces: a change committed meanwhile (a file
  // upload racing a seal-only start) loses to it with a ConcurrencyError, never an audit-order error.
  const expectedVersion = prior?.expectedVersion ?? tx.version;
  const stored = await ctx.store.getTransaction(tx.Id);
  if (stored?.version !== expectedVersion) throw new ConcurrencyError(tx.Id, expectedVersion, stored?.version);
  for (const entry of audit) chain = appendAuditEntry(chain, entry);
  const receiptCertificate: ReceiptCertificate = certificate;
  const organization = seal.organization;
  // One receipt in the transaction's language, and the same in each other language a signer reads: a signer's
  // confirmation carries the one they can read. Each is sealed on its own (its seal line in its language).
  const buildIn = async (language: Language): Promise<BlobRef> => {
    const receipt = await receiptInPool(
      ctx,
      seal,
      {
        transaction: { ...receiptTransaction(completed, now, tx.Seal ? { certificate: receiptCertificate, level } : undefined, chain), ...(organization ? { organization } : {}) },
        documents: receiptDocuments(completed, finals),
        auditLog: chain,
        language,
        generatedAt: now,
        receiptSeal: { certificate: receiptCertificate, level },
      },
      sealStep(ctx, seal, now, language, false),
      signal,
    );
    const info = await ctx.store.blobs.write(receipt);
    return { sha256: info.sha256, size: info.size };
  };
  const receiptBlob = await buildIn(tx.Language);
  const translations: Partial<Record<Language, BlobRef>> = {};
  for (const language of receiptTranslationLanguages(tx)) translations[language] = await buildIn(language);
  completed = { ...completed, Receipt: receiptBlob, ...(Object.keys(translations).length > 0 ? { ReceiptTranslations: translations } : {}) };

  const outbox: OutboxInput[] = [...(prior?.outbox ?? [])];
  const postback = postbackRow(completed);
  if (postback) outbox.push(postback);
  outbox.push(...completionMailRows(completed));
  const notice = notificationRow(completed, 'signed');
  if (notice) outbox.push(notice);
  return commitTransaction(ctx, { transaction: completed, expectedVersion, audit, outbox });
}

/**
 * Seals the document `read` gives (unless `presealed` holds its seal) and checks the result as a reader would (check-sealed-output.ts),
 * both in a PDF job. When the seal does not hold, an unsigned document is rewritten cleanly once and sealed again; a
 * document that carries signatures cannot be rewritten.
 *
 * @throws ParaphError `SEAL_NOT_VERIFIABLE` (input) when no seal readers validate can be made.
 */
async function sealChecked(
  ctx: ServiceContext,
  seal: AccountSeal,
  fileId: string,
  read: () => Promise<Uint8Array>,
  pages: number,
  presealed: SealedDocument | undefined,
  now: Date,
  language: Language | undefined,
  signal: AbortSignal | undefined,
): Promise<{ bytes: Uint8Array; rewrittenBecause?: string }> {
  const step = sealStep(ctx, seal, now, language, true);
  const sealed = presealed ?? (await sealInPool(ctx, seal, await read(), step, pages, signal));
  const problem = sealed.problem;
  if (problem === undefined) return { bytes: sealed.bytes };
  const limits = ctx.settings.pdfWork ?? DEFAULT_PDF_WORK_LIMITS;
  let rewritten: Uint8Array;
  try {
    rewritten = (await runPdfJob({ kind: 'rewrite', bytes: await read(), timeoutMs: limits.baseMs }, limits, { pageCount: pages, trace: ctx.trace, ...(signal ? { signal } : {}) })).bytes;
  } catch (error) {
    if (!isInputError(error)) throw error;
    throw sealNotVerifiable(fileId, `${problem}; rewriting it: ${error.message}`);
  }
  const again = await sealInPool(ctx, seal, rewritten, step, pages, signal);
  if (again.problem !== undefined) throw sealNotVerifiable(fileId, `${problem}; after a clean rewrite: ${again.problem}`);
  return { bytes: again.bytes, rewrittenBecause: problem };
}

function sealNotVerifiable(fileId: string, why: string): ParaphError {
  return new ParaphError(
    'SEAL_NOT_VERIFIABLE',
    `File ${JSON.stringify(fileId)} could not be sealed so that PDF readers validate the seal (${why}): repair the document (e.g. print it to a new PDF) and send it in a new transaction.`,
    { origin: 'input' },
  );
}

function receiptTransaction(tx: Transaction, now: Date, seal: ReceiptTransaction['seal'], chain: readonly AuditEntry[]): ReceiptTransaction {
  const signers: ReceiptSigner[] = tx.Signers.map((s) => ({
    id: s.Id,
    email: s.Email,
    ...(s.ScribbleName !== undefined ? { name: s.ScribbleName } : {}),
    ...(s.Reference !== undefined ? { reference: s.Reference } : {}),
    outcome: s.SignedDateTime !== undefined ? 'signed' : s.RejectDateTime !== undefined ? 'rejected' : 'not signed',
    ...signerEvidence(s, chain),
    ...(s.SignedDateTime !== undefined ? { signedAt: new Date(s.SignedDateTime) } : {}),
    activities: s.Activities.map((a) => ({ code: a.Code, activity: a.Activity, at: new Date(a.CreatedDateTime), ...(a.Info !== undefined ? { info: a.Info } : {}) })),
  }));
  return {
    id: tx.Id,
    ...(tx.Reference !== undefined ? { reference: tx.Reference } : {}),
    status: tx.Status,
    language: tx.Language,
    createdAt: new Date(tx.CreatedDateTime),
    completedAt: now,
    ...(seal ? { seal } : {}),
    signers,
    receivers: tx.Receivers.map((r) => ({
      id: r.Id,
      email: r.Email,
      ...(r.Name !== undefined ? { name: r.Name } : {}),
      ...(r.Reference !== undefined ? { reference: r.Reference } : {}),
      // The receiver's copy is queued in the same commit as the receipt (completionMailRows).
      ...(tx.Status === TransactionStatus.Signed ? { documentsScheduled: true } : {}),
      activities: r.Activities.map((a) => ({ code: a.Code, activity: a.Activity, at: new Date(a.CreatedDateTime) })),
    })),
  };
}

function receiptDocuments(tx: Transaction, finals: ReadonlyMap<string, { sha256: string; size: number }>): ReceiptDocument[] {
  return tx.Files.flatMap((file) => {
    if (file.Original === undefined) return [];
    const final = finals.get(file.FileId);
    return [
      {
        fileId: file.FileId,
        displayName: file.DisplayName ?? file.FileId,
        pages: file.Original.pages,
        originalSha256: file.Original.sha256,
        originalBytes: file.Original.size,
        ...(final ? { finalSha256: final.sha256, finalBytes: final.size } : {}),
      },
    ];
  });
}
