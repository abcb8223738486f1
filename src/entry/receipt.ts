/**
 * `paraph/receipt`: the evidential receipt. The hash-chained audit log, the receipt PDF built from it (sealed by a
 * function the caller hands in) and its verification.
 *
 * @example
 * import { appendAuditEntry, buildReceipt, verifyReceipt } from 'paraph/receipt';
 */
export * from './errors.js';

export {
  appendAuditEntry,
  verifyAuditLog,
  type AuditEntry,
  type AuditEventInput,
  type AuditEventData,
  type AuditEventType,
  type AuditActor,
  type AuditLogVerdict,
} from '../receipt/audit-log.js';
export { buildReceipt, type BuildReceiptOptions, type ReceiptSealer, type AuditLogAttachment } from '../receipt/receipt.js';
export {
  verifyReceipt,
  readAuditLogAttachment,
  type VerifyReceiptOptions,
  type ReceiptVerdict,
  type ReceiptSealCheck,
  type ReceiptDocumentMatch,
} from '../receipt/verify-receipt.js';
export type {
  ReceiptTransaction,
  ReceiptSigner,
  ReceiptReceiver,
  ReceiptDocument,
  ReceiptVerification,
  ReceiptActivity,
  ReceiptSeal,
  ReceiptCertificate,
} from '../receipt/types.js';
