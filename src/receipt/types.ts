/**
 * The snapshot of a finished transaction that the evidential receipt is built from (docs/design/receipt.md#contents).
 * The service maps its records to these plain values; the receipt module knows nothing
 * of the store. Times are `Date`s; the receipt prints them in UTC.
 */

/** Transaction status codes (docs/design/transactions.md#statuses). */
export type TransactionStatusCode = 5 | 10 | 20 | 30 | 40 | 50 | 60 | 70;

/** A certificate as the receipt shows it. */
export interface ReceiptCertificate {
  readonly subject: string;
  /** Serial number in hexadecimal. */
  readonly serial: string;
  readonly issuer: string;
}

/** The seal applied to the documents (and, separately, to the receipt itself). */
export interface ReceiptSeal {
  readonly certificate: ReceiptCertificate;
  /**
   * Advanced (the service's own seal CA) or qualified (a configured QSeal, docs/design/signatures.md#qualified-seal).
   */
  readonly level: 'advanced' | 'qualified';
}

/** One verification of a signer, with its outcome and the evidence kept (never a secret such as an OTP). */
export interface ReceiptVerification {
  /** The Verification `Type` (docs/design/signer-api.md#verification-types), e.g. `PhoneNumber`, `Scribble`, `iDIN`. */
  readonly type: string;
  readonly result: 'passed' | 'failed' | 'not performed';
  /** When it was performed. */
  readonly at?: Date;
  /** Evidence by name, e.g. `{ "Number": "••••••••78" }`, `{ "ScribbleName": "Zoë" }`. */
  readonly evidence: Readonly<Record<string, string>>;
}

/** A signer activity (code, name, optional info, docs/design/transactions.md#activities). */
export interface ReceiptActivity {
  readonly code: number;
  readonly activity: string;
  readonly info?: string;
  readonly at: Date;
}

/** A signer as the receipt shows it (docs/design/api.md#response-values). */
export interface ReceiptSigner {
  readonly id: string;
  readonly name?: string;
  readonly email: string;
  readonly mobile?: string;
  readonly reference?: string;
  /** Where the signer ended. */
  readonly outcome: 'signed' | 'rejected' | 'not signed';
  readonly verifications: readonly ReceiptVerification[];
  readonly signedAt?: Date;
  readonly rejectedAt?: Date;
  readonly rejectReason?: string;
  /** IP address and user agent seen when the signer signed (or rejected). */
  readonly ipAddress?: string;
  readonly userAgent?: string;
  /** The certificate the signer's signature was made with. */
  readonly certificate?: ReceiptCertificate;
  readonly activities: readonly ReceiptActivity[];
}

/** A receiver of the finished documents (docs/design/api.md#response-values). */
export interface ReceiptReceiver {
  readonly id: string;
  readonly name?: string;
  readonly email: string;
  readonly reference?: string;
  /** When the documents were sent (activity 301); absent when they were not. */
  readonly documentsSentAt?: Date;
  /**
   * The documents go to this receiver with the signed documents, right after the receipt is built (the receipt is
   * part of what is sent, so it cannot record the sending itself). Shown instead of "not sent" when not yet sent.
   */
  readonly documentsScheduled?: boolean;
  readonly activities: readonly ReceiptActivity[];
}

/** One document of the transaction: the original as uploaded and the final signed (and sealed) result. */
export interface ReceiptDocument {
  readonly fileId: string;
  readonly displayName: string;
  readonly pages: number;
  /** Lowercase hex SHA-256 of the PDF as uploaded. */
  readonly originalSha256: string;
  readonly originalBytes?: number;
  /** Lowercase hex SHA-256 of the final signed/sealed PDF; absent when the transaction did not complete. */
  readonly finalSha256?: string;
  readonly finalBytes?: number;
}

/** The transaction as the receipt shows it (docs/design/api.md#response-values). */
export interface ReceiptTransaction {
  readonly id: string;
  /** The organisation the transaction belongs to (its account's name). */
  readonly organization?: string;
  readonly reference?: string;
  readonly status: TransactionStatusCode;
  /** The transaction's Language; receipt texts exist for `en-US` and `nl-NL`, others fall back to `en-US`. */
  readonly language: string;
  readonly createdAt: Date;
  /** When the transaction reached its end status. */
  readonly completedAt?: Date;
  readonly canceledAt?: Date;
  readonly cancelationReason?: string;
  /** The seal applied to the documents, when `Seal` was true. */
  readonly seal?: ReceiptSeal;
  readonly signers: readonly ReceiptSigner[];
  readonly receivers: readonly ReceiptReceiver[];
}
