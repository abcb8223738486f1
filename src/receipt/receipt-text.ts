/**
 * The words of the evidential receipt in each language it is written in (issue 4; decisions.md §2: `en-US` and
 * `nl-NL` texts exist, every other language falls back to `en-US`).
 */
import type { AuditEventType } from './audit-log.js';
import type { TransactionStatusCode } from './types.js';

/** Every text the receipt prints. */
export interface ReceiptText {
  readonly language: 'en-US' | 'nl-NL';
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

const EN: ReceiptText = {
  language: 'en-US',
  title: 'Evidential receipt',
  intro:
    'This receipt records who signed which documents, when, and how each signer was identified. It is generated from ' +
    'the transaction\'s audit trail, which is attached to this PDF as a machine-readable file, and it is sealed: any ' +
    'change to this file after sealing invalidates the seal.',
  footer: (id) => `Evidential receipt · transaction ${id}`,
  pageOf: (page, pages) => `page ${page} of ${pages}`,
  sections: {
    summary: 'Summary',
    documents: 'Documents',
    signers: 'Signers',
    receivers: 'Receivers',
    auditTrail: 'Audit trail',
    howToVerify: 'How to verify this receipt',
  },
  labels: {
    transactionId: 'Transaction ID',
    reference: 'Reference',
    status: 'Status',
    createdAt: 'Created',
    completedAt: 'Completed',
    canceledAt: 'Cancelled',
    cancelationReason: 'Cancellation reason',
    documents: 'Documents',
    signers: 'Signers',
    receivers: 'Receivers',
    seal: 'Seal on the documents',
    noSeal: 'No seal was requested',
    sealLevel: { advanced: 'advanced electronic seal', qualified: 'qualified electronic seal' },
    receiptSealedBy: 'This receipt is sealed by',
    auditEntries: 'Audit trail entries',
    auditHead: 'Audit trail head (SHA-256)',
    generatedAt: 'Receipt generated',
    displayName: 'Name',
    fileId: 'File ID',
    pages: 'Pages',
    originalSha256: 'SHA-256 as uploaded',
    finalSha256: 'SHA-256 signed',
    size: 'Size (uploaded → signed)',
    bytes: (n) => `${n.toLocaleString('en-US')} bytes`,
    notAvailable: 'not available',
    signerId: 'Signer ID',
    name: 'Name',
    email: 'E-mail',
    mobile: 'Mobile',
    outcome: 'Outcome',
    outcomes: { signed: 'signed', rejected: 'rejected', 'not signed': 'not signed' },
    signedAt: 'Signed at',
    rejectedAt: 'Rejected at',
    rejectReason: 'Reason for rejection',
    ipAddress: 'IP address',
    userAgent: 'User agent',
    certificateSubject: 'Certificate subject',
    certificateSerial: 'Certificate serial number',
    certificateIssuer: 'Certificate issuer',
    verifications: 'Verifications',
    verificationType: 'Method',
    result: 'Result',
    results: { passed: 'passed', failed: 'failed', 'not performed': 'not performed' },
    time: 'Time (UTC)',
    evidence: 'Evidence',
    activities: 'Activities',
    code: 'Code',
    activity: 'Activity',
    info: 'Info',
    documentsSentAt: 'Documents sent',
    notSent: 'not sent',
    sentWithDocuments: 'sent with the signed documents',
    none: 'none',
    seq: '#',
    event: 'Event',
    actor: 'Actor',
    details: 'Details',
    entryHash: 'Hash',
  },
  statuses: {
    5: 'waiting for documents',
    10: 'waiting for signer',
    20: 'in progress',
    30: 'signed',
    40: 'rejected',
    50: 'expired',
    60: 'cancelled',
    70: 'failed',
  },
  events: {
    'transaction.created': 'Transaction created',
    'file.uploaded': 'Document uploaded',
    'metadata.uploaded': 'Field metadata uploaded',
    'transaction.started': 'Transaction started',
    'mail.sent': 'E-mail sent',
    'mail.failed': 'E-mail failed',
    'signer.opened': 'Signer opened the request',
    'document.opened': 'Signer opened a document',
    'verification.performed': 'Verification performed',
    'signer.signed': 'Signer signed',
    'signer.rejected': 'Signer rejected',
    'signing.released': 'Interrupted signing released',
    'document.finalized': 'Signed document finalized',
    'transaction.sealed': 'Documents sealed',
    'transaction.completed': 'Transaction completed',
    'transaction.failed': 'Transaction failed',
    'transaction.cancelled': 'Transaction cancelled',
    'transaction.expired': 'Transaction expired',
    'transaction.cleaned': 'Data cleaned',
    'postback.delivered': 'Postback delivered',
    'postback.failed': 'Postback failed',
  },
  auditIntro: (count) =>
    `All ${count.toLocaleString('en-US')} entries of the audit trail, oldest first. Each entry's hash covers its ` +
    'content and the hash of the entry before it; the column shows its first 12 hexadecimal digits.',
  howToVerify: [
    '1. Check the seal of this PDF with any PAdES-capable validator (for example Adobe Acrobat, the EU DSS ' +
      'demonstration validator, or pdfsig): it must be valid and cover the whole file.',
    '2. Extract the attached file audit-log.json (for example with qpdf --show-attachment=audit-log.json). For ' +
      'each entry, compute SHA-256 over the canonical JSON (keys sorted, no white space) of the entry without its ' +
      '"hash" field; it must equal "hash", and "prevHash" must equal the hash of the entry before (64 zeros for the ' +
      'first).',
    '3. The hash of the last entry must equal the audit trail head printed in the summary, and the documents\' ' +
      'SHA-256 values must equal those of the files you hold.',
    'paraph does all three with: paraph receipt verify receipt.pdf --trust seal-root.pem --document signed.pdf',
  ],
};

const NL: ReceiptText = {
  language: 'nl-NL',
  title: 'Bewijsrapport',
  intro:
    'Dit bewijsrapport legt vast wie welke documenten heeft ondertekend, wanneer, en hoe elke ondertekenaar is ' +
    'geïdentificeerd. Het is opgesteld uit het audittrail van de transactie, dat als machineleesbaar bestand aan deze ' +
    'PDF is toegevoegd, en het is verzegeld: elke wijziging van dit bestand na het verzegelen maakt het zegel ongeldig.',
  footer: (id) => `Bewijsrapport · transactie ${id}`,
  pageOf: (page, pages) => `pagina ${page} van ${pages}`,
  sections: {
    summary: 'Samenvatting',
    documents: 'Documenten',
    signers: 'Ondertekenaars',
    receivers: 'Ontvangers',
    auditTrail: 'Audittrail',
    howToVerify: 'Dit bewijsrapport controleren',
  },
  labels: {
    transactionId: 'Transactie-ID',
    reference: 'Referentie',
    status: 'Status',
    createdAt: 'Aangemaakt',
    completedAt: 'Afgerond',
    canceledAt: 'Geannuleerd',
    cancelationReason: 'Reden van annulering',
    documents: 'Documenten',
    signers: 'Ondertekenaars',
    receivers: 'Ontvangers',
    seal: 'Zegel op de documenten',
    noSeal: 'Er is geen zegel gevraagd',
    sealLevel: { advanced: 'geavanceerd elektronisch zegel', qualified: 'gekwalificeerd elektronisch zegel' },
    receiptSealedBy: 'Dit bewijsrapport is verzegeld door',
    auditEntries: 'Regels in het audittrail',
    auditHead: 'Kop van het audittrail (SHA-256)',
    generatedAt: 'Bewijsrapport opgesteld',
    displayName: 'Naam',
    fileId: 'Bestands-ID',
    pages: "Pagina's",
    originalSha256: 'SHA-256 bij upload',
    finalSha256: 'SHA-256 ondertekend',
    size: 'Grootte (upload → ondertekend)',
    bytes: (n) => `${n.toLocaleString('nl-NL')} bytes`,
    notAvailable: 'niet beschikbaar',
    signerId: 'Ondertekenaar-ID',
    name: 'Naam',
    email: 'E-mail',
    mobile: 'Mobiel',
    outcome: 'Uitkomst',
    outcomes: { signed: 'ondertekend', rejected: 'geweigerd', 'not signed': 'niet ondertekend' },
    signedAt: 'Ondertekend op',
    rejectedAt: 'Geweigerd op',
    rejectReason: 'Reden van weigering',
    ipAddress: 'IP-adres',
    userAgent: 'User agent',
    certificateSubject: 'Certificaathouder',
    certificateSerial: 'Serienummer certificaat',
    certificateIssuer: 'Uitgever certificaat',
    verifications: 'Verificaties',
    verificationType: 'Methode',
    result: 'Resultaat',
    results: { passed: 'geslaagd', failed: 'mislukt', 'not performed': 'niet uitgevoerd' },
    time: 'Tijd (UTC)',
    evidence: 'Bewijs',
    activities: 'Activiteiten',
    code: 'Code',
    activity: 'Activiteit',
    info: 'Info',
    documentsSentAt: 'Documenten verzonden',
    notSent: 'niet verzonden',
    sentWithDocuments: 'verzonden met de ondertekende documenten',
    none: 'geen',
    seq: '#',
    event: 'Gebeurtenis',
    actor: 'Actor',
    details: 'Details',
    entryHash: 'Hash',
  },
  statuses: {
    5: 'wacht op documenten',
    10: 'wacht op ondertekenaar',
    20: 'in behandeling',
    30: 'ondertekend',
    40: 'geweigerd',
    50: 'verlopen',
    60: 'geannuleerd',
    70: 'mislukt',
  },
  events: {
    'transaction.created': 'Transactie aangemaakt',
    'file.uploaded': 'Document geüpload',
    'metadata.uploaded': 'Veldgegevens geüpload',
    'transaction.started': 'Transactie gestart',
    'mail.sent': 'E-mail verzonden',
    'mail.failed': 'E-mail mislukt',
    'signer.opened': 'Ondertekenaar opende het verzoek',
    'document.opened': 'Ondertekenaar opende een document',
    'verification.performed': 'Verificatie uitgevoerd',
    'signer.signed': 'Ondertekenaar tekende',
    'signer.rejected': 'Ondertekenaar weigerde',
    'signing.released': 'Onderbroken ondertekening vrijgegeven',
    'document.finalized': 'Ondertekend document afgerond',
    'transaction.sealed': 'Documenten verzegeld',
    'transaction.completed': 'Transactie afgerond',
    'transaction.failed': 'Transactie mislukt',
    'transaction.cancelled': 'Transactie geannuleerd',
    'transaction.expired': 'Transactie verlopen',
    'transaction.cleaned': 'Gegevens opgeschoond',
    'postback.delivered': 'Postback afgeleverd',
    'postback.failed': 'Postback mislukt',
  },
  auditIntro: (count) =>
    `Alle ${count.toLocaleString('nl-NL')} regels van het audittrail, oudste eerst. De hash van elke regel dekt de ` +
    'inhoud en de hash van de regel ervoor; de kolom toont de eerste 12 hexadecimale cijfers.',
  howToVerify: [
    '1. Controleer het zegel van deze PDF met een PAdES-validator (bijvoorbeeld Adobe Acrobat, de DSS-demonstratie' +
      'validator van de EU of pdfsig): het moet geldig zijn en het hele bestand dekken.',
    '2. Haal het bijgevoegde bestand audit-log.json eruit (bijvoorbeeld met qpdf --show-attachment=audit-log.json). ' +
      'Bereken voor elke regel SHA-256 over de canonieke JSON (sleutels gesorteerd, geen witruimte) van de regel ' +
      'zonder het veld "hash"; de uitkomst moet gelijk zijn aan "hash", en "prevHash" aan de hash van de regel ervoor ' +
      '(64 nullen voor de eerste).',
    '3. De hash van de laatste regel moet gelijk zijn aan de kop van het audittrail in de samenvatting, en de SHA-256 ' +
      'van de documenten aan die van de bestanden die u heeft.',
    'paraph doet alle drie met: paraph receipt verify bewijsrapport.pdf --trust zegel-root.pem --document ondertekend.pdf',
  ],
};

/** The receipt texts for `language` (a BCP 47 tag: `nl-NL`, `nl-BE` and `nl` get Dutch); others get `en-US`. */
export function receiptTextFor(language: string): ReceiptText {
  return /^nl(-|$)/i.test(language) ? NL : EN;
}
