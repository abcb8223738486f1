/**
 * Checking an evidential receipt by machine (`paraph receipt verify`): its seal must be valid, trusted and
 * cover the whole file; the audit log attached to it (`/AF`, `AFRelationship /Data`) must be readable, its hash
 * chain intact, and its entry count and head hash those the attachment declares; documents handed in must be ones the
 * log records (by SHA-256). The verdict is data.
 */
import { createHash } from 'node:crypto';
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFRawStream, PDFString, decodePDFRawStream, type PDFDocument } from '../pdf/pdf-lib.js';
import { verifyAuditLog, type AuditEntry, type AuditLogVerdict } from './audit-log.js';
import { AUDIT_LOG_ATTACHMENT, AUDIT_LOG_FORMATS, type AuditLogAttachment } from './receipt.js';
import { loadPdf } from '../pdf/load-pdf.js';
import { ParaphError } from '../errors.js';
import { verifyPdf, type SignatureReport, type VerificationReport } from '../pades/verify.js';

/** Options of {@link verifyReceipt}. */
export interface VerifyReceiptOptions {
  /** Certificates (DER or PEM) the receipt's seal must chain to. */
  readonly trustRoots: readonly (Uint8Array | string)[];
  /** Passed to `verifyPdf` to judge certificate validity of a seal without a time-stamp. */
  readonly now?: Date;
  /**
   * Whether a valid seal is required for `ok` (default true). Only for checking the log of an unsealed draft: without
   * a seal nothing stops someone from rebuilding the whole chain.
   */
  readonly requireSeal?: boolean;
  /**
   * Documents (PDF bytes) to look up in the receipt: each must be one the audit log records, as finalized
   * (`document.finalized`) or as uploaded (`file.uploaded`), by SHA-256; one that is not makes the verdict fail.
   */
  readonly documents?: readonly Uint8Array[];
}

/** Where a document handed to {@link verifyReceipt} appears in the receipt's audit log. */
export interface ReceiptDocumentMatch {
  /** Its position in `options.documents`. */
  readonly index: number;
  /** Lowercase hex SHA-256 of its bytes. */
  readonly sha256: string;
  /** The fileId the log records for it, when it was found. */
  readonly fileId: string | undefined;
  /** Whether it is the final signed document or the original upload; undefined when not found. */
  readonly as: 'signed' | 'uploaded' | undefined;
}

/** The seal as {@link verifyReceipt} judged it. */
export interface ReceiptSealCheck {
  /**
   * Valid, trusted, no disallowed change after it, and covering the whole file — itself, or through the document
   * time-stamps that follow it (PAdES B-LTA).
   */
  readonly ok: boolean;
  /** The last signature of the file that is not a document time-stamp (the receipt's seal), when there is one. */
  readonly signature: SignatureReport | undefined;
  /** `verifyPdf`'s full report. */
  readonly report: VerificationReport;
}

/** The verdict of {@link verifyReceipt}. */
export interface ReceiptVerdict {
  /** Seal (unless not required) and audit log both hold. */
  readonly ok: boolean;
  readonly seal: ReceiptSealCheck;
  /** The chain's verdict, checked against the count and head the attachment declares; absent when unreadable. */
  readonly auditLog: AuditLogVerdict | undefined;
  /** The attached log, when it could be read. */
  readonly attachment: AuditLogAttachment | undefined;
  /** One entry per document in `options.documents`. */
  readonly documents: readonly ReceiptDocumentMatch[];
  /** Everything that is wrong, in words (seal problems only when the seal is required). Empty when `ok`. */
  readonly problems: readonly string[];
}

/**
 * Verifies a receipt made by `buildReceipt`. Never rejects for a bad file: unreadable input is a verdict with
 * `ok: false` and the reason in `problems`.
 *
 * @example
 * const verdict = await verifyReceipt(pdf, { trustRoots: [sealRootPem] });
 * if (!verdict.ok) console.error(verdict.problems.join('\n'));
 */
export async function verifyReceipt(pdf: Uint8Array, options: VerifyReceiptOptions): Promise<ReceiptVerdict> {
  const problems: string[] = [];
  const report = await verifyPdf(pdf, { trustRoots: options.trustRoots, ...(options.now ? { now: options.now } : {}) });
  const sealProblems: string[] = [];
  const seal = judgeSeal(report, sealProblems);
  if (options.requireSeal !== false) problems.push(...sealProblems);

  let attachment: AuditLogAttachment | undefined;
  let auditLog: AuditLogVerdict | undefined;
  try {
    attachment = await readAuditLogAttachment(pdf);
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  if (attachment !== undefined) {
    auditLog = verifyAuditLog(attachment.entries, { count: attachment.count, head: attachment.head });
    if (!auditLog.ok) problems.push(`audit log: broken at entry ${auditLog.position + 1} (${auditLog.code}): ${auditLog.reason}`);
  }
  const documents = (options.documents ?? []).map((bytes, index) => matchDocument(bytes, index, attachment?.entries ?? []));
  for (const d of documents) {
    if (d.as === undefined) problems.push(`document ${d.index + 1} (SHA-256 ${d.sha256}) is not recorded in the audit log`);
  }
  const ok = (seal.ok || options.requireSeal === false) && auditLog?.ok === true && documents.every((d) => d.as !== undefined);
  return { ok, seal, auditLog, attachment, documents, problems: ok ? [] : problems };
}

function matchDocument(bytes: Uint8Array, index: number, entries: readonly AuditEntry[]): ReceiptDocumentMatch {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // A final document is matched before an upload: the same bytes can be both when nothing was signed or sealed.
  for (const [type, as] of [['document.finalized', 'signed'], ['file.uploaded', 'uploaded']] as const) {
    // Entries come from the file: malformed ones (reported by the chain check) must not throw here.
    const entry = entries.find((e) => e?.type === type && (e.data as { sha256?: unknown } | undefined)?.sha256 === sha256);
    if (entry !== undefined) return { index, sha256, fileId: String((entry.data as { fileId?: unknown }).fileId), as };
  }
  return { index, sha256, fileId: undefined, as: undefined };
}

function judgeSeal(report: VerificationReport, problems: string[]): ReceiptSealCheck {
  // The seal is the last signature proper; document time-stamps (B-LTA) may follow it, and then the last of those
  // must reach the end of the file instead.
  const signature = report.signatures.filter((s) => s.kind === 'signature').at(-1);
  const last = report.signatures.at(-1);
  if (!report.readable) {
    problems.push(`seal: ${report.problems.join('; ')}`);
  } else if (signature === undefined) {
    problems.push('seal: the receipt is not sealed');
  } else {
    if (!signature.valid) problems.push(`seal: not valid (${signature.problems.join('; ') || report.problems.join('; ')})`);
    for (const other of report.signatures) {
      if (other !== signature && !other.valid) problems.push(`seal: the ${other.kind} ${other.fieldName ?? ''} is not valid (${other.problems.join('; ')})`);
    }
    if (last?.coversWholeDocument !== true) {
      problems.push('seal: it does not cover the whole file: something was appended to the receipt after it was sealed');
    }
  }
  const ok = report.readable && signature !== undefined && report.valid && signature.valid && last?.coversWholeDocument === true;
  return { ok, signature, report };
}

/**
 * Reads the audit log attached to a receipt: the `/AF` file specification of the catalog named
 * `audit-log.json` with `AFRelationship /Data`, parsed and checked for shape (not for its chain).
 *
 * @throws PdfParseError (`PDF_*`) when the bytes are no PDF; ParaphError `RECEIPT_AUDIT_LOG_MISSING` when nothing is
 *   attached, `RECEIPT_AUDIT_LOG_UNREADABLE` when the attachment cannot be decoded or is not such a document.
 */
export async function readAuditLogAttachment(pdf: Uint8Array): Promise<AuditLogAttachment> {
  const doc = await loadPdf(pdf);
  const stream = findAttachmentStream(doc);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(decodePDFRawStream(stream).decode());
  } catch (error) {
    throw new ParaphError('RECEIPT_AUDIT_LOG_UNREADABLE', `audit log: the attached ${AUDIT_LOG_ATTACHMENT} cannot be decoded (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ParaphError('RECEIPT_AUDIT_LOG_UNREADABLE', `audit log: the attached ${AUDIT_LOG_ATTACHMENT} is not JSON (${(error as Error).message})`);
  }
  const record = value as Partial<Record<keyof AuditLogAttachment, unknown>> | null;
  if (
    record === null ||
    typeof record !== 'object' ||
    !AUDIT_LOG_FORMATS.includes(record.format as AuditLogAttachment['format']) ||
    typeof record.transactionId !== 'string' ||
    typeof record.count !== 'number' ||
    typeof record.head !== 'string' ||
    !Array.isArray(record.entries)
  ) {
    throw new ParaphError(
      'RECEIPT_AUDIT_LOG_UNREADABLE',
      `audit log: the attached ${AUDIT_LOG_ATTACHMENT} is not a ${AUDIT_LOG_FORMATS.join(' or ')} document (format, transactionId, count, head, entries)`,
    );
  }
  return {
    format: record.format as AuditLogAttachment['format'],
    transactionId: record.transactionId,
    count: record.count,
    head: record.head,
    entries: record.entries as AuditEntry[],
  };
}

function findAttachmentStream(doc: PDFDocument): PDFRawStream {
  const af = doc.catalog.lookupMaybe(PDFName.of('AF'), PDFArray);
  for (let i = 0; i < (af?.size() ?? 0); i++) {
    const spec = af!.lookupMaybe(i, PDFDict);
    if (spec === undefined) continue;
    const name = textOf(spec.lookup(PDFName.of('UF'))) ?? textOf(spec.lookup(PDFName.of('F')));
    const relationship = spec.lookupMaybe(PDFName.of('AFRelationship'), PDFName);
    if (name !== AUDIT_LOG_ATTACHMENT || relationship?.decodeText() !== 'Data') continue;
    const stream = spec.lookupMaybe(PDFName.of('EF'), PDFDict)?.lookup(PDFName.of('F'));
    if (stream instanceof PDFRawStream) return stream;
    throw new ParaphError('RECEIPT_AUDIT_LOG_UNREADABLE', `audit log: the ${AUDIT_LOG_ATTACHMENT} file specification has no embedded file stream`);
  }
  throw new ParaphError(
    'RECEIPT_AUDIT_LOG_MISSING',
    `audit log: the receipt has no attached ${AUDIT_LOG_ATTACHMENT} (an /AF file specification with AFRelationship /Data)`,
  );
}

function textOf(value: unknown): string | undefined {
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}
