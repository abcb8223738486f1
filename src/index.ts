/**
 * paraph's public library API: what a backend imports without the HTTP service.
 * Every function takes bytes and values and returns bytes and values.
 */
export {
  ParaphError,
  ValidationError,
  PdfParseError,
  PlacementError,
  SigningError,
  TimestampError,
  isInputError,
  type ErrorOrigin,
} from './errors.js';
export {
  verifyPdf,
  type VerifyOptions,
  type VerificationReport,
  type SignatureReport,
  type TimestampReport,
  type ModificationReport,
  type PadesLevel,
} from './pades/verify.js';
export { findRevisions, type PdfRevision } from './pdf/revisions.js';
export {
  indexText,
  findText,
  normalizeSearchText,
  type TextIndex,
  type PageText,
  type TextMatch,
  type IndexTextOptions,
  type FindTextOptions,
} from './pdf/text-index.js';
export {
  pageGeometry,
  pageGeometryFromBoxes,
  userPointToReader,
  readerPointToUser,
  readerRectToUser,
  userRectToReader,
  type PageGeometry,
  type PageRotation,
  type ReaderRect,
  type UserRect,
} from './pdf/page-geometry.js';
export {
  parseFileMetaData,
  validateFileMetaData,
  textFieldValueProblem,
  exportValueOf,
  fieldValueText,
  fillableSignerIds,
  radioGroupFieldName,
  FIELD_TYPES,
  INVALID_FILE_METADATA,
  FILE_METADATA_TOO_LARGE,
  type FileMetaData,
  type FieldSpec,
  type FieldType,
  type Location,
  type SignerFormSets,
  type ParseFileMetaDataOptions,
  type ValidateFileMetaDataOptions,
  type FieldValueInput,
} from './pdf/file-metadata.js';
export { readFormFields, type ExistingField, type ExistingWidget } from './pdf/form-fields.js';
export {
  resolveLocations,
  resolveLocation,
  defaultSignerPlacements,
  toLocateSource,
  DEFAULT_FIELD_SIZES,
  type FieldPlacement,
  type LocateInput,
  type LocateMatch,
  type LocateSource,
  type DefaultPlacementOptions,
} from './pdf/resolve-locations.js';
export {
  placeFields,
  type PlaceFieldsOptions,
  type PlaceFieldsResult,
  type PlacedField,
  type PlacedWidget,
} from './pdf/place-fields.js';
export {
  placeFieldsFromMetadata,
  type PlaceFieldsFromMetadataOptions,
  type PlaceFieldsFromMetadataResult,
} from './pdf/place-fields-from-metadata.js';
export {
  openPdfForUpdate,
  writeIncrementalUpdate,
  appendPageAnnotation,
  type PdfUpdateSession,
  type IncrementalUpdate,
} from './pdf/incremental.js';
export { signPdf, certificateSubjectName, type SignPdfOptions, type SignPdfResult } from './pades/sign-pdf.js';
export { sealPdf, findSealField, type SealPdfOptions } from './pades/seal-pdf.js';
export {
  prepareSignature,
  digestPreparedSignature,
  embedSignature,
  DEFAULT_CONTENTS_SIZE,
  type PrepareSignatureOptions,
  type PreparedSignature,
  type SignaturePlacement,
} from './pades/prepare-signature.js';
export { buildCmsSignature, type CmsSignatureOptions } from './pades/cms.js';
export { type SignatureFieldInfo } from './pades/signature-field.js';
export { listSignatureFields } from './pades/list-signature-fields.js';
export { readDocMdpPermission, type DocMdpPermission } from './pades/docmdp.js';
export { type SignatureAppearance } from './pades/appearance.js';
export {
  createSoftwareSigner,
  generateKeyPair,
  importPkcs8Key,
  pemToDer,
  pssParametersFor,
  ecdsaRawToDer,
  type KeyKind,
  type SoftwareSigner,
  type PssParameters,
} from './pades/keys/software.js';
export { loadPkcs12Signer, type Pkcs12Options } from './pades/keys/pkcs12.js';
export {
  createCertificateAuthority,
  loadCertificateAuthority,
  issueSigningIdentity,
  type CreatedAuthority,
  type CreatedIdentity,
  type IdentityValidity,
} from './pades/keys/identity.js';
export { openPkcs11Signer, type Pkcs11Signer, type Pkcs11SignerOptions } from './pades/keys/pkcs11.js';
export {
  createRootCertificate,
  issueCertificate,
  createCrl,
  randomSerialNumber,
  derToPem,
  type CertificateAuthority,
  type CertificateProfile,
  type DistinguishedName,
  type RootCertificateOptions,
  type IssueCertificateOptions,
  type CrlOptions,
  type RevokedEntry,
  type SerialNumber,
} from './pades/keys/ca.js';
export {
  createHttpTimestamper,
  buildTimestampRequest,
  checkTimestampResponse,
  parseTimestampToken,
  type HttpTimestamperOptions,
  type TimestampInfo,
  type TimestampRequest,
} from './pades/timestamp.js';
export {
  createHttpRevocationFetcher,
  fetchOcsp,
  fetchCrl,
  checkOcspResponse,
  checkCrl,
  buildOcspRequest,
  revocationUrls,
  type OcspResult,
  type CrlResult,
  type RevocationStatus,
  type RevocationSubject,
} from './pades/revocation.js';
export {
  addValidationData,
  type AddValidationDataOptions,
  type AddValidationDataResult,
  type CertificateValidation,
} from './pades/ltv.js';
export { addDocumentTimestamp, type AddDocumentTimestampOptions, type AddDocumentTimestampResult } from './pades/doc-timestamp.js';
export type { Signer, Timestamper, RevocationFetcher, HashAlgorithm, SignatureScheme } from './pades/types.js';
export { canonicalJson, type JsonValue } from './receipt/canonical-json.js';
export {
  appendAuditEntry,
  verifyAuditLog,
  hashAuditEntry,
  formatAuditTime,
  isAuditEntryOf,
  GENESIS_HASH,
  AUDIT_EVENT_TYPES,
  type AuditEntry,
  type AuditEventInput,
  type AuditEventData,
  type AuditEventType,
  type AuditActor,
  type AuditCertificate,
  type AuditLogVerdict,
  type AuditLogFailureCode,
  type AuditLogExpectation,
  type MailKind,
  type VerificationResult,
} from './receipt/audit-log.js';
export {
  buildReceipt,
  renderReceipt,
  AUDIT_LOG_ATTACHMENT,
  AUDIT_LOG_FORMAT,
  type BuildReceiptOptions,
  type RenderReceiptOptions,
  type ReceiptSealer,
  type AuditLogAttachment,
} from './receipt/receipt.js';
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
export {
  TransactionStatus,
  ActivityCode,
  ACTIVITY_NAMES,
  LANGUAGES,
  VERIFICATION_TYPES,
  DomainError,
  transition,
  isEndStatus,
  putFile,
  updateFile,
  findFile,
  recordActivity,
  cleanTransaction,
  referencedBlobs,
  formatTime,
  SIGNING_HOLD_STALE_MS,
  signingHoldOf,
  isSigningHoldStale,
  type Transaction,
  type TransactionEvent,
  type TransactionStatusCode,
  type ActivityCodeNumber,
  type Signer as TransactionSigner,
  type Receiver as TransactionReceiver,
  type StoredFile,
  type Activity,
  type Verification,
  type Authentication,
  type Language,
  type DomainErrorCode,
} from './domain/transaction.js';
export { nextTimerAt, transactionTimers, expiryOf, type TimerKind, type TransactionTimers } from './domain/transaction-timers.js';
export {
  createTransaction,
  validateCreateRequest,
  isValidIban,
  INVALID_TRANSACTION,
  type CreateTransactionRequest,
  type CreateTransactionContext,
  type SignerRequest,
  type ReceiverRequest,
  type VerificationRequest,
} from './domain/transaction-rules.js';
export {
  toTransactionView,
  toPartialTransactionView,
  buildSignUrl,
  buildFileUrl,
  type ResponseVersion,
  type ViewOptions,
} from './domain/transaction-view.js';
export { isValidBsn } from './domain/bsn.js';
export { isE164, isBelgianE164 } from './domain/e164.js';
export {
  ConcurrencyError,
  StoreError,
  hashSignToken,
  type Store,
  type BlobStore,
  type Account,
  type TransactionChange,
  type OutboxInput,
  type OutboxMessage,
  type OutboxAttempt,
  type DueTimer,
} from './store/store.js';
// Events (issue 7): postback format and checking, the mail row payload.
export { verifyPostback, type PostbackVerification, type PostbackHeaders } from './events/verify-postback.js';
export { postbackChecksum, postbackSignature } from './events/postback.js';
export { mailRow, parseMailPayload, type MailPayload, type MailPayloadKind } from './events/mail-payload.js';
// The service (issue 15): standalone, or mounted into a host's fastify app.
export { loadConfig, describeConfig, type ServiceConfig, type LoadConfigInput, type QualifiedSealConfig, type BootstrapAccountConfig } from './config.js';
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
export { NativeModuleError } from './load-native-module.js';
