/**
 * `paraph/pades`: PAdES signatures and seals (B-B … B-LTA, at once or in stages around a remote signer), keys and
 * certificates (software keys, PKCS#12, PKCS#11 tokens, certificate authorities) and verification (a verdict as
 * data, never an exception). Loads pdf-lib, pkijs and asn1js, nothing of the service.
 *
 * @example
 * import { signPdf, verifyPdf } from 'paraph/pades';
 */
export * from './errors.js';

export { signPdf, type SignPdfOptions, type SignPdfResult } from '../pades/sign-pdf.js';
export { sealPdf, type SealPdfOptions } from '../pades/seal-pdf.js';
export {
  prepareSignature,
  digestPreparedSignature,
  embedSignature,
  DEFAULT_CONTENTS_SIZE,
  type PrepareSignatureOptions,
  type PreparedSignature,
  type SignaturePlacement,
} from '../pades/prepare-signature.js';
export { listSignatureFields } from '../pades/list-signature-fields.js';
export type { SignatureFieldInfo } from '../pades/signature-field.js';
export type { SignatureAppearance } from '../pades/appearance.js';
export { createHttpTimestamper, type HttpTimestamperOptions } from '../pades/timestamp.js';
export { createHttpRevocationFetcher } from '../pades/revocation.js';
export {
  addValidationData,
  type AddValidationDataOptions,
  type AddValidationDataResult,
  type CertificateValidation,
} from '../pades/ltv.js';
export { addDocumentTimestamp, type AddDocumentTimestampOptions, type AddDocumentTimestampResult } from '../pades/doc-timestamp.js';
export type { Signer, Timestamper, RevocationFetcher, HashAlgorithm, SignatureScheme } from '../pades/types.js';

// Keys and certificates: software keys, PKCS#12 files, PKCS#11 tokens, the CAs the service issues from.
export { createSoftwareSigner, generateKeyPair, importPkcs8Key, type KeyKind, type SoftwareSigner } from '../pades/keys/software.js';
export { loadPkcs12Signer, type Pkcs12Options } from '../pades/keys/pkcs12.js';
export type { Pkcs12Limits } from '../pades/keys/pkcs12-limits.js';
export { openPkcs11Signer, type Pkcs11Signer, type Pkcs11SignerOptions } from '../pades/keys/pkcs11.js';
export {
  createCertificateAuthority,
  loadCertificateAuthority,
  issueSigningIdentity,
  type CreatedAuthority,
  type CreatedIdentity,
  type IdentityValidity,
} from '../pades/keys/identity.js';
export type { CertificateAuthority, DistinguishedName } from '../pades/keys/ca.js';

// Verify: a verdict as data, never an exception.
export {
  verifyPdf,
  type VerifyOptions,
  type VerificationReport,
  type SignatureReport,
  type TimestampReport,
  type ModificationReport,
  type PadesLevel,
  type UnreadableCode,
} from '../pades/verify.js';
