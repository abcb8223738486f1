/**
 * paraph's public library API, grouped by what an embedder does: place fields, sign and seal, verify, make and check
 * the evidential receipt, run the transaction service, and handle errors. Every library function takes bytes and
 * values and returns bytes and values; nothing reads a clock, the disk or the network unless handed a function that
 * does. Everything else under src/ is internal and may change between versions; test tools are in `paraph/testing`.
 *
 * @example
 * import { placeFieldsFromMetadata, signPdf, verifyPdf } from 'paraph';
 */

// Errors: one ParaphError with a stable `code` (ERROR_CODES: status, meaning and fix of each; docs/errors.md).
export {
  ParaphError,
  ValidationError,
  PdfParseError,
  PlacementError,
  SigningError,
  TimestampError,
  isInputError,
  isErrorCode,
  ERROR_CODES,
  type ErrorCode,
  type ErrorCodeInfo,
  type ErrorOrigin,
} from './errors.js';
export { NativeModuleError } from './load-native-module.js';

// Place: FileMetaData → fields in one incremental update; or resolve now (pure data) and write later.
export {
  parseFileMetaData,
  validateFileMetaData,
  FIELD_TYPES,
  type FileMetaData,
  type FieldSpec,
  type FieldType,
  type FieldValueInput,
  type Location,
  type SignerFormSets,
  type ParseFileMetaDataOptions,
  type ValidateFileMetaDataOptions,
} from './pdf/file-metadata.js';
export {
  placeFieldsFromMetadata,
  type PlaceFieldsFromMetadataOptions,
  type PlaceFieldsFromMetadataResult,
} from './pdf/place-fields-from-metadata.js';
export { resolvePlacements, type ResolvePlacementsOptions, type ResolvedPlacements } from './pdf/resolve-placements.js';
export { resolveLocations, type FieldPlacement, type LocateInput, type LocateSource, type LocateMatch } from './pdf/resolve-locations.js';
export { placeFields, type PlaceFieldsOptions, type PlaceFieldsResult, type PlacedField, type PlacedWidget } from './pdf/place-fields.js';
export { indexText, findText, type TextIndex, type PageText, type TextMatch, type IndexTextOptions, type FindTextOptions } from './pdf/text-index.js';
export type { PageGeometry, PageRotation, ReaderRect, UserRect } from './pdf/page-geometry.js';
export type { DocumentFacts } from './pdf/document-facts.js';
export { readFormFields, type ExistingField, type ExistingWidget } from './pdf/form-fields.js';

// Sign and seal (PAdES B-B … B-LTA), at once or in stages around a remote signer.
export { signPdf, type SignPdfOptions, type SignPdfResult } from './pades/sign-pdf.js';
export { sealPdf, type SealPdfOptions } from './pades/seal-pdf.js';
export {
  prepareSignature,
  digestPreparedSignature,
  embedSignature,
  DEFAULT_CONTENTS_SIZE,
  type PrepareSignatureOptions,
  type PreparedSignature,
  type SignaturePlacement,
} from './pades/prepare-signature.js';
export { listSignatureFields } from './pades/list-signature-fields.js';
export type { SignatureFieldInfo } from './pades/signature-field.js';
export type { SignatureAppearance } from './pades/appearance.js';
export { createHttpTimestamper, type HttpTimestamperOptions } from './pades/timestamp.js';
export { createHttpRevocationFetcher } from './pades/revocation.js';
export {
  addValidationData,
  type AddValidationDataOptions,
  type AddValidationDataResult,
  type CertificateValidation,
} from './pades/ltv.js';
export { addDocumentTimestamp, type AddDocumentTimestampOptions, type AddDocumentTimestampResult } from './pades/doc-timestamp.js';
export type { Signer, Timestamper, RevocationFetcher, HashAlgorithm, SignatureScheme } from './pades/types.js';

// Keys and certificates: software keys, PKCS#12 files, PKCS#11 tokens, the CAs the service issues from.
export { createSoftwareSigner, generateKeyPair, importPkcs8Key, type KeyKind, type SoftwareSigner } from './pades/keys/software.js';
export { loadPkcs12Signer, type Pkcs12Options } from './pades/keys/pkcs12.js';
export { openPkcs11Signer, type Pkcs11Signer, type Pkcs11SignerOptions } from './pades/keys/pkcs11.js';
export {
  createCertificateAuthority,
  loadCertificateAuthority,
  issueSigningIdentity,
  type CreatedAuthority,
  type CreatedIdentity,
  type IdentityValidity,
} from './pades/keys/identity.js';
export type { CertificateAuthority, DistinguishedName } from './pades/keys/ca.js';

// Verify: a verdict as data, never an exception.
export {
  verifyPdf,
  type VerifyOptions,
  type VerificationReport,
  type SignatureReport,
  type TimestampReport,
  type ModificationReport,
  type PadesLevel,
} from './pades/verify.js';

// Receipt: the audit log (hash chain) and the sealed receipt PDF.
export {
  appendAuditEntry,
  verifyAuditLog,
  type AuditEntry,
  type AuditEventInput,
  type AuditEventData,
  type AuditEventType,
  type AuditActor,
  type AuditLogVerdict,
} from './receipt/audit-log.js';
export { buildReceipt, type BuildReceiptOptions, type ReceiptSealer, type AuditLogAttachment } from './receipt/receipt.js';
export {
  verifyReceipt,
  readAuditLogAttachment,
  type VerifyReceiptOptions,
  type ReceiptVerdict,
  type ReceiptSealCheck,
  type ReceiptDocumentMatch,
} from './receipt/verify-receipt.js';
export type {
  ReceiptTransaction,
  ReceiptSigner,
  ReceiptReceiver,
  ReceiptDocument,
  ReceiptVerification,
  ReceiptActivity,
  ReceiptSeal,
  ReceiptCertificate,
} from './receipt/types.js';

// The transaction service: standalone, or mounted into a host's fastify app; and what a postback receiver needs.
export { loadConfig, type ServiceConfig, type LoadConfigInput, type QualifiedSealConfig, type BootstrapAccountConfig } from './config.js';
export {
  createService,
  type ParaphService,
  type ServiceOptions,
  type StartServerOptions,
  type CreatedCredentials,
  type ServiceLog,
} from './create-service.js';
export { paraphPlugin, type ParaphPluginOptions } from './paraph-plugin.js';
export { startServer, type RunningServer } from './server.js';
export { verifyPostback, type PostbackVerification, type PostbackHeaders, type VerifyPostbackOptions } from './events/verify-postback.js';
export { TransactionStatus, ActivityCode, type Transaction, type TransactionStatusCode, type ActivityCodeNumber } from './domain/transaction.js';
