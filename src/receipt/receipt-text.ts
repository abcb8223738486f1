/**
 * The words of the evidential receipt in each language of the signing page (docs/design/api.md#languages): en-US,
 * nl-NL, de-DE, fr-FR, es-ES, it-IT and pl-PL; every other language falls back to `en-US`.
 */
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
    organization: 'Organisation',
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
    organization: 'Organisatie',
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

const DE: ReceiptText = {
  language: 'de-DE',
  title: 'Beweisprotokoll',
  intro:
    'Dieses Beweisprotokoll hält fest, wer welche Dokumente wann unterzeichnet hat und wie jede unterzeichnende Person ' +
    'identifiziert wurde. Es wird aus dem Prüfprotokoll der Transaktion erstellt, das dieser PDF-Datei als ' +
    'maschinenlesbare Datei beigefügt ist, und es ist versiegelt: Jede Änderung dieser Datei nach der Versiegelung ' +
    'macht das Siegel ungültig.',
  footer: (id) => `Beweisprotokoll · Transaktion ${id}`,
  pageOf: (page, pages) => `Seite ${page} von ${pages}`,
  sections: {
    summary: 'Zusammenfassung',
    documents: 'Dokumente',
    signers: 'Unterzeichner',
    receivers: 'Empfänger',
    auditTrail: 'Prüfprotokoll',
    howToVerify: 'So prüfen Sie dieses Beweisprotokoll',
  },
  labels: {
    transactionId: 'Transaktions-ID',
    organization: 'Organisation',
    reference: 'Referenz',
    status: 'Status',
    createdAt: 'Erstellt',
    completedAt: 'Abgeschlossen',
    canceledAt: 'Storniert',
    cancelationReason: 'Grund der Stornierung',
    documents: 'Dokumente',
    signers: 'Unterzeichner',
    receivers: 'Empfänger',
    seal: 'Siegel auf den Dokumenten',
    noSeal: 'Es wurde kein Siegel angefordert',
    sealLevel: { advanced: 'fortgeschrittenes elektronisches Siegel', qualified: 'qualifiziertes elektronisches Siegel' },
    receiptSealedBy: 'Dieses Beweisprotokoll ist versiegelt von',
    auditEntries: 'Einträge im Prüfprotokoll',
    auditHead: 'Hash des letzten Eintrags im Prüfprotokoll (SHA-256)',
    generatedAt: 'Beweisprotokoll erstellt',
    displayName: 'Name',
    fileId: 'Datei-ID',
    pages: 'Seiten',
    originalSha256: 'SHA-256 beim Hochladen',
    finalSha256: 'SHA-256 unterzeichnet',
    size: 'Größe (hochgeladen → unterzeichnet)',
    bytes: (n) => `${n.toLocaleString('de-DE')} Byte`,
    notAvailable: 'nicht verfügbar',
    signerId: 'Unterzeichner-ID',
    name: 'Name',
    email: 'E-Mail',
    mobile: 'Mobiltelefon',
    outcome: 'Ergebnis',
    outcomes: { signed: 'unterzeichnet', rejected: 'abgelehnt', 'not signed': 'nicht unterzeichnet' },
    signedAt: 'Unterzeichnet am',
    rejectedAt: 'Abgelehnt am',
    rejectReason: 'Grund der Ablehnung',
    ipAddress: 'IP-Adresse',
    userAgent: 'User-Agent',
    certificateSubject: 'Zertifikatsinhaber',
    certificateSerial: 'Seriennummer des Zertifikats',
    certificateIssuer: 'Aussteller des Zertifikats',
    verifications: 'Prüfungen',
    verificationType: 'Verfahren',
    result: 'Ergebnis',
    results: { passed: 'bestanden', failed: 'nicht bestanden', 'not performed': 'nicht durchgeführt' },
    time: 'Zeit (UTC)',
    evidence: 'Nachweis',
    activities: 'Aktivitäten',
    code: 'Code',
    activity: 'Aktivität',
    info: 'Info',
    documentsSentAt: 'Dokumente versandt',
    notSent: 'nicht versandt',
    sentWithDocuments: 'mit den unterzeichneten Dokumenten versandt',
    none: 'keine',
    seq: 'Nr.',
    event: 'Ereignis',
    actor: 'Akteur',
    details: 'Einzelheiten',
    entryHash: 'Hash',
  },
  statuses: {
    5: 'wartet auf Dokumente',
    10: 'wartet auf Unterzeichner',
    20: 'in Bearbeitung',
    30: 'unterzeichnet',
    40: 'abgelehnt',
    50: 'abgelaufen',
    60: 'storniert',
    70: 'fehlgeschlagen',
  },
  events: {
    'transaction.created': 'Transaktion erstellt',
    'file.uploaded': 'Dokument hochgeladen',
    'metadata.uploaded': 'Feldangaben hochgeladen',
    'transaction.started': 'Transaktion gestartet',
    'mail.sent': 'E-Mail versandt',
    'mail.failed': 'E-Mail fehlgeschlagen',
    'signer.opened': 'Unterzeichner hat die Anfrage geöffnet',
    'document.opened': 'Unterzeichner hat ein Dokument geöffnet',
    'verification.performed': 'Prüfung durchgeführt',
    'signer.signed': 'Unterzeichner hat unterzeichnet',
    'signer.rejected': 'Unterzeichner hat abgelehnt',
    'signing.released': 'Unterbrochene Unterzeichnung freigegeben',
    'document.finalized': 'Unterzeichnetes Dokument fertiggestellt',
    'transaction.sealed': 'Dokumente versiegelt',
    'transaction.completed': 'Transaktion abgeschlossen',
    'transaction.failed': 'Transaktion fehlgeschlagen',
    'transaction.cancelled': 'Transaktion storniert',
    'transaction.expired': 'Transaktion abgelaufen',
    'transaction.cleaned': 'Daten bereinigt',
    'postback.delivered': 'Postback zugestellt',
    'postback.failed': 'Postback fehlgeschlagen',
  },
  auditIntro: (count) =>
    `Alle ${count.toLocaleString('de-DE')} Einträge des Prüfprotokolls, der älteste zuerst. Der Hash jedes Eintrags ` +
    'umfasst dessen Inhalt und den Hash des vorigen Eintrags; die Spalte zeigt seine ersten 12 Hexadezimalziffern.',
  howToVerify: [
    '1. Prüfen Sie das Siegel dieser PDF-Datei mit einem PAdES-fähigen Validierungsprogramm (zum Beispiel Adobe ' +
      'Acrobat, dem Demonstrations-Validator „DSS“ der EU oder pdfsig): Es muss gültig sein und die ganze Datei abdecken.',
    '2. Extrahieren Sie die beigefügte Datei audit-log.json (zum Beispiel mit qpdf --show-attachment=audit-log.json). ' +
      'Berechnen Sie für jeden Eintrag SHA-256 über das kanonische JSON (Schlüssel sortiert, ohne Leerraum) des ' +
      'Eintrags ohne sein Feld "hash"; das Ergebnis muss "hash" entsprechen, und "prevHash" dem Hash des vorigen ' +
      'Eintrags (64 Nullen beim ersten).',
    '3. Der Hash des letzten Eintrags muss dem in der Zusammenfassung angegebenen Hash des Prüfprotokolls ' +
      'entsprechen, und die SHA-256-Werte der Dokumente denen der Dateien, die Ihnen vorliegen.',
    'paraph erledigt alle drei Schritte mit: paraph receipt verify beweisprotokoll.pdf --trust siegel-root.pem --document unterzeichnet.pdf',
  ],
};

const FR: ReceiptText = {
  language: 'fr-FR',
  title: 'Certificat de preuve',
  intro:
    'Ce certificat de preuve atteste qui a signé quels documents, à quel moment, et comment chaque signataire a été ' +
    'identifié. Il est établi à partir de la piste d’audit de la transaction, jointe à ce PDF sous forme de fichier ' +
    'lisible par machine, et il est scellé : toute modification de ce fichier après le scellement invalide le cachet.',
  footer: (id) => `Certificat de preuve · transaction ${id}`,
  pageOf: (page, pages) => `page ${page} sur ${pages}`,
  sections: {
    summary: 'Synthèse',
    documents: 'Documents',
    signers: 'Signataires',
    receivers: 'Destinataires',
    auditTrail: 'Piste d’audit',
    howToVerify: 'Vérifier ce certificat de preuve',
  },
  labels: {
    transactionId: 'Identifiant de la transaction',
    organization: 'Organisation',
    reference: 'Référence',
    status: 'Statut',
    createdAt: 'Créée le',
    completedAt: 'Terminée le',
    canceledAt: 'Annulée le',
    cancelationReason: 'Motif de l’annulation',
    documents: 'Documents',
    signers: 'Signataires',
    receivers: 'Destinataires',
    seal: 'Cachet sur les documents',
    noSeal: 'Aucun cachet n’a été demandé',
    sealLevel: { advanced: 'cachet électronique avancé', qualified: 'cachet électronique qualifié' },
    receiptSealedBy: 'Ce certificat de preuve est scellé par',
    auditEntries: 'Entrées de la piste d’audit',
    auditHead: 'Empreinte de la dernière entrée d’audit (SHA-256)',
    generatedAt: 'Certificat établi le',
    displayName: 'Nom',
    fileId: 'Identifiant du fichier',
    pages: 'Pages',
    originalSha256: 'SHA-256 au dépôt',
    finalSha256: 'SHA-256 après signature',
    size: 'Taille (déposé → signé)',
    bytes: (n) => `${n.toLocaleString('fr-FR')} octets`,
    notAvailable: 'non disponible',
    signerId: 'Identifiant du signataire',
    name: 'Nom',
    email: 'Courriel',
    mobile: 'Mobile',
    outcome: 'Issue',
    outcomes: { signed: 'signé', rejected: 'refusé', 'not signed': 'non signé' },
    signedAt: 'Signé le',
    rejectedAt: 'Refusé le',
    rejectReason: 'Motif du refus',
    ipAddress: 'Adresse IP',
    userAgent: 'Agent utilisateur',
    certificateSubject: 'Titulaire du certificat',
    certificateSerial: 'Numéro de série du certificat',
    certificateIssuer: 'Émetteur du certificat',
    verifications: 'Vérifications',
    verificationType: 'Méthode',
    result: 'Résultat',
    results: { passed: 'réussie', failed: 'échouée', 'not performed': 'non effectuée' },
    time: 'Heure (UTC)',
    evidence: 'Élément de preuve',
    activities: 'Activités',
    code: 'Code',
    activity: 'Activité',
    info: 'Info',
    documentsSentAt: 'Documents envoyés',
    notSent: 'non envoyés',
    sentWithDocuments: 'envoyé avec les documents signés',
    none: 'aucun',
    seq: 'N°',
    event: 'Événement',
    actor: 'Acteur',
    details: 'Détails',
    entryHash: 'Empreinte',
  },
  statuses: {
    5: 'en attente de documents',
    10: 'en attente du signataire',
    20: 'en cours',
    30: 'signée',
    40: 'refusée',
    50: 'expirée',
    60: 'annulée',
    70: 'en échec',
  },
  events: {
    'transaction.created': 'Transaction créée',
    'file.uploaded': 'Document déposé',
    'metadata.uploaded': 'Métadonnées des champs déposées',
    'transaction.started': 'Transaction lancée',
    'mail.sent': 'Courriel envoyé',
    'mail.failed': 'Échec de l’envoi du courriel',
    'signer.opened': 'Le signataire a ouvert la demande',
    'document.opened': 'Le signataire a ouvert un document',
    'verification.performed': 'Vérification effectuée',
    'signer.signed': 'Le signataire a signé',
    'signer.rejected': 'Le signataire a refusé',
    'signing.released': 'Signature interrompue libérée',
    'document.finalized': 'Document signé finalisé',
    'transaction.sealed': 'Documents scellés',
    'transaction.completed': 'Transaction terminée',
    'transaction.failed': 'Échec de la transaction',
    'transaction.cancelled': 'Transaction annulée',
    'transaction.expired': 'Transaction expirée',
    'transaction.cleaned': 'Données effacées',
    'postback.delivered': 'Notification de retour remise',
    'postback.failed': 'Échec de la notification de retour',
  },
  auditIntro: (count) =>
    `Les ${count.toLocaleString('fr-FR')} entrées de la piste d’audit, de la plus ancienne à la plus récente. ` +
    'L’empreinte de chaque entrée couvre son contenu et l’empreinte de l’entrée précédente ; la colonne en affiche ' +
    'les 12 premiers chiffres hexadécimaux.',
  howToVerify: [
    '1. Vérifiez le cachet de ce PDF avec un validateur compatible PAdES (par exemple Adobe Acrobat, le validateur de ' +
      'démonstration « DSS » de l’UE ou pdfsig) : il doit être valide et couvrir l’intégralité du fichier.',
    '2. Extrayez le fichier joint audit-log.json (par exemple avec qpdf --show-attachment=audit-log.json). Pour ' +
      'chaque entrée, calculez le SHA-256 du JSON canonique (clés triées, sans espaces) de l’entrée privée de son ' +
      'champ "hash" ; le résultat doit être égal à "hash", et "prevHash" à l’empreinte de l’entrée précédente ' +
      '(64 zéros pour la première).',
    '3. L’empreinte de la dernière entrée doit être égale à celle de la piste d’audit indiquée dans la ' +
      'synthèse, et les valeurs SHA-256 des documents à celles des fichiers en votre possession.',
    'paraph effectue ces trois contrôles avec : paraph receipt verify certificat.pdf --trust racine-cachet.pem --document signe.pdf',
  ],
};

const ES: ReceiptText = {
  language: 'es-ES',
  title: 'Acta de evidencias',
  intro:
    'Esta acta de evidencias deja constancia de quién firmó qué documentos, cuándo y cómo se identificó a cada ' +
    'firmante. Se genera a partir del registro de auditoría de la transacción, que se adjunta a este PDF como ' +
    'archivo legible por máquina, y está sellada: cualquier modificación de este archivo después del sellado ' +
    'invalida el sello.',
  footer: (id) => `Acta de evidencias · transacción ${id}`,
  pageOf: (page, pages) => `página ${page} de ${pages}`,
  sections: {
    summary: 'Resumen',
    documents: 'Documentos',
    signers: 'Firmantes',
    receivers: 'Destinatarios',
    auditTrail: 'Registro de auditoría',
    howToVerify: 'Cómo verificar esta acta',
  },
  labels: {
    transactionId: 'ID de la transacción',
    organization: 'Organización',
    reference: 'Referencia',
    status: 'Estado',
    createdAt: 'Creada',
    completedAt: 'Completada',
    canceledAt: 'Cancelada',
    cancelationReason: 'Motivo de la cancelación',
    documents: 'Documentos',
    signers: 'Firmantes',
    receivers: 'Destinatarios',
    seal: 'Sello en los documentos',
    noSeal: 'No se solicitó ningún sello',
    sealLevel: { advanced: 'sello electrónico avanzado', qualified: 'sello electrónico cualificado' },
    receiptSealedBy: 'Esta acta está sellada por',
    auditEntries: 'Entradas del registro de auditoría',
    auditHead: 'Cabeza del registro de auditoría (SHA-256)',
    generatedAt: 'Acta generada',
    displayName: 'Nombre',
    fileId: 'ID del archivo',
    pages: 'Páginas',
    originalSha256: 'SHA-256 al subirlo',
    finalSha256: 'SHA-256 firmado',
    size: 'Tamaño (subido → firmado)',
    bytes: (n) => `${n.toLocaleString('es-ES')} bytes`,
    notAvailable: 'no disponible',
    signerId: 'ID del firmante',
    name: 'Nombre',
    email: 'Correo electrónico',
    mobile: 'Móvil',
    outcome: 'Resultado final',
    outcomes: { signed: 'firmado', rejected: 'rechazado', 'not signed': 'no firmado' },
    signedAt: 'Firmado el',
    rejectedAt: 'Rechazado el',
    rejectReason: 'Motivo del rechazo',
    ipAddress: 'Dirección IP',
    userAgent: 'Agente de usuario',
    certificateSubject: 'Titular del certificado',
    certificateSerial: 'Número de serie del certificado',
    certificateIssuer: 'Emisor del certificado',
    verifications: 'Verificaciones',
    verificationType: 'Método',
    result: 'Resultado',
    results: { passed: 'superada', failed: 'no superada', 'not performed': 'no realizada' },
    time: 'Hora (UTC)',
    evidence: 'Evidencia',
    activities: 'Actividades',
    code: 'Código',
    activity: 'Actividad',
    info: 'Información',
    documentsSentAt: 'Documentos enviados',
    notSent: 'no enviados',
    sentWithDocuments: 'enviado con los documentos firmados',
    none: 'ninguno',
    seq: 'N.º',
    event: 'Evento',
    actor: 'Actor',
    details: 'Detalles',
    entryHash: 'Hash',
  },
  statuses: {
    5: 'a la espera de documentos',
    10: 'a la espera del firmante',
    20: 'en curso',
    30: 'firmada',
    40: 'rechazada',
    50: 'caducada',
    60: 'cancelada',
    70: 'fallida',
  },
  events: {
    'transaction.created': 'Transacción creada',
    'file.uploaded': 'Documento subido',
    'metadata.uploaded': 'Metadatos de campos subidos',
    'transaction.started': 'Transacción iniciada',
    'mail.sent': 'Correo electrónico enviado',
    'mail.failed': 'Error al enviar el correo electrónico',
    'signer.opened': 'El firmante abrió la solicitud',
    'document.opened': 'El firmante abrió un documento',
    'verification.performed': 'Verificación realizada',
    'signer.signed': 'El firmante firmó',
    'signer.rejected': 'El firmante rechazó',
    'signing.released': 'Firma interrumpida liberada',
    'document.finalized': 'Documento firmado finalizado',
    'transaction.sealed': 'Documentos sellados',
    'transaction.completed': 'Transacción completada',
    'transaction.failed': 'Transacción fallida',
    'transaction.cancelled': 'Transacción cancelada',
    'transaction.expired': 'Transacción caducada',
    'transaction.cleaned': 'Datos eliminados',
    'postback.delivered': 'Notificación de retorno entregada',
    'postback.failed': 'Error en la notificación de retorno',
  },
  auditIntro: (count) =>
    `Las ${count.toLocaleString('es-ES')} entradas del registro de auditoría, de la más antigua a la más reciente. ` +
    'El hash de cada entrada abarca su contenido y el hash de la entrada anterior; la columna muestra sus 12 ' +
    'primeros dígitos hexadecimales.',
  howToVerify: [
    '1. Compruebe el sello de este PDF con cualquier validador compatible con PAdES (por ejemplo, Adobe Acrobat, el ' +
      'validador de demostración «DSS» de la UE o pdfsig): debe ser válido y abarcar el archivo completo.',
    '2. Extraiga el archivo adjunto audit-log.json (por ejemplo, con qpdf --show-attachment=audit-log.json). Para ' +
      'cada entrada, calcule el SHA-256 del JSON canónico (claves ordenadas, sin espacios) de la entrada sin su campo ' +
      '"hash"; debe coincidir con "hash", y "prevHash" con el hash de la entrada anterior (64 ceros para la primera).',
    '3. El hash de la última entrada debe coincidir con la cabeza del registro de auditoría indicada en el resumen, y ' +
      'los valores SHA-256 de los documentos con los de los archivos que usted conserva.',
    'paraph realiza las tres comprobaciones con: paraph receipt verify acta.pdf --trust raiz-sello.pem --document firmado.pdf',
  ],
};

const IT: ReceiptText = {
  language: 'it-IT',
  title: 'Attestato probatorio',
  intro:
    'Questo attestato probatorio registra chi ha firmato quali documenti, quando e come è stato identificato ciascun ' +
    'firmatario. È generato dal registro di audit della transazione, allegato a questo PDF come file leggibile da ' +
    'una macchina, ed è sigillato: qualsiasi modifica di questo file dopo l’apposizione del sigillo lo invalida.',
  footer: (id) => `Attestato probatorio · transazione ${id}`,
  pageOf: (page, pages) => `pagina ${page} di ${pages}`,
  sections: {
    summary: 'Riepilogo',
    documents: 'Documenti',
    signers: 'Firmatari',
    receivers: 'Destinatari',
    auditTrail: 'Registro di audit',
    howToVerify: 'Come verificare questo attestato',
  },
  labels: {
    transactionId: 'ID della transazione',
    organization: 'Organizzazione',
    reference: 'Riferimento',
    status: 'Stato',
    createdAt: 'Creata',
    completedAt: 'Completata',
    canceledAt: 'Annullata',
    cancelationReason: 'Motivo dell’annullamento',
    documents: 'Documenti',
    signers: 'Firmatari',
    receivers: 'Destinatari',
    seal: 'Sigillo sui documenti',
    noSeal: 'Non è stato richiesto alcun sigillo',
    sealLevel: { advanced: 'sigillo elettronico avanzato', qualified: 'sigillo elettronico qualificato' },
    receiptSealedBy: 'Questo attestato è sigillato da',
    auditEntries: 'Voci del registro di audit',
    auditHead: 'Testa del registro di audit (SHA-256)',
    generatedAt: 'Attestato generato',
    displayName: 'Nome',
    fileId: 'ID del file',
    pages: 'Pagine',
    originalSha256: 'SHA-256 al caricamento',
    finalSha256: 'SHA-256 firmato',
    size: 'Dimensione (caricato → firmato)',
    bytes: (n) => `${n.toLocaleString('it-IT')} byte`,
    notAvailable: 'non disponibile',
    signerId: 'ID del firmatario',
    name: 'Nome',
    email: 'E-mail',
    mobile: 'Cellulare',
    outcome: 'Esito',
    outcomes: { signed: 'firmato', rejected: 'rifiutato', 'not signed': 'non firmato' },
    signedAt: 'Firmato il',
    rejectedAt: 'Rifiutato il',
    rejectReason: 'Motivo del rifiuto',
    ipAddress: 'Indirizzo IP',
    userAgent: 'User agent',
    certificateSubject: 'Titolare del certificato',
    certificateSerial: 'Numero di serie del certificato',
    certificateIssuer: 'Emittente del certificato',
    verifications: 'Verifiche',
    verificationType: 'Metodo',
    result: 'Risultato',
    results: { passed: 'superata', failed: 'non superata', 'not performed': 'non eseguita' },
    time: 'Ora (UTC)',
    evidence: 'Prova',
    activities: 'Attività',
    code: 'Codice',
    activity: 'Attività svolta',
    info: 'Informazioni',
    documentsSentAt: 'Documenti inviati',
    notSent: 'non inviati',
    sentWithDocuments: 'inviato con i documenti firmati',
    none: 'nessuno',
    seq: 'N.',
    event: 'Evento',
    actor: 'Attore',
    details: 'Dettagli',
    entryHash: 'Hash',
  },
  statuses: {
    5: 'in attesa dei documenti',
    10: 'in attesa del firmatario',
    20: 'in corso',
    30: 'firmata',
    40: 'rifiutata',
    50: 'scaduta',
    60: 'annullata',
    70: 'non riuscita',
  },
  events: {
    'transaction.created': 'Transazione creata',
    'file.uploaded': 'Documento caricato',
    'metadata.uploaded': 'Metadati dei campi caricati',
    'transaction.started': 'Transazione avviata',
    'mail.sent': 'E-mail inviata',
    'mail.failed': 'Invio dell’e-mail non riuscito',
    'signer.opened': 'Il firmatario ha aperto la richiesta',
    'document.opened': 'Il firmatario ha aperto un documento',
    'verification.performed': 'Verifica eseguita',
    'signer.signed': 'Il firmatario ha firmato',
    'signer.rejected': 'Il firmatario ha rifiutato',
    'signing.released': 'Firma interrotta sbloccata',
    'document.finalized': 'Documento firmato finalizzato',
    'transaction.sealed': 'Documenti sigillati',
    'transaction.completed': 'Transazione completata',
    'transaction.failed': 'Transazione non riuscita',
    'transaction.cancelled': 'Transazione annullata',
    'transaction.expired': 'Transazione scaduta',
    'transaction.cleaned': 'Dati cancellati',
    'postback.delivered': 'Notifica di ritorno consegnata',
    'postback.failed': 'Notifica di ritorno non riuscita',
  },
  auditIntro: (count) =>
    `Tutte le ${count.toLocaleString('it-IT')} voci del registro di audit, dalla più vecchia. L’hash di ogni voce ` +
    'copre il suo contenuto e l’hash della voce precedente; la colonna ne mostra le prime 12 cifre esadecimali.',
  howToVerify: [
    '1. Verificate il sigillo di questo PDF con un validatore compatibile PAdES (ad esempio Adobe Acrobat, il ' +
      'validatore dimostrativo «DSS» dell’UE o pdfsig): deve essere valido e coprire l’intero file.',
    '2. Estraete il file allegato audit-log.json (ad esempio con qpdf --show-attachment=audit-log.json). Per ogni ' +
      'voce calcolate lo SHA-256 del JSON canonico (chiavi ordinate, senza spazi) della voce privata del campo ' +
      '"hash"; deve coincidere con "hash", e "prevHash" con l’hash della voce precedente (64 zeri per la prima).',
    '3. L’hash dell’ultima voce deve coincidere con la testa del registro di audit riportata nel riepilogo, e i ' +
      'valori SHA-256 dei documenti con quelli dei file in vostro possesso.',
    'paraph esegue tutti e tre i controlli con: paraph receipt verify attestato.pdf --trust radice-sigillo.pem --document firmato.pdf',
  ],
};

const PL: ReceiptText = {
  language: 'pl-PL',
  title: 'Protokół dowodowy',
  intro:
    'Niniejszy protokół dowodowy potwierdza, kto podpisał które dokumenty, kiedy oraz w jaki sposób zidentyfikowano ' +
    'każdego podpisującego. Sporządzono go na podstawie dziennika zdarzeń transakcji, dołączonego do tego pliku PDF ' +
    'jako plik do odczytu maszynowego, i opatrzono pieczęcią: każda zmiana tego pliku po jej złożeniu unieważnia ' +
    'pieczęć.',
  footer: (id) => `Protokół dowodowy · transakcja ${id}`,
  pageOf: (page, pages) => `strona ${page} z ${pages}`,
  sections: {
    summary: 'Podsumowanie',
    documents: 'Dokumenty',
    signers: 'Podpisujący',
    receivers: 'Odbiorcy',
    auditTrail: 'Dziennik zdarzeń',
    howToVerify: 'Jak zweryfikować ten protokół',
  },
  labels: {
    transactionId: 'Identyfikator transakcji',
    organization: 'Organizacja',
    reference: 'Numer referencyjny',
    status: 'Status',
    createdAt: 'Utworzono',
    completedAt: 'Zakończono',
    canceledAt: 'Anulowano',
    cancelationReason: 'Powód anulowania',
    documents: 'Dokumenty',
    signers: 'Podpisujący',
    receivers: 'Odbiorcy',
    seal: 'Pieczęć na dokumentach',
    noSeal: 'Nie zażądano pieczęci',
    sealLevel: { advanced: 'zaawansowana pieczęć elektroniczna', qualified: 'kwalifikowana pieczęć elektroniczna' },
    receiptSealedBy: 'Ten protokół opatrzył pieczęcią',
    auditEntries: 'Wpisy w dzienniku zdarzeń',
    auditHead: 'Skrót ostatniego wpisu dziennika (SHA-256)',
    generatedAt: 'Data sporządzenia protokołu',
    displayName: 'Nazwa',
    fileId: 'Identyfikator pliku',
    pages: 'Strony',
    originalSha256: 'SHA-256 po przesłaniu',
    finalSha256: 'SHA-256 po podpisaniu',
    size: 'Rozmiar (przesłany → podpisany)',
    bytes: (n) => `${n.toLocaleString('pl-PL')} B`,
    notAvailable: 'niedostępne',
    signerId: 'Identyfikator podpisującego',
    name: 'Imię i nazwisko',
    email: 'E-mail',
    mobile: 'Telefon komórkowy',
    outcome: 'Wynik',
    outcomes: { signed: 'podpisano', rejected: 'odrzucono', 'not signed': 'nie podpisano' },
    signedAt: 'Data podpisania',
    rejectedAt: 'Data odrzucenia',
    rejectReason: 'Powód odrzucenia',
    ipAddress: 'Adres IP',
    userAgent: 'Agent użytkownika',
    certificateSubject: 'Podmiot certyfikatu',
    certificateSerial: 'Numer seryjny certyfikatu',
    certificateIssuer: 'Wystawca certyfikatu',
    verifications: 'Weryfikacje',
    verificationType: 'Metoda',
    result: 'Rezultat',
    results: { passed: 'pozytywny', failed: 'negatywny', 'not performed': 'nie przeprowadzono' },
    time: 'Czas (UTC)',
    evidence: 'Dowód',
    activities: 'Czynności',
    code: 'Kod',
    activity: 'Czynność',
    info: 'Informacje',
    documentsSentAt: 'Wysłanie dokumentów',
    notSent: 'nie wysłano',
    sentWithDocuments: 'wysłano wraz z podpisanymi dokumentami',
    none: 'brak',
    seq: 'Lp.',
    event: 'Zdarzenie',
    actor: 'Podmiot',
    details: 'Szczegóły',
    entryHash: 'Skrót',
  },
  statuses: {
    5: 'oczekuje na dokumenty',
    10: 'oczekuje na podpisującego',
    20: 'w toku',
    30: 'podpisana',
    40: 'odrzucona',
    50: 'wygasła',
    60: 'anulowana',
    70: 'nieudana',
  },
  events: {
    'transaction.created': 'Utworzono transakcję',
    'file.uploaded': 'Przesłano dokument',
    'metadata.uploaded': 'Przesłano metadane pól',
    'transaction.started': 'Rozpoczęto transakcję',
    'mail.sent': 'Wysłano wiadomość e-mail',
    'mail.failed': 'Nie udało się wysłać wiadomości e-mail',
    'signer.opened': 'Podpisujący otworzył żądanie',
    'document.opened': 'Podpisujący otworzył dokument',
    'verification.performed': 'Przeprowadzono weryfikację',
    'signer.signed': 'Podpisujący złożył podpis',
    'signer.rejected': 'Podpisujący odmówił podpisu',
    'signing.released': 'Zwolniono przerwane podpisywanie',
    'document.finalized': 'Sfinalizowano podpisany dokument',
    'transaction.sealed': 'Opatrzono dokumenty pieczęcią',
    'transaction.completed': 'Zakończono transakcję',
    'transaction.failed': 'Transakcja nie powiodła się',
    'transaction.cancelled': 'Anulowano transakcję',
    'transaction.expired': 'Transakcja wygasła',
    'transaction.cleaned': 'Usunięto dane',
    'postback.delivered': 'Dostarczono powiadomienie zwrotne',
    'postback.failed': 'Nie udało się dostarczyć powiadomienia zwrotnego',
  },
  auditIntro: (count) =>
    `Wszystkie wpisy dziennika zdarzeń (${count.toLocaleString('pl-PL')}), od najstarszego. Skrót każdego wpisu ` +
    'obejmuje jego treść i skrót poprzedniego wpisu; kolumna pokazuje jego pierwsze 12 cyfr szesnastkowych.',
  howToVerify: [
    '1. Sprawdź pieczęć tego pliku PDF dowolnym walidatorem obsługującym PAdES (na przykład Adobe Acrobat, ' +
      'demonstracyjny walidator „DSS” Unii Europejskiej lub pdfsig): musi być ważna i obejmować cały plik.',
    '2. Wyodrębnij załączony plik audit-log.json (na przykład poleceniem qpdf --show-attachment=audit-log.json). Dla ' +
      'każdego wpisu oblicz SHA-256 kanonicznego JSON-u (klucze posortowane, bez białych znaków) wpisu bez pola ' +
      '"hash"; wynik musi być równy "hash", a "prevHash" skrótowi poprzedniego wpisu (64 zera dla pierwszego).',
    '3. Skrót ostatniego wpisu musi być równy skrótowi podanemu w podsumowaniu, a wartości SHA-256 dokumentów – ' +
      'wartościom plików, które posiadasz.',
    'paraph wykonuje wszystkie trzy kroki poleceniem: paraph receipt verify protokol.pdf --trust pieczec-root.pem --document podpisany.pdf',
  ],
};

/** The languages the receipt is written in: the seven of the signing page and the e-mails. */
export const RECEIPT_LANGUAGES = ['en-US', 'nl-NL', 'de-DE', 'fr-FR', 'es-ES', 'it-IT', 'pl-PL'] as const;
export type ReceiptLanguage = (typeof RECEIPT_LANGUAGES)[number];

const BY_PRIMARY_SUBTAG: Readonly<Record<string, ReceiptText>> = { en: EN, nl: NL, de: DE, fr: FR, es: ES, it: IT, pl: PL };

/**
 * The receipt texts for `language` (a BCP 47 tag, matched on its primary subtag: `nl-BE` and `nl` get Dutch,
 * `de-AT` German); any other language gets `en-US`.
 */
export function receiptTextFor(language: string): ReceiptText {
  const primary = /^([a-z]{2})(?:-|$)/i.exec(language)?.[1]?.toLowerCase();
  return (primary !== undefined && Object.hasOwn(BY_PRIMARY_SUBTAG, primary) ? BY_PRIMARY_SUBTAG[primary] : undefined) ?? EN;
}
