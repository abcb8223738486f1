/**
 * Finishing a transaction at status 20 (a seal-only start and the last signature both end
 * here; docs/design/signatures.md#seal): every document is sealed when `Seal` is true (the seal is the last signature,
 * in its own incremental update), then the evidential receipt is built from the whole audit chain with R's
 * `buildReceipt` and sealed too, and one store commit writes the final PDFs, the receipt, status 30 and their audit
 * entries. Idempotent: when the commit loses a race or the process dies first, the transaction is still at 20 and
 * finalizing again redoes it all.
 */
import { X509Certificate } from 'node:crypto';
import { appendAuditEntry, type AuditCertificate, type AuditEntry } from '../receipt/audit-log.js';
import { buildReceipt } from '../receipt/receipt.js';
import type { ReceiptCertificate, ReceiptDocument, ReceiptSigner, ReceiptTransaction } from '../receipt/types.js';
import { sealInSession, sealPdf } from '../pades/seal-pdf.js';
import type { PdfUpdateSession } from '../pdf/incremental.js';
import { TransactionStatus, transition, updateFile, type Language, type Transaction } from '../domain/transaction.js';
import { catalogueFor } from '../i18n/catalogue.js';
import { ConcurrencyError, type AuditEntryInput, type OutboxInput } from '../store/store.js';
import { commitTransaction, changeTime } from './commit-change.js';
import type { ServiceContext } from './context.js';
import { completionMailRows, notificationRow, postbackRow } from './outbox-rows.js';
import { signerEvidence } from './signer/signer-evidence.js';
import { sealedOutputProblem } from './check-sealed-output.js';
import { DEFAULT_PDF_WORK_LIMITS, runPdfJob } from './pdf-work.js';
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

/**
 * Seals (when `Seal`), builds the receipt and moves `tx` (at 20) to 30 in one commit, together with `prior` when
 * given (then `tx` is the in-memory result of that earlier step). `open`: documents the caller holds parsed, by
 * FileId, each session's `original` being that file's current bytes (the last signer's sign request): sealed
 * without reading and parsing them again.
 *
 * @throws ConcurrencyError when the transaction changed meanwhile (nothing is written: finalize or start again).
 */
export async function finalizeTransaction(
  ctx: ServiceContext,
  tx: Transaction,
  prior?: PriorChange,
  open?: ReadonlyMap<string, PdfUpdateSession>,
): Promise<Transaction> {
  const now = changeTime(ctx, tx);
  const sealCert = ctx.keys.sealSigner.certificateChain[0];
  if (sealCert === undefined) throw new Error('The seal signer has no certificate.');
  const certificate = describeCertificate(sealCert);
  const level = ctx.keys.sealLevel;

  const finals = new Map<string, { sha256: string; size: number; rewrittenBecause?: string }>();
  for (const file of tx.Files) {
    const source = file.Current ?? file.Original;
    if (source === undefined) continue;
    const session = open?.get(file.FileId);
    let bytes = session?.original ?? (await ctx.store.blobs.read(source.sha256));
    let rewrittenBecause: string | undefined;
    if (tx.Seal) ({ bytes, rewrittenBecause } = await sealChecked(ctx, file.FileId, bytes, session, now, tx.Language));
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
  const receipt = await buildReceipt({
    transaction: receiptTransaction(completed, now, tx.Seal ? { certificate: receiptCertificate, level } : undefined, chain),
    documents: receiptDocuments(completed, finals),
    auditLog: chain,
    generatedAt: now,
    receiptSeal: { certificate: receiptCertificate, level },
    sealer: async (pdf) => (await sealPdf(pdf, sealOptions(ctx, now, tx.Language))).bytes,
  });
  const receiptInfo = await ctx.store.blobs.write(receipt);
  completed = { ...completed, Receipt: { sha256: receiptInfo.sha256, size: receiptInfo.size } };

  const outbox: OutboxInput[] = [...(prior?.outbox ?? [])];
  const postback = postbackRow(completed);
  if (postback) outbox.push(postback);
  outbox.push(...completionMailRows(completed));
  const notice = notificationRow(completed, 'signed');
  if (notice) outbox.push(notice);
  return commitTransaction(ctx, { transaction: completed, expectedVersion, audit, outbox });
}

/**
 * Seals `bytes` (or the open session) and checks the result as a reader would (check-sealed-output.ts). When the seal
 * does not hold, an unsigned document is rewritten cleanly once (in a PDF process) and sealed again; a document that
 * carries signatures cannot be rewritten.
 *
 * @throws ParaphError `SEAL_NOT_VERIFIABLE` (input) when no seal readers validate can be made.
 */
async function sealChecked(
  ctx: ServiceContext,
  fileId: string,
  bytes: Uint8Array,
  session: PdfUpdateSession | undefined,
  now: Date,
  language: Language | undefined,
): Promise<{ bytes: Uint8Array; rewrittenBecause?: string }> {
  const sealed = (session ? await sealInSession(session, sealOptions(ctx, now, language)) : await sealPdf(bytes, sealOptions(ctx, now, language))).bytes;
  const problem = await sealedOutputProblem(sealed, ctx.keys.sealCaPem);
  if (problem === undefined) return { bytes: sealed };
  const limits = ctx.settings.pdfWork ?? DEFAULT_PDF_WORK_LIMITS;
  let rewritten: Uint8Array;
  try {
    rewritten = (await runPdfJob({ kind: 'rewrite', bytes, timeoutMs: limits.baseMs }, limits)).bytes;
  } catch (error) {
    if (!isInputError(error)) throw error;
    throw sealNotVerifiable(fileId, `${problem}; rewriting it: ${error.message}`);
  }
  const again = (await sealPdf(rewritten, sealOptions(ctx, now, language))).bytes;
  const still = await sealedOutputProblem(again, ctx.keys.sealCaPem);
  if (still !== undefined) throw sealNotVerifiable(fileId, `${problem}; after a clean rewrite: ${still}`);
  return { bytes: again, rewrittenBecause: problem };
}

function sealNotVerifiable(fileId: string, why: string): ParaphError {
  return new ParaphError(
    'SEAL_NOT_VERIFIABLE',
    `File ${JSON.stringify(fileId)} could not be sealed so that PDF readers validate the seal (${why}): repair the document (e.g. print it to a new PDF) and send it in a new transaction.`,
    { origin: 'input' },
  );
}

/** The seal's options; its appearance speaks the transaction's language ("Verzegeld …" on a Dutch transaction). */
function sealOptions(ctx: ServiceContext, now: Date, language: Language | undefined) {
  return {
    signer: ctx.keys.sealSigner,
    signingTime: now,
    sealedLabel: catalogueFor(language).evidence.sealed,
    ...(ctx.timestamper ? { timestamper: ctx.timestamper } : {}),
  };
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
