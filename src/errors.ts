/**
 * Typed errors of the paraph library. Every error carries a stable string `code` that callers (the CLI, the HTTP
 * service) map to exit codes and HTTP statuses, and a message that names the bad value and what to do about it.
 */

/** Whether an error was caused by the caller's input (fixable by them) or by paraph itself. */
export type ErrorOrigin = 'input' | 'internal';

/** Base class of every error paraph throws on purpose. */
export class ParaphError extends Error {
  /** Stable machine-readable code, e.g. `PDF_ENCRYPTED`. Never changes between versions. */
  readonly code: string;
  /** `input` when the caller can fix it by sending something else. */
  readonly origin: ErrorOrigin;

  constructor(code: string, message: string, options: { origin?: ErrorOrigin; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.origin = options.origin ?? 'input';
  }
}

/** A value (FileMetaData, options, a request body) broke one or more rules. `issues` lists every one of them. */
export class ValidationError extends ParaphError {
  readonly issues: readonly string[];

  constructor(issues: readonly string[], code = 'INVALID_INPUT') {
    super(code, issues.join('; '));
    this.issues = issues;
  }
}

/** The bytes are not a PDF we can work on (garbage, truncated, encrypted, no pages). */
export class PdfParseError extends ParaphError {}

/** A Location could not be resolved to a place on a page. */
export class PlacementError extends ParaphError {}

/** Producing or embedding a signature failed. */
export class SigningError extends ParaphError {}

/** A time-stamp authority could not be reached or gave an unacceptable answer. */
export class TimestampError extends ParaphError {}

/** True for errors the caller caused; anything that is not a ParaphError counts as internal. */
export function isInputError(error: unknown): error is ParaphError {
  return error instanceof ParaphError && error.origin === 'input';
}

/** One row of the error-code table: what a code means, how the service answers it, and what to do. */
export interface ErrorCodeInfo {
  /**
   * The HTTP status the service answers with: 400 for an input error, 500 for an internal one (whose text never
   * reaches the client; the request id is logged with it), others where the spec says so.
   */
  readonly status: number;
  /** What went wrong. */
  readonly meaning: string;
  /** What the caller does about it. */
  readonly fix: string;
}

function row(status: number, meaning: string, fix: string): ErrorCodeInfo {
  return { status, meaning, fix };
}

const RETRY = 'Retry later; if it persists, report it with the request id from the log.';

/**
 * Every `code` a {@link ParaphError} carries, the one table of them (documented in docs/errors.md; a test checks that
 * every code thrown in src/ is here and there). The service maps codes to statuses with it (src/http/error-map.ts).
 */
export const ERROR_CODES = {
  // Accounts, authentication, quotas
  UNAUTHORIZED: row(401, 'The request has no valid application key and user token.', 'Send `Authorization: APIKey <user token>` and `Application: APPKey <app key>` of an existing account.'),
  ACCOUNT_EXISTS: row(400, 'An account with that Id or the same keys exists already.', 'Choose another account Id, or reuse the existing account.'),
  ACCOUNT_NOT_FOUND: row(400, 'No account has that Id.', 'Use the Id of an existing account (`paraph serve` prints the bootstrap account).'),
  ADMIN_UNAUTHORIZED: row(401, 'The admin API request has no valid admin token (or the service has none configured).', 'Send `Authorization: Bearer <admin token>` with the token of PARAPH_ADMIN_TOKEN; an account\'s keys never work here.'),
  NO_SUCH_ACCOUNT: row(404, 'The admin API names an account that does not exist.', 'Use an Id from `GET /api/admin/accounts` (or `paraph account list`).'),
  CREDENTIAL_NOT_FOUND: row(404, 'The account has no application key or user token with that Id.', 'Use an Id from `GET /api/admin/accounts/{accountId}/credentials` (or `paraph account key list`).'),
  CREDENTIAL_EXISTS: row(500, 'A credential with that Id exists already.', RETRY),
  CREDENTIAL_NOT_ACTIVE: row(409, 'The credential was revoked or rotated already: it cannot be rotated again.', 'Rotate the credential that replaced it, or issue a new one.'),
  QUALIFIED_SEAL_EXPIRED: row(400, "The certificate of the account's qualified seal has expired.", 'Configure the seal with a key whose certificate is valid now.'),
  QUALIFIED_SEAL_NOT_YET_VALID: row(400, "The certificate of the account's qualified seal is not valid yet.", 'Set the seal once its certificate is valid.'),
  QUALIFIED_SEAL_KEY_USAGE: row(400, "The certificate of the account's qualified seal does not allow signing (key usage without digitalSignature or nonRepudiation).", 'Use a seal certificate issued for signing.'),
  QUALIFIED_SEAL_NO_CERTIFICATE: row(400, "The key of the account's qualified seal comes without its certificate.", 'Store the seal certificate in the PKCS#12 file or on the token next to the key.'),
  LOGO_INVALID: row(400, "The account's logo is not a PNG or JPEG image paraph accepts (by its content: SVG, GIF, WebP and other formats are refused), is damaged or truncated, or is larger than 2048 pixels a side or 2 million pixels.", 'Send a PNG or JPEG logo of at most 2048×2048 pixels and 2 million pixels, for example 600×200.'),
  LOGO_TOO_LARGE: row(413, "The account's logo is larger than 256 KiB, as sent or as paraph re-encodes it (a JPEG at quality 90 down to 60, a PNG as RGBA).", 'Send a smaller PNG or JPEG logo: fewer pixels or a plainer picture (a logo for a page header needs a few tens of kilobytes).'),
  LOGO_FETCH_FAILED: row(400, "The logo at the account's Branding.LogoUrl could not be fetched: the address is refused (not https, or not a public address), did not answer 200 in time, redirected too often or elsewhere refused, or sent more than 256 KiB.", 'Give an https URL on a public host that answers the image itself, or upload the logo (PUT /api/admin/accounts/{id}/logo).'),
  QUALIFIED_SEAL_UNAVAILABLE: row(500, "The account's qualified seal, accepted when it was set, could not be opened to seal (token absent, PIN changed, module missing on this machine).", "Check the token and module on every machine of the service, or set the account's seal again."),
  AUTH_THROTTLED: row(429, 'Too many requests with wrong credentials came from the client address.', 'Wait the seconds the Retry-After header names, then retry with the right APIKey and APPKey.'),
  ACCOUNT_RATE_LIMITED: row(429, "The account sent more requests per minute than its quota allows.", 'Wait the seconds the Retry-After header names, then retry.'),
  ACCOUNT_STORAGE_QUOTA: row(429, "The account's storage quota is used up.", 'Delete transactions or wait until ended ones are cleaned; Retry-After says when to try again.'),
  INVALID_MASTER_KEY: row(400, 'The master key is not 32 bytes in hex or base64.', 'Generate one with `openssl rand -base64 32`.'),
  MASTER_KEY_MISMATCH: row(500, 'A stored secret is not sealed with this master key.', 'Start the service with the master key the store was sealed with (or rotate keys with `paraph rotate-master-key`).'),
  MASTER_KEY_REQUIRED: row(500, 'The store holds sealed secrets and no master key was given.', 'Set the master key (PARAPH_MASTER_KEY or its file) when starting the service.'),
  // Request bodies and configuration
  INVALID_INPUT: row(400, 'A value broke one or more rules (the message lists each).', 'Correct every value the message names.'),
  INVALID_REQUEST: row(400, 'The request body or a parameter does not match the API shape.', 'Correct the property the message names (see docs/api.md).'),
  INVALID_TRANSACTION: row(400, 'The transaction request breaks a business rule (e.g. a signer without Email, a PostbackUrl that is not public).', 'Correct every property the message names.'),
  INVALID_CONFIG: row(400, 'The service configuration has invalid values.', 'Correct the settings the message names (see docs/configuration.md).'),
  INVALID_FILE_ID: row(400, 'The fileId is not allowed (empty, too long, control or reserved characters, `.` or `..`).', 'Use 1 to 255 characters without control characters and without `: * ? \\ / " < > |`.'),
  EMPTY_BODY: row(400, 'The upload has no bytes.', 'Send the bytes of a PDF (or the FileMetaData JSON).'),
  UNSUPPORTED_CONTENT_TYPE: row(400, 'The upload has a Content-Type the endpoint does not take.', "Send `application/pdf` for a PDF, `application/json` for FileMetaData."),
  FILE_TOO_LARGE: row(413, 'The file is larger than the service accepts.', 'Send a smaller file, or raise the limit in the configuration.'),
  DIGEST_INVALID: row(400, 'The Digest header value is not the base64 of a digest of the right length.', 'Send `Digest: SHA-256=<base64 of the 32-byte digest>` (or SHA-512).'),
  DIGEST_UNSUPPORTED: row(400, 'The Digest header names a hash algorithm the service does not support.', 'Use SHA-256 or SHA-512.'),
  DIGEST_MISMATCH: row(400, 'The uploaded bytes do not match their Digest header.', 'Upload the file again; compute the digest over exactly the bytes sent.'),
  // Transactions
  TRANSACTION_NOT_FOUND: row(401, 'No transaction with that Id belongs to this account (answered as 401 so another account\'s transactions stay hidden).', 'Check the transaction Id and the account keys.'),
  TRANSACTION_ALREADY_STARTED: row(400, 'The transaction was started already; its files can no longer change.', 'Create a new transaction to change documents.'),
  TRANSACTION_NOT_STARTED: row(409, 'The operation needs a started transaction (for a signer: the signing request has not been sent yet).', 'Start the transaction first (PUT /api/transaction/{id}/start); a signer tries again later.'),
  TRANSACTION_ENDED: row(410, 'The transaction has ended (signed, rejected, cancelled, expired or failed); the operation, or the signing request, is closed.', 'Create a new transaction; a signer contacts the sender of the documents.'),
  TRANSACTION_CLEANED: row(410, 'The transaction was cleaned (deleted, or ended and past its retention): its documents and data are gone.', 'Nothing to recover; keep your own copies of signed documents (a signer contacts the sender).'),
  INVALID_TRANSITION: row(400, 'The transaction cannot make this status change now.', 'Wait for the pending step (e.g. a signature being applied) or check the status first.'),
  NO_FILES: row(400, 'The transaction has no PDF to sign, or a file has metadata but no PDF.', 'Upload every PDF before starting.'),
  FILE_NOT_FOUND: row(404, 'The transaction has no file with that fileId.', 'Use a fileId the transaction has (see its Files).'),
  SIGNER_NOT_FOUND: row(400, 'The transaction has no signer with that Id.', 'Use the Id of one of its signers.'),
  RECEIVER_NOT_FOUND: row(400, 'The transaction has no receiver with that Id.', 'Use the Id of one of its receivers.'),
  SIGNER_NOT_AT_TURN: row(409, "It is not this signer's turn: signers sign in the order of Signers and earlier ones have not signed.", 'Wait until the signers before them have signed.'),
  SIGNER_ALREADY_SIGNED: row(409, 'The signer has already signed.', 'Nothing to do for this signer.'),
  SIGNER_ALREADY_REJECTED: row(410, 'The signer has already rejected.', 'Nothing to do.'),
  UPLOAD_CONFLICT: row(409, 'The same file was uploaded again too quickly; which version is the latest is unclear.', 'Wait a moment and upload it once more.'),
  START_CONFLICT: row(409, 'The transaction changed while it was being started.', 'Start it again.'),
  START_FAILED: row(400, 'A document of the transaction could not be prepared for signing (the message says why).', 'Correct the document or its FileMetaData, upload it again, then start.'),
  CONCURRENT_MODIFICATION: row(409, 'Another request changed the transaction at the same time.', 'Re-read the transaction and retry.'),
  DOCUMENT_GONE: row(410, 'The document is no longer stored (the transaction was cleaned).', 'Nothing to recover; keep your own copies of signed documents.'),
  RECEIPT_NOT_FOUND: row(404, 'The transaction has no receipt (yet).', 'Wait until the transaction has ended, then retry.'),
  RECEIPT_GONE: row(410, 'The receipt is no longer stored (the transaction was cleaned).', 'Nothing to recover; keep your own copy of the receipt.'),
  POSTBACK_SECRET_MISSING: row(400, 'verifyPostback was called without the account\'s postback secret.', 'Pass the secret `paraph serve` printed (or PARAPH_POSTBACK_SECRET).'),
  // Signer API
  SIGN_TOKEN_UNKNOWN: row(404, 'The signing link is not valid.', 'Use the SignUrl of the transaction.'),
  AUTHENTICATION_REQUIRED: row(403, 'The signer must confirm who they are before seeing the documents.', 'Complete the authentication step first.'),
  SECURE_DOWNLOAD_REQUIRED: row(403, 'Downloading the signed documents needs a fresh identity confirmation.', 'Ask for a new code, enter it; it opens the downloads for 10 minutes.'),
  SIGNING_IN_PROGRESS: row(409, 'The documents are being processed right now.', 'Try again in a moment.'),
  SIGNING_ABORTED: row(503, 'The signature was not applied: the service is stopping, or signing took longer than the signing hold allows.', 'Sign again; nothing of the interrupted signing was kept.'),
  SIGN_FIELDS_INVALID: row(400, "The signer's field values break the fields' rules (the message lists each).", 'Correct every field value named.'),
  REJECT_REASON_INVALID: row(400, 'A rejection needs a reason of 1 to 1000 characters.', 'Say why you reject.'),
  SCRIBBLE_INVALID: row(400, 'The scribble (name or image) is missing or invalid.', 'Enter your full name (at most 255 characters) or draw a scribble.'),
  SCRIBBLE_NAME_FIXED: row(400, 'The sender fixed the scribble name; it cannot be changed.', 'Sign with the preset name.'),
  CODE_NOT_SENT: row(400, 'A code was entered before one was sent.', 'Ask for a code first.'),
  CODE_WRONG: row(400, 'The code is wrong.', 'Enter the 6 digits of the code you received.'),
  CODE_EXPIRED: row(400, 'The code has expired (codes are valid for 10 minutes).', 'Ask for a new code.'),
  CODE_ATTEMPTS_EXCEEDED: row(400, 'Too many wrong codes were entered.', 'Ask for a new code.'),
  CODE_RESEND_TOO_SOON: row(429, 'A code was sent less than a minute ago.', 'Wait a minute before asking for a new one.'),
  CODE_SEND_LIMIT: row(429, 'The maximum number of codes was sent.', 'Contact the sender of the documents.'),
  VERIFICATION_UNKNOWN: row(400, 'The verification type is not one of the signer\'s verifications.', 'Use a Type from the signer\'s Verifications.'),
  VERIFICATION_OUT_OF_ORDER: row(400, 'An earlier verification must be completed first.', 'Complete the verification the message names.'),
  VERIFICATION_ALREADY_DONE: row(400, 'The verification is already done.', 'Continue with the next step.'),
  VERIFICATION_MISSING: row(400, 'A verification is still to be done before signing.', 'Complete the verification the message names.'),
  VERIFICATION_NOT_AVAILABLE: row(400, 'The verification needs an identity provider and none is configured.', 'Configure the identity provider, or use another verification.'),
  VERIFICATION_NO_RECIPIENT: row(400, 'No phone number is known to send the code to.', 'Give the signer a Mobile number, or contact the sender.'),
  IDENTITY_NOT_ESTABLISHED: row(400, 'The identity provider could not confirm the signer.', 'Try the identity check again.'),
  INVALID_IDENTITY_PROVIDERS: row(500, 'The identity providers file (PARAPH_IDENTITY_PROVIDERS_FILE) breaks one or more rules (the message names each entry).', 'Correct the file as the message says (see docs/verifications.md).'),
  IDENTITY_MISMATCH: row(400, 'The identity provider confirmed someone, but a value it gave does not match what the sender asked for (BSN, KvK number, IBAN, phone number).', 'Sign in with the identity the sender named, or ask the sender to correct the verification.'),
  IDENTITY_PROVIDER_UNAVAILABLE: row(503, 'The identity provider did not answer in time or answered something unusable.', 'Try again in a moment; if it persists, check the provider\'s configuration (issuer URL, client id).'),
  IDENTITY_STATE_INVALID: row(400, 'The identity check was not started from this signing page, or was used already.', 'Start the identity check again.'),
  // FileMetaData and placement
  INVALID_FILE_METADATA: row(400, 'The FileMetaData JSON breaks one or more rules (the message lists each with its JSON path).', 'Correct every property named (see docs/locations.md).'),
  FILE_METADATA_TOO_LARGE: row(400, 'The FileMetaData is larger or nests deeper than allowed.', 'Send smaller metadata.'),
  INVALID_PLACEMENT: row(400, 'A field placement is not well-formed (page out of range, empty size, a name with a period, two types for one name).', 'Correct the placements named.'),
  LOCATION_PAGE_REQUIRED: row(400, 'A Location without Search has no PageNumber.', 'Give PageNumber, or Search.'),
  LOCATION_PAGE_OUT_OF_RANGE: row(400, 'A Location names a page the document does not have.', 'Use a PageNumber within the document.'),
  LOCATION_TEXT_NOT_FOUND: row(400, 'The Search text of a Location does not occur in the document (or on its PageNumber).', 'Search for text the PDF contains, or position the field with PageNumber.'),
  LOCATION_OCCURRENCE_NOT_FOUND: row(400, 'The Search text occurs fewer times than the Location\'s Occurence.', 'Use an Occurence up to the number of matches.'),
  LOCATION_EMPTY_BOX: row(400, 'Left and Right (or Top and Bottom) leave no room for the field.', 'Make the offsets smaller or give Width/Height.'),
  LOCATION_OUTSIDE_PAGE: row(400, 'The resolved field does not fit on the page.', 'Change its offsets or size.'),
  LOCATION_TOO_MANY_MATCHES: row(400, 'A Location without Occurence matches more often than the widget cap allows.', 'Give Occurence or a more specific Search, or raise PARAPH_MAX_WIDGETS_PER_LOCATION.'),
  DOCUMENT_TOO_MANY_WIDGETS: row(400, 'The document would get more field widgets in all than the service allows.', 'Use fewer fields or Locations with Occurence, or raise PARAPH_MAX_WIDGETS_PER_DOCUMENT.'),
  SIGNER_TOO_MANY_SIGNATURES: row(400, 'A signer has more Signature fields in one document than the service allows.', 'Give the signer fewer Signature fields (one signature covers the whole document), or raise PARAPH_MAX_SIGNATURES_PER_SIGNER.'),
  FIELD_NAME_TAKEN: row(400, 'A field of that name exists already (in the PDF or as a default signature field).', 'Rename the formset, or give the signer a Signature field in FileMetaData.'),
  FIELD_NOT_FOUND: row(400, 'The document has no field of that name.', 'Give the name of one of its fields, or a placement to create it.'),
  PAGE_OUT_OF_RANGE: row(400, 'A signature placement names a page the document does not have.', 'Use a page within the document.'),
  PLACEMENT_EMPTY: row(400, 'A signature box has no width or height.', 'Give a positive width and height.'),
  // PDF input
  PDF_EMPTY: row(400, 'The file is empty.', 'Send the bytes of a PDF document.'),
  PDF_NOT_A_PDF: row(400, 'The file has no `%PDF-` header.', 'Send a PDF document.'),
  PDF_UNREADABLE: row(400, 'The PDF cannot be parsed (damaged or truncated).', 'Repair it (save it again from a PDF editor, or `qpdf in.pdf out.pdf`) and send it again.'),
  PDF_ENCRYPTED: row(400, 'The PDF needs a password to open, or is encrypted and already signed (a file that opens without a password is decrypted and rewritten instead).', 'Save a copy without password protection and send it again; for a signed one, ask for a copy signed without encryption.'),
  PDF_NO_PAGES: row(400, 'The PDF has no pages.', 'Send a document with at least one page.'),
  PDF_TOO_MANY_PAGES: row(400, 'The PDF has more pages than the service accepts.', 'Split the document, or raise the limit in the configuration.'),
  PDF_TOO_MANY_OBJECTS: row(400, 'The PDF declares more objects (trailer /Size, object streams\' /N) than paraph parses: 1,000,000.', 'Simplify the document (e.g. print it to a new PDF) and send it again.'),
  SEAL_NOT_VERIFIABLE: row(400, 'The sealed document did not pass the check readers would make (the seal found, referenced by a field, covering the whole file, intact), not even after a clean rewrite.', 'Repair the document (e.g. print it to a new PDF) and send it in a new transaction.'),
  PDF_TOO_COMPLEX: row(400, 'The PDF (or one of its pages) is too complex to read within the time and memory budget.', 'Simplify the document (e.g. print it to a new PDF) and send it again.'),
  PDF_DAMAGED_SIGNED: row(400, 'The PDF is signed and its cross-reference table is damaged; repairing it would break its signatures.', 'Ask for an intact copy of the signed PDF.'),
  PDF_PAGE_COUNT_MISMATCH: row(400, 'The PDF is damaged: two readers count a different number of pages.', 'Repair it (save it again from a PDF editor) and send it again.'),
  PAGE_GEOMETRY_MISMATCH: row(400, "The PDF is damaged: two readers see a page's visible box or rotation differently, so a field could land in the wrong place.", 'Repair it (save it again from a PDF editor) and send it again.'),
  PDF_XREF_UNREADABLE: row(400, 'An update cannot be appended: the cross-reference section cannot be read.', 'Repair the PDF first (e.g. `qpdf in.pdf out.pdf`) and try again.'),
  PDF_NO_CATALOG: row(500, 'The document trailer has no /Root.', 'Repair the PDF first (e.g. `qpdf in.pdf out.pdf`).'),
  PDF_NORMALIZE_FAILED: row(500, 'The PDF repair thread could not be started.', RETRY),
  PDF_WORKER_FAILED: row(500, 'The process that reads and writes PDFs for the service could not run.', RETRY),
  TEXT_NOT_INDEXED: row(500, 'A page was searched that the text index did not extract.', "Pass the page in indexText's `pages` option before searching it."),
  TEXT_INDEX_FAILED: row(500, 'The text index lost a page.', RETRY),
  // Signing
  SIGNING_TIME_INVALID: row(400, 'The signing time is not a valid Date.', 'Hand in a valid Date.'),
  CONTENTS_SIZE_INVALID: row(400, 'The placeholder size is not a whole number of bytes between 64 and 4194304.', 'Choose a contentsSize in that range.'),
  PLACEHOLDER_TOO_SMALL: row(400, 'The signature is larger than the placeholder reserved for it.', 'Sign again with the larger contentsSize the message names.'),
  PLACEHOLDER_NOT_WRITTEN: row(500, 'The signature dictionary was not written in the update.', RETRY),
  FIELD_NAME_INVALID: row(400, 'A new signature field name is empty or has a period.', 'Use a non-empty name without a period.'),
  FIELD_ALREADY_SIGNED: row(400, 'The signature field is already signed.', 'Choose an unsigned field, or leave the field out to add a new one.'),
  FIELD_NOT_A_SIGNATURE_FIELD: row(400, 'The named field is not a signature field.', 'Give the name of a signature field, or a new name.'),
  DOCMDP_INVALID: row(400, 'docMdp is not 1, 2 or 3.', 'Use 1 (no changes), 2 (form filling and signing) or 3 (also annotations).'),
  DOCMDP_NO_CHANGES: row(400, 'The document is certified with DocMDP 1 (no changes allowed); another signature would break the certification.', 'Do not sign it further, or certify it with permission 2 or 3.'),
  CERTIFICATION_NOT_FIRST: row(400, 'Only the first signature of a document can certify it.', 'Sign without docMdp, or certify an unsigned document.'),
  HASH_UNSUPPORTED: row(400, 'The hash algorithm is not supported.', 'Use SHA-256, SHA-384 or SHA-512.'),
  DIGEST_LENGTH_MISMATCH: row(500, 'A digest has the wrong length for its algorithm.', RETRY),
  UNSUPPORTED_SIGNATURE_SCHEME: row(400, 'The signer uses a signature scheme paraph does not support.', 'Use RSASSA-PKCS1-v1_5, RSA-PSS or ECDSA.'),
  SIGNER_NO_CERTIFICATE: row(400, "The signer's certificate chain is empty.", "Start the chain with the signer's own certificate."),
  SIGNER_CERTIFICATE_INVALID: row(400, "A certificate of the signer's chain is not DER X.509.", 'Hand in DER bytes, not PEM.'),
  SIGNER_NO_SIGNATURE: row(500, 'The signer returned no signature value.', 'Check the signing device or service.'),
  SIGNATURE_VALUE_INVALID: row(500, "The signer's signature value does not verify with its certificate.", 'Check the signing device or service, and that its key belongs to the certificate.'),
  APPEARANCE_IMAGE_INVALID: row(400, 'The scribble image is not a readable PNG.', 'Send PNG bytes.'),
  ORGANIZATION_NAME_MISSING: row(400, 'The seal needs an organization name to show and its certificate names none.', 'Pass organizationName.'),
  NO_SIGNATURES: row(400, 'The document has no signatures, so there is no validation data to add.', 'Sign it first.'),
  VALIDATION_DATA_INCOMPLETE: row(500, 'No revocation data could be found for some certificates.', 'Fix the OCSP/CRL responder, or pass allowIncomplete to write what was found.'),
  INVALID_CERTIFICATE: row(400, 'A certificate is not DER X.509.', 'Hand in DER certificates.'),
  // Keys and certificates
  INVALID_PEM: row(400, 'The text has no PEM block.', 'Hand in a `-----BEGIN ...-----` block.'),
  INVALID_PRIVATE_KEY: row(400, 'The private key is not DER PKCS#8.', 'Export it with `openssl pkcs8 -topk8 -nocrypt`.'),
  INVALID_ECDSA_SIGNATURE: row(500, 'An ECDSA signature value has an odd length.', RETRY),
  MISSING_CERTIFICATE: row(400, 'A signer was created without its certificate.', 'Hand in the certificate chain.'),
  KEY_HASH_MISMATCH: row(400, 'The RSA key is bound to another hash and not extractable.', 'Import the key again for the hash the message names.'),
  KEY_SCHEME_MISMATCH: row(400, 'The key type does not fit the signature scheme.', 'Use an RSA key for RSA schemes, an EC key for ECDSA.'),
  UNSUPPORTED_KEY_ALGORITHM: row(400, 'The key is neither RSA nor EC.', 'Use an RSA or EC key.'),
  UNSUPPORTED_CA_KEY: row(500, 'A CA key in a token signs with a scheme other than RSA PKCS#1 v1.5 or ECDSA.', 'Provision the token\'s CA key as RSA (PKCS#1 v1.5) or EC.'),
  UNSUPPORTED_KEY_KIND: row(400, 'The key kind is unknown.', 'Use rsa-2048, rsa-3072, rsa-pss-2048, rsa-pss-3072, ecdsa-p256 or ecdsa-p384.'),
  PKCS12_INVALID: row(400, 'The file is not a PKCS#12 key store.', 'Hand in a .p12/.pfx file.'),
  PKCS12_WRONG_PASSWORD: row(400, 'The PKCS#12 password is wrong.', 'Check the password.'),
  PKCS12_NO_KEY: row(400, 'The PKCS#12 file holds no private key.', 'Export it again including the key.'),
  PKCS12_NO_CERTIFICATE: row(400, 'The PKCS#12 file holds no certificate for its key.', 'Export it again with the signing certificate.'),
  PKCS12_TOO_COSTLY: row(400, 'The PKCS#12 file asks for more key-derivation iterations than allowed, or opening it took longer than allowed.', 'Export it again with fewer iterations, e.g. `openssl pkcs12 -in seal.p12 -nodes -out seal.pem` then `openssl pkcs12 -export -in seal.pem -out seal-new.p12 -iter 2048`.'),
  PKCS12_TOO_COMPLEX: row(400, 'The PKCS#12 file holds more parts or bags, or nests them deeper, than a key store needs.', 'Export only the key and its certificate chain.'),
  PKCS11_MODULE_NOT_LOADED: row(400, 'The PKCS#11 module could not be loaded.', 'Check the module path.'),
  PKCS11_INIT_FAILED: row(500, 'The PKCS#11 module failed to initialize.', 'Check the token software and its configuration.'),
  PKCS11_TOKEN_NOT_FOUND: row(400, 'No PKCS#11 token has that label.', 'Use one of the labels the message lists.'),
  PKCS11_LOGIN_FAILED: row(400, 'Logging in to the PKCS#11 token failed.', 'Check the PIN.'),
  PKCS11_KEY_NOT_FOUND: row(400, 'The token has no matching private key.', 'Check keyLabel or keyId.'),
  PKCS11_KEY_AMBIGUOUS: row(400, 'The token has several matching private keys.', 'Give keyLabel or keyId to pick one.'),
  PKCS11_CERTIFICATE_NOT_FOUND: row(400, "The token holds no certificate for the key.", 'Store it on the token, or hand in certificateChain.'),
  PKCS11_SIGN_FAILED: row(500, 'The PKCS#11 token failed to sign.', 'Check the token; ' + RETRY.toLowerCase()),
  PKCS11_CLOSED: row(400, 'The PKCS#11 signer was closed.', 'Open it again.'),
  EMPTY_SUBJECT: row(400, 'A certificate subject has no name.', 'Give commonName, organization or emailAddress.'),
  INVALID_SUBJECT: row(400, 'A signer certificate has no commonName.', "Give the signer's name as commonName."),
  INVALID_SERIAL_NUMBER: row(400, 'A certificate serial number is not positive.', 'Use a positive serial number.'),
  INVALID_VALIDITY: row(400, 'A certificate validity ends before it starts.', 'Make notBefore earlier than notAfter.'),
  INVALID_CRL_NUMBER: row(400, 'A CRL number is negative.', 'Use 0 or more.'),
  UNKNOWN_CERTIFICATE_PROFILE: row(400, 'The certificate profile is unknown.', 'Use intermediate-ca, signer, seal, tsa or ocsp-responder.'),
  CERTIFICATE_SIGNING_FAILED: row(500, 'Signing a certificate failed.', 'Check the CA key.'),
  CRL_SIGNING_FAILED: row(500, 'Signing a CRL failed.', 'Check the CA key.'),
  NATIVE_MODULE_MISSING: row(500, 'A feature needs a native package that is installed but could not be loaded (its addon was never built).', 'Install it with its install script allowed (e.g. `npm rebuild <package>`).'),
  OPTIONAL_DEPENDENCY_MISSING: row(500, 'A feature needs an optional peer dependency that is not installed (pkcs11js for PKCS#11, better-sqlite3 for the SQLite store on Node 20, fast-check or smtp-server for test tools).', 'Install it (the message names the package).'),
  // Time-stamps
  TSA_UNREACHABLE: row(500, 'The time-stamp authority could not be reached.', 'Check the TSA URL and the network; ' + RETRY.toLowerCase()),
  TSA_HTTP_ERROR: row(500, 'The time-stamp authority answered with an HTTP error.', 'Check the TSA URL and credentials.'),
  TSA_REJECTED: row(500, 'The time-stamp authority refused the request.', 'Check the TSA account and the request options (policy, hash).'),
  TSA_BAD_RESPONSE: row(500, 'The time-stamp token is not a CMS SignedData with a TSTInfo.', 'Check the TSA URL.'),
  TSA_IMPRINT_MISMATCH: row(500, 'The time-stamp token covers another digest.', 'Check the TSA; ' + RETRY.toLowerCase()),
  TSA_NONCE_MISMATCH: row(500, 'The time-stamp token does not carry the request nonce (replayed or foreign answer).', 'Check the TSA and any proxy in between.'),
  TSA_POLICY_MISMATCH: row(500, 'The TSA answered under another policy than requested.', 'Request a policy the TSA serves.'),
  TSA_SIGNATURE_INVALID: row(500, "The time-stamp token's signature does not hold.", 'Check the TSA.'),
  TSA_CERTIFICATE_INVALID: row(500, "The time-stamp token's certificate lacks the timeStamping extended key usage.", 'Use a TSA with a proper certificate.'),
  TSA_BAD_DIGEST: row(400, 'The digest to time-stamp has the wrong length for its hash.', 'Hand in a digest of the named hash.'),
  TSA_UNSUPPORTED_HASH: row(400, 'The hash is not supported for time-stamps.', 'Use SHA-256, SHA-384 or SHA-512.'),
  TIMESTAMP_TOKEN_INVALID: row(400, 'The time-stamp authority returned a token that is not DER.', 'Check the TSA URL.'),
  // Receipt and audit log
  AUDIT_INVALID_TIME: row(500, 'An audit entry has an invalid time.', 'Hand in a valid Date.'),
  CANONICAL_JSON_UNSUPPORTED: row(400, 'A value cannot be written as canonical JSON.', 'Use null, booleans, finite numbers, strings, arrays and plain objects.'),
  RECEIPT_INPUT_INVALID: row(400, 'The receipt input is invalid (e.g. generatedAt is not a valid Date).', 'Hand in the time the receipt is made.'),
  RECEIPT_AUDIT_LOG_INVALID: row(400, 'The audit log hash chain is broken; a receipt cannot be made from it.', 'Investigate the store: the log was changed after it was written.'),
  RECEIPT_AUDIT_LOG_MISSING: row(400, 'The receipt has no attached audit log.', 'Verify the receipt paraph produced, unchanged.'),
  RECEIPT_AUDIT_LOG_UNREADABLE: row(400, "The receipt's attached audit log cannot be decoded.", 'Verify the receipt paraph produced, unchanged.'),
  RECEIPT_SEALER_REWROTE: row(500, 'The sealer rewrote the receipt instead of appending an incremental update.', 'Use a sealer that appends (sealPdf does).'),
  // Store and blobs
  STORE_CLOSED: row(500, 'The store was used after it was closed.', RETRY),
  SQLITE_DRIVER_UNAVAILABLE: row(500, 'The chosen SQLite driver (node:sqlite) does not exist in this Node.', 'Use Node 22.13 or later, or set PARAPH_SQLITE_DRIVER=better-sqlite3.'),
  BLOB_INVALID_ID: row(400, 'A blob id is not 64 lowercase hex digits.', 'Use the SHA-256 of the content as the id.'),
  BLOB_CORRUPT: row(500, 'A blob stored in PostgreSQL does not match its digest (chunks changed or lost).', 'Restore the database from a backup; report it.'),
  SCHEMA_VERSION_UNKNOWN: row(500, 'The PostgreSQL schema is newer than this paraph, or older and not migrated.', 'Run `paraph migrate` (or start with PARAPH_MIGRATE=1), or upgrade paraph.'),
  BLOB_NOT_FOUND: row(500, 'A stored blob is missing.', 'Check the blob directory (or the database) for lost files.'),
  BLOB_TOO_LARGE: row(413, 'The content is larger than the blob limit.', 'Store a smaller file, or raise the limit.'),
  // Command line
  FILE_UNREADABLE: row(400, 'A file named on the command line cannot be read.', 'Check the path and its permissions.'),
  OUTPUT_NOT_WRITABLE: row(400, 'The output file cannot be written.', 'Choose another -o path.'),
} satisfies Readonly<Record<string, ErrorCodeInfo>>;

/** A code of the {@link ERROR_CODES} table. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `code` is in the {@link ERROR_CODES} table. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
