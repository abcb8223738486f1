/**
 * What the evidential receipt prints, and in which language. The words themselves are in each language's catalogue
 * (`receipt` in src/i18n/<language>.ts, docs/design/api.md#languages) beside those of the pages and e-mails: en-US,
 * nl-NL, de-DE, fr-FR, es-ES, it-IT and pl-PL; every other language falls back to `en-US`.
 */
import { CATALOGUES, matchLanguage } from '../i18n/catalogue.js';
import type { AuditEventType } from './audit-log.js';
import type { TransactionStatusCode } from './types.js';

/** Every text the receipt prints. */
export interface ReceiptText {
  readonly language: ReceiptLanguage;
  readonly title: string;
  readonly intro: string;
  readonly footer: (transactionId: string) => string;
  readonly pageOf: (page: number, pages: number) => string;
  readonly sections: {
    readonly summary: string;
    readonly documents: string;
    readonly signers: string;
    readonly receivers: string;
    readonly auditTrail: string;
    readonly howToVerify: string;
  };
  readonly labels: {
    readonly transactionId: string;
    /** The organisation (the account) the transaction belongs to. */
    readonly organization: string;
    readonly reference: string;
    readonly status: string;
    readonly createdAt: string;
    readonly completedAt: string;
    readonly canceledAt: string;
    readonly cancelationReason: string;
    readonly documents: string;
    readonly signers: string;
    readonly receivers: string;
    readonly seal: string;
    readonly noSeal: string;
    readonly sealLevel: { readonly advanced: string; readonly qualified: string };
    readonly receiptSealedBy: string;
    readonly auditEntries: string;
    readonly auditHead: string;
    readonly generatedAt: string;
    readonly displayName: string;
    readonly fileId: string;
    readonly pages: string;
    readonly originalSha256: string;
    readonly finalSha256: string;
    readonly size: string;
    readonly bytes: (n: number) => string;
    readonly notAvailable: string;
    readonly signerId: string;
    readonly name: string;
    readonly email: string;
    readonly mobile: string;
    readonly outcome: string;
    readonly outcomes: { readonly signed: string; readonly rejected: string; readonly 'not signed': string };
    readonly signedAt: string;
    readonly rejectedAt: string;
    readonly rejectReason: string;
    readonly ipAddress: string;
    readonly userAgent: string;
    readonly certificateSubject: string;
    readonly certificateSerial: string;
    readonly certificateIssuer: string;
    readonly verifications: string;
    readonly verificationType: string;
    readonly result: string;
    readonly results: { readonly passed: string; readonly failed: string; readonly 'not performed': string };
    readonly time: string;
    readonly evidence: string;
    readonly activities: string;
    readonly code: string;
    readonly activity: string;
    readonly info: string;
    readonly documentsSentAt: string;
    readonly sentWithDocuments: string;
    readonly notSent: string;
    readonly none: string;
    readonly seq: string;
    readonly event: string;
    readonly actor: string;
    readonly details: string;
    readonly entryHash: string;
  };
  readonly statuses: { readonly [S in TransactionStatusCode]: string };
  readonly events: { readonly [T in AuditEventType]: string };
  readonly auditIntro: (count: number) => string;
  readonly howToVerify: readonly string[];
}

/** The languages the receipt is written in: the seven of the signing page and the e-mails. */
export const RECEIPT_LANGUAGES = ['en-US', 'nl-NL', 'de-DE', 'fr-FR', 'es-ES', 'it-IT', 'pl-PL'] as const;
export type ReceiptLanguage = (typeof RECEIPT_LANGUAGES)[number];

/**
 * The receipt texts for `language` (a BCP 47 tag, matched on its primary subtag: `nl-BE` and `nl` get Dutch,
 * `de-AT` German); any other language gets `en-US`.
 */
export function receiptTextFor(language: string): ReceiptText {
  const matched = matchLanguage(language) ?? 'en-US';
  return { language: matched, ...CATALOGUES[matched].receipt };
}
