/**
 * The signing transaction aggregate as plain data, its status and activity codes, and its state machine
 * (docs/design/transactions.md). Pure: every function takes the clock (`now`)
 * and any generated ids or tokens from the caller and returns a new value; nothing is mutated.
 *
 * Times are stored as the API writes them (`2026-11-21T10:00:00.000+00:00`, see {@link formatTime}), so a
 * transaction round-trips through JSON unchanged and ISO strings of this one format compare in time order.
 */
import { ParaphError } from '../errors.js';
import { formatAuditTime } from '../receipt/audit-log.js';
import type { FileMetaData } from '../pdf/file-metadata.js';
import type { Language } from '../i18n/languages.js';
import type { FieldPlacement } from '../pdf/resolve-locations.js';
import type { ReceiverFields, SignerFields, TransactionFields } from './transaction-schema.js';

/** Transaction `Status` codes (docs/design/transactions.md#statuses). */
export const TransactionStatus = {
  WaitingForDocument: 5,
  WaitingForSigner: 10,
  InProgress: 20,
  Signed: 30,
  Rejected: 40,
  Expired: 50,
  Cancelled: 60,
  Failed: 70,
} as const;

/** One of the {@link TransactionStatus} codes. */
export type TransactionStatusCode = (typeof TransactionStatus)[keyof typeof TransactionStatus];

/** True for the end statuses 30 and above (docs/design/transactions.md#transitions). */
export function isEndStatus(status: TransactionStatusCode): boolean {
  return status >= TransactionStatus.Signed;
}

/** Activity codes of signers and receivers (docs/design/transactions.md#activities), with their `Activity` names. */
export const ActivityCode = {
  InvitationSent: 101,
  Opened: 103,
  ReminderSent: 104,
  DocumentOpened: 105,
  Rejected: 202,
  Signed: 203,
  SignedDocumentSent: 301,
  SignedDocumentOpened: 302,
  SignedDocumentDownloaded: 303,
  ReceiptSent: 401,
  ReceiptOpened: 402,
  ReceiptDownloaded: 403,
  Failed: 999,
} as const;

/** One of the {@link ActivityCode} numbers. */
export type ActivityCodeNumber = (typeof ActivityCode)[keyof typeof ActivityCode];

/** The `Activity` name of every code, e.g. `103` → `Opened`. */
export const ACTIVITY_NAMES: Readonly<Record<ActivityCodeNumber, keyof typeof ActivityCode>> = Object.freeze(
  Object.fromEntries(Object.entries(ActivityCode).map(([name, code]) => [code, name])) as Record<
    ActivityCodeNumber,
    keyof typeof ActivityCode
  >,
);

/** A JSON value as stored (Context, verification fields). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object (Context is always one). */
export type JsonObject = { [key: string]: JsonValue };

/** Verification `Type` strings, case-sensitive (docs/design/signer-api.md#verification-types). */
export const VERIFICATION_TYPES = [
  'Scribble',
  'Consent',
  'PhoneNumber',
  'Email',
  'IPAddress',
  'SigningCertificate',
  'DigiD',
  'eHerkenning',
  'eIDAS Login',
  'iDeal',
  'iDIN',
  'itsme Identification',
  'itsme sign',
  'SURFnet',
  'CSC Qualified',
  'Onfido',
  'OpenID Providers',
] as const;
/** One of {@link VERIFICATION_TYPES}. */
export type VerificationType = (typeof VERIFICATION_TYPES)[number];

/**
 * A verification attached to a signer: its `Type` plus the fields of that type
 * (docs/design/signer-api.md#verification-types), as sent or recorded.
 */
export interface Verification {
  Type: VerificationType;
  [field: string]: JsonValue;
}

/** An authentication done before the signer sees any document (docs/design/signer-api.md#authentications). */
export interface Authentication {
  Type: 'PhoneNumber' | 'DigiD';
  [field: string]: JsonValue;
}

/** A signer or receiver activity (docs/design/transactions.md#activities). */
export interface Activity {
  Id: string;
  Code: ActivityCodeNumber;
  /** Name of `Code`, e.g. `Opened`. */
  Activity: string;
  Info?: string;
  CreatedDateTime: string;
}

/**
 * A signer as stored: the client's fields as declared once in transaction-schema.ts (absent when not sent), with the
 * defaults applied, plus what the service records.
 */
export interface Signer extends Omit<SignerFields, 'Id' | 'Verifications' | 'Authentications' | 'SendSignRequest' | 'DaysToRemind'> {
  Id: string;
  /**
   * The random token of the SignUrl (docs/design/signer-api.md#token). Kept because every response rebuilds the SignUrl
   * from it; the store indexes its SHA-256 for look-ups. Removed when the transaction is cleaned.
   */
  SignToken?: string;
  Verifications: Verification[];
  Authentications?: Authentication[];
  SendSignRequest: boolean;
  /** Days between reminders; -1 = no reminders (docs/design/api.md#defaults). */
  DaysToRemind: number;
  Activities: Activity[];
  RejectReason?: string;
  SignedDateTime?: string;
  RejectDateTime?: string;
  /** When the next reminder is due; absent when none is (derived timer, see {@link nextTimerAt}). */
  NextReminderDateTime?: string;
  CreatedDateTime: string;
  ModifiedDateTime: string;
  /**
   * Progress of the signer's session behind SignUrl (verifications done, one-time code hashes, the scribble,
   * the sign request id). Internal: never part of a response; deleted when the transaction is cleaned.
   */
  SignSession?: JsonObject;
}

/**
 * A receiver of the finished documents (docs/design/api.md#response-values): the client's fields plus what the service
 * records.
 */
export interface Receiver extends ReceiverFields {
  Id: string;
  Activities: Activity[];
  CreatedDateTime: string;
  ModifiedDateTime: string;
}

/** A blob stored in the content-addressed blob store. */
export interface BlobRef {
  /** Lowercase hex SHA-256: the blob's address. */
  sha256: string;
  size: number;
}

/** A file of the transaction: its metadata and PDF as uploaded, and the PDF as prepared and signed so far. */
export interface StoredFile {
  /** Client-chosen fileId, decoded (docs/design/files.md#file-ids). */
  FileId: string;
  /** From the metadata; the view falls back to `FileId`. */
  DisplayName?: string;
  /** The validated FileMetaData, when uploaded. */
  Metadata?: FileMetaData;
  /** The metadata JSON as uploaded. */
  MetadataBlob?: BlobRef;
  /** The PDF as uploaded. */
  Original?: BlobRef & { pages: number };
  /** Field placements resolved from the metadata once both are present (docs/design/files.md#preparation-at-upload). */
  Placements?: FieldPlacement[];
  /** The prepared PDF (fields placed) and, later, with each signature and the seal: what GET file returns at 10+. */
  Current?: BlobRef;
  /**
   * Before start: the key ({@link preparationKey}) of what upload resolved `Placements` from (default signature
   * fields included); start writes the fields at those placements, without resolving again, while the key still
   * matches. (Older records also name the blob of a prepared PDF, which nothing reads.)
   */
  Prepared?: { key: string };
  UploadedDateTime?: string;
}

/**
 * The transaction aggregate. `Files` is an array in upload order (a plain object keyed by fileId would reorder
 * numeric-looking ids and is unsafe for ids such as `__proto__`); the view turns it into the spec's map.
 */
export interface Transaction extends Omit<TransactionFields, 'Seal' | 'SignRequestMode' | 'DaysToExpire' | 'SendEmailNotifications' | 'Language'> {
  Id: string;
  AccountId: string;
  Status: TransactionStatusCode;
  Seal: boolean;
  /**
   * 1 all at start, 2 when it is the signer's turn (default, docs/design/api.md#sign-requests). 0 only in transactions
   * stored before 0 came to mean 2.
   */
  SignRequestMode: 0 | 1 | 2;
  DaysToExpire: number;
  SendEmailNotifications: boolean;
  Language: Language;
  CreatedDateTime: string;
  ModifiedDateTime: string;
  /** CreatedDateTime + DaysToExpire: when a transaction still at 5 or 10 becomes 50. */
  ExpiresDateTime: string;
  StartedDateTime?: string;
  /** When the transaction reached an end status (the retention period of cleaning counts from here). */
  EndedDateTime?: string;
  CanceledDateTime?: string;
  CancelationReason?: string;
  /** Why the transaction failed (status 70); internal, not part of the response. */
  FailureReason?: string;
  Files: StoredFile[];
  Signers: Signer[];
  Receivers: Receiver[];
  /** The evidential receipt in the transaction's language, once built (status 30). */
  Receipt?: BlobRef;
  /**
   * The same receipt in each other language a signer reads (their `Language`), built and sealed with it, for their
   * confirmation mail and their download (docs/design/receipt.md#languages). Internal, not part of a response.
   */
  ReceiptTranslations?: Readonly<Partial<Record<Language, BlobRef>>>;
  /** Optimistic concurrency: 0 before the first commit, then incremented by the store on every commit. */
  version: number;
  /**
   * After a DELETE (docs/design/transactions.md#cancellation): when the clean job removes the documents and the
   * receipt, which stay downloadable until then. Internal, not part of a response.
   */
  CleanDueDateTime?: string;
  /** Set when documents and sensitive data were deleted (DELETE's clean job or retention cleaning): GET answers 410. */
  cleanedAt?: string;
}

/** Stable codes of {@link DomainError}. */
export type DomainErrorCode =
  | 'TRANSACTION_ALREADY_STARTED'
  | 'TRANSACTION_NOT_STARTED'
  | 'TRANSACTION_ENDED'
  | 'TRANSACTION_CLEANED'
  | 'INVALID_TRANSITION'
  | 'NO_FILES'
  | 'SIGNER_NOT_FOUND'
  | 'RECEIVER_NOT_FOUND'
  | 'FILE_NOT_FOUND'
  | SignerRefusalCode;

/**
 * A request the transaction cannot accept in its current state (docs/design/transactions.md#transitions,
 * docs/design/transactions.md#cleaning).
 */
export class DomainError extends ParaphError {
  declare readonly code: DomainErrorCode;
  constructor(code: DomainErrorCode, message: string) {
    super(code, message, { origin: 'input' });
  }
}

/** The time format of the API and the audit trail: `2026-11-21T10:00:00.000+00:00` (docs/design/api.md#timestamps). */
export function formatTime(at: Date): string {
  return formatAuditTime(at);
}

const DAY_MS = 86_400_000;

/** `at` plus `days` whole days, formatted. */
export function addDays(at: string | Date, days: number): string {
  const base = typeof at === 'string' ? Date.parse(at) : at.getTime();
  return formatTime(new Date(base + days * DAY_MS));
}

/** Events of the state machine. */
export type TransactionEvent =
  /** PUT start succeeded: 5 → 10 (signers) or 20 (seal-only: the service seals now). */
  | { type: 'start' }
  /** PUT start found errors, or preparation failed: 5/10/20 → 70. */
  | { type: 'fail'; reason: string }
  /** The signer whose turn it is signed: stays 10 while signers remain, else 20 (the service finalizes). */
  | { type: 'sign'; signerId: string }
  /** A signer rejected: 10 → 40. */
  | { type: 'reject'; signerId: string; reason: string }
  /** Sealing and the receipt are done: 20 → 30 (not under a signing hold: that signer has not signed). */
  | { type: 'complete' }
  /** The signer at turn's signature is being applied: 10 → 20 with the signer marked as signing since now. */
  | { type: 'hold'; signerId: string }
  /** The signing hold is given up (signing failed, or the hold went stale): 20 → 10, the mark removed. */
  | { type: 'release' }
  /** The expiry timer fired: 5/10 → 50, and 20 → 50 when the signing hold is stale ({@link isSigningHoldStale}). */
  | { type: 'expire' }
  /**
   * DELETE: 5/10/20 → 60; on an end status the status stays. Either way the sensitive data goes at once and the
   * documents and receipt `graceMinutes` later (default 0: cleaned at once), by a `clean` event.
   */
  | { type: 'cancel'; reason?: string; graceMinutes?: number }
  /** Retention cleaning of an ended transaction: status unchanged, data deleted. */
  | { type: 'clean' };

/** The transitions (docs/design/transactions.md#transitions) as a table: which statuses each event may leave from. */
const TRANSITIONS: Readonly<Record<TransactionEvent['type'], readonly TransactionStatusCode[]>> = {
  start: [TransactionStatus.WaitingForDocument],
  fail: [TransactionStatus.WaitingForDocument, TransactionStatus.WaitingForSigner, TransactionStatus.InProgress],
  sign: [TransactionStatus.WaitingForSigner],
  reject: [TransactionStatus.WaitingForSigner],
  complete: [TransactionStatus.InProgress],
  hold: [TransactionStatus.WaitingForSigner],
  release: [TransactionStatus.InProgress],
  expire: [TransactionStatus.WaitingForDocument, TransactionStatus.WaitingForSigner, TransactionStatus.InProgress],
  cancel: Object.values(TransactionStatus),
  clean: Object.values(TransactionStatus).filter(isEndStatus),
};

/**
 * Applies `event` at `now` and returns the new transaction.
 *
 * @throws DomainError `TRANSACTION_CLEANED` on a cleaned transaction; `INVALID_TRANSITION` (or the more specific
 *   `TRANSACTION_ALREADY_STARTED`, `TRANSACTION_ENDED`, `TRANSACTION_NOT_STARTED`, `NO_FILES`, `SIGNER_NOT_FOUND`,
 *   `SIGNER_ALREADY_SIGNED`, `SIGNER_ALREADY_REJECTED`, `SIGNER_NOT_AT_TURN`) when the event is not allowed now.
 * @example
 * const started = transition(tx, { type: 'start' }, new Date('2026-11-21T10:00:00Z'));
 */
export function transition(tx: Transaction, event: TransactionEvent, now: Date): Transaction {
  if (tx.cleanedAt !== undefined) {
    throw new DomainError('TRANSACTION_CLEANED', `Transaction ${tx.Id} was cleaned at ${tx.cleanedAt}; its data is gone.`);
  }
  // A signer who is done is told so before anything about the transaction's status (the more specific refusal).
  if (event.type === 'sign' || event.type === 'reject' || event.type === 'hold') assertSignerNotDone(tx, event.signerId);
  const allowed = TRANSITIONS[event.type];
  if (!allowed.includes(tx.Status)) throw refusal(tx, event);
  const at = formatTime(now);
  const base = { ...tx, ModifiedDateTime: at };
  switch (event.type) {
    case 'start': {
      if (tx.Files.length === 0 || tx.Files.some((file) => file.Original === undefined)) {
        const missing = tx.Files.filter((file) => file.Original === undefined).map((file) => file.FileId);
        throw new DomainError(
          'NO_FILES',
          missing.length > 0
            ? `File ${missing.join(', ')} has metadata but no PDF: upload the PDF before starting.`
            : 'The transaction has no files: upload at least one PDF before starting.',
        );
      }
      return { ...base, Status: tx.Signers.length > 0 ? TransactionStatus.WaitingForSigner : TransactionStatus.InProgress, StartedDateTime: at };
    }
    case 'fail':
      return { ...base, Status: TransactionStatus.Failed, EndedDateTime: at, FailureReason: event.reason };
    case 'sign': {
      const signer = signerAtTurn(tx, event.signerId);
      const signers = tx.Signers.map((s) =>
        s.Id === signer.Id ? { ...s, SignedDateTime: at, ModifiedDateTime: at, NextReminderDateTime: undefined } : s,
      ).map(dropUndefined);
      const remaining = signers.some((s) => s.SignedDateTime === undefined);
      return { ...base, Signers: signers, Status: remaining ? TransactionStatus.WaitingForSigner : TransactionStatus.InProgress };
    }
    case 'reject': {
      const signer = signerAtTurn(tx, event.signerId);
      const signers = tx.Signers.map((s) =>
        s.Id === signer.Id
          ? dropUndefined({ ...s, RejectDateTime: at, RejectReason: event.reason, ModifiedDateTime: at, NextReminderDateTime: undefined })
          : s,
      );
      return { ...base, Signers: signers, Status: TransactionStatus.Rejected, EndedDateTime: at };
    }
    case 'complete':
      if (signingHoldOf(tx) !== undefined) {
        throw new DomainError('INVALID_TRANSITION', `Transaction ${tx.Id} is waiting for a signature to be applied: it cannot complete before that.`);
      }
      return { ...base, Status: TransactionStatus.Signed, EndedDateTime: at };
    case 'hold': {
      const signer = signerAtTurn(tx, event.signerId);
      return { ...withoutSigningHold(base), Status: TransactionStatus.InProgress, Signers: base.Signers.map((s) => (s.Id === signer.Id ? { ...s, SignSession: { ...(s.SignSession ?? {}), signingSince: at } } : s)) };
    }
    case 'release':
      if (signingHoldOf(tx) === undefined) {
        throw new DomainError('INVALID_TRANSITION', `Transaction ${tx.Id} at status 20 has no signing hold to release.`);
      }
      return { ...withoutSigningHold(base), Status: TransactionStatus.WaitingForSigner };
    case 'expire':
      if (tx.Status === TransactionStatus.InProgress && !isSigningHoldStale(tx, now)) {
        throw new DomainError('INVALID_TRANSITION', `Transaction ${tx.Id} is being processed (status 20): it expires only once a signing hold has gone stale.`);
      }
      return { ...withoutSigningHold(base), Status: TransactionStatus.Expired, EndedDateTime: at };
    case 'cancel': {
      const ended = isEndStatus(tx.Status);
      const cancelled: Transaction = {
        ...base,
        Status: ended ? tx.Status : TransactionStatus.Cancelled,
        EndedDateTime: tx.EndedDateTime ?? at,
        // A second DELETE (within the grace period) keeps when and why the first one cancelled.
        CanceledDateTime: tx.CanceledDateTime ?? at,
      };
      if (tx.CanceledDateTime !== undefined) {
        if (tx.CancelationReason !== undefined) cancelled.CancelationReason = tx.CancelationReason;
      } else if (event.reason !== undefined) cancelled.CancelationReason = event.reason;
      else delete cancelled.CancelationReason;
      const graceMinutes = event.graceMinutes ?? 0;
      if (graceMinutes <= 0) return cleanTransaction(cancelled, now);
      // A second DELETE does not extend the grace period of the first.
      cancelled.CleanDueDateTime = tx.CleanDueDateTime ?? formatTime(new Date(now.getTime() + graceMinutes * 60_000));
      return deleteSensitiveData(cancelled);
    }
    case 'clean':
      return cleanTransaction(base, now);
  }
}

/**
 * How long a signing hold may keep a transaction at 20 before it counts as left by a process that died while signing
 * (20 means the service is processing, docs/design/transactions.md#signing-hold): then the signer may sign again and
 * the timers release it.
 */
export const SIGNING_HOLD_STALE_MS = 5 * 60_000;

/** The signer whose signature is being applied (status 20 while signing), and since when; undefined without one. */
export function signingHoldOf(tx: Transaction): { signerId: string; since: string } | undefined {
  if (tx.Status !== TransactionStatus.InProgress) return undefined;
  for (const signer of tx.Signers) {
    const since = signer.SignSession?.signingSince;
    if (typeof since === 'string') return { signerId: signer.Id, since };
  }
  return undefined;
}

/** When the signing hold of `tx` goes stale ({@link SIGNING_HOLD_STALE_MS} after it was taken); undefined without one. */
export function signingHoldStaleAt(tx: Transaction): string | undefined {
  const hold = signingHoldOf(tx);
  return hold === undefined ? undefined : formatTime(new Date(Date.parse(hold.since) + SIGNING_HOLD_STALE_MS));
}

/** True when `tx` is at 20 under a signing hold that has gone stale at `now`. */
export function isSigningHoldStale(tx: Transaction, now: Date): boolean {
  const staleAt = signingHoldStaleAt(tx);
  return staleAt !== undefined && now.getTime() >= Date.parse(staleAt);
}

function withoutSigningHold(tx: Transaction): Transaction {
  return {
    ...tx,
    Signers: tx.Signers.map((s) => {
      if (s.SignSession === undefined || !('signingSince' in s.SignSession)) return s;
      const { signingSince: _since, ...rest } = s.SignSession;
      return { ...s, SignSession: rest };
    }),
  };
}

function refusal(tx: Transaction, event: TransactionEvent): DomainError {
  if (event.type === 'start') return new DomainError('TRANSACTION_ALREADY_STARTED', 'The transaction has already been started.');
  if (isEndStatus(tx.Status)) {
    return new DomainError('TRANSACTION_ENDED', `Transaction ${tx.Id} has ended with status ${tx.Status}; ${event.type} is not possible.`);
  }
  if (tx.Status === TransactionStatus.WaitingForDocument) {
    return new DomainError('TRANSACTION_NOT_STARTED', `Transaction ${tx.Id} has not been started: ${event.type} is not possible yet.`);
  }
  return new DomainError('INVALID_TRANSITION', `Transaction ${tx.Id} at status ${tx.Status} cannot ${event.type}.`);
}

/**
 * Codes of the rules of who may sign (docs/design/transactions.md#signing-order). The domain decides them, for the
 * state machine and for the signer use cases alike; the service words them for a signer.
 */
export type SignerRefusalCode =
  | 'SIGNER_ALREADY_SIGNED'
  | 'SIGNER_ALREADY_REJECTED'
  | 'TRANSACTION_NOT_STARTED'
  | 'TRANSACTION_ENDED'
  | 'SIGNER_NOT_AT_TURN';

/** `SIGNER_ALREADY_SIGNED` / `SIGNER_ALREADY_REJECTED` when `signer` is done; undefined while they still have to act. */
function signerDoneRefusal(signer: Signer): 'SIGNER_ALREADY_SIGNED' | 'SIGNER_ALREADY_REJECTED' | undefined {
  if (signer.SignedDateTime !== undefined) return 'SIGNER_ALREADY_SIGNED';
  if (signer.RejectDateTime !== undefined) return 'SIGNER_ALREADY_REJECTED';
  return undefined;
}

/**
 * Why `signer` cannot take a step of their signing journey now (verify, sign, reject), or undefined when the
 * transaction waits for signers and this one is not done. A transaction at 20 (a signature being applied) is not
 * refused here: whether its hold is stale is the service's question. The signing order is {@link signerTurnRefusal}.
 */
export function signerStepRefusal(tx: Transaction, signer: Signer): SignerRefusalCode | undefined {
  const done = signerDoneRefusal(signer);
  if (done !== undefined) return done;
  if (tx.Status === TransactionStatus.WaitingForDocument) return 'TRANSACTION_NOT_STARTED';
  if (isEndStatus(tx.Status)) return 'TRANSACTION_ENDED';
  return undefined;
}

/**
 * Why a signer cannot see the documents now, or undefined when they can: not before the transaction is started,
 * and not once it has ended other than signed (a signed transaction's documents stay downloadable until cleaned).
 */
export function signerDocumentsRefusal(tx: Transaction): 'TRANSACTION_NOT_STARTED' | 'TRANSACTION_ENDED' | undefined {
  if (tx.Status === TransactionStatus.WaitingForDocument) return 'TRANSACTION_NOT_STARTED';
  if (isEndStatus(tx.Status) && tx.Status !== TransactionStatus.Signed) return 'TRANSACTION_ENDED';
  return undefined;
}

/** The signers before `signer` that have not signed yet: whom the signer waits for (empty at their turn). */
export function waitingFor(tx: Transaction, signer: Signer): Signer[] {
  const index = tx.Signers.findIndex((s) => s.Id === signer.Id);
  return tx.Signers.slice(0, Math.max(0, index)).filter((s) => s.SignedDateTime === undefined);
}

/** `SIGNER_NOT_AT_TURN` while signers before `signer` have not signed (signers sign in the order of `Signers`). */
export function signerTurnRefusal(tx: Transaction, signer: Signer): 'SIGNER_NOT_AT_TURN' | undefined {
  return waitingFor(tx, signer).length > 0 ? 'SIGNER_NOT_AT_TURN' : undefined;
}

function findSigner(tx: Transaction, signerId: string): Signer {
  const signer = tx.Signers.find((s) => s.Id === signerId);
  if (signer === undefined) throw new DomainError('SIGNER_NOT_FOUND', `Signer ${signerId} is not part of transaction ${tx.Id}.`);
  return signer;
}

function assertSignerNotDone(tx: Transaction, signerId: string): void {
  const signer = findSigner(tx, signerId);
  const done = signerDoneRefusal(signer);
  if (done !== undefined) {
    throw new DomainError(done, `Signer ${signer.Id} has already ${done === 'SIGNER_ALREADY_SIGNED' ? 'signed' : 'rejected'}.`);
  }
}

/** The signer whose turn it is: the first that has neither signed nor rejected (signers sign in order). */
export function signerAtTurn(tx: Transaction, signerId?: string): Signer {
  if (signerId !== undefined) assertSignerNotDone(tx, signerId);
  const turn = tx.Signers.find((s) => signerDoneRefusal(s) === undefined);
  if (turn === undefined) throw new DomainError('INVALID_TRANSITION', `Transaction ${tx.Id} has no signer left to sign.`);
  if (signerId !== undefined && signerId !== turn.Id) {
    const signer = findSigner(tx, signerId);
    if (signerTurnRefusal(tx, signer) !== undefined) {
      throw new DomainError('SIGNER_NOT_AT_TURN', `It is not signer ${signer.Id}'s turn: signer ${turn.Id} signs first.`);
    }
  }
  return turn;
}

/** Verification fields that identify a person or hold a secret; deleted when the transaction is cleaned (§8). */
const SENSITIVE_VERIFICATION_FIELDS = ['Bsn', 'Number', 'Iban', 'PhoneNumber', 'Image', 'Code', 'DateOfBirth', 'AccountHolderDateOfBirth'];

/**
 * Deletes what cleaning deletes (docs/design/transactions.md#cleaning): document and receipt references, metadata and
 * placements, sign tokens, BSN, IBAN, mobile numbers, scribble images and codes. Keeps ids, statuses, dates, references
 * and the signer ids, which the partial (410) view shows. The blobs themselves are deleted by the store once
 * unreferenced.
 */
function cleanTransaction(tx: Transaction, now: Date): Transaction {
  const at = formatTime(now);
  const scrubbed = deleteSensitiveData(tx);
  const signers = scrubbed.Signers.map((signer) => {
    const { SignToken: _token, ...kept } = signer;
    return kept;
  });
  const files = tx.Files.map((file) => dropUndefined({ FileId: file.FileId, DisplayName: file.DisplayName }));
  const { Receipt: _receipt, ReceiptTranslations: _translations, CleanDueDateTime: _due, ...rest } = scrubbed;
  return { ...rest, Files: files, Signers: signers, cleanedAt: at };
}

/**
 * Deletes the sensitive data at once (docs/design/transactions.md#cancellation) (BSN, IBAN, mobile numbers, scribble
 * images and codes, the signing sessions) and keeps the documents, the receipt and the sign tokens, which a DELETE
 * leaves for its grace period.
 */
function deleteSensitiveData(tx: Transaction): Transaction {
  const signers = tx.Signers.map((signer) => {
    const { Mobile: _mobile, Iban: _iban, BSN: _bsn, NextReminderDateTime: _next, SignSession: _session, ...kept } = signer;
    return {
      ...kept,
      Verifications: signer.Verifications.map((v) => stripFields(v, SENSITIVE_VERIFICATION_FIELDS)),
      ...(signer.Authentications === undefined
        ? {}
        : { Authentications: signer.Authentications.map((a) => stripFields(a, SENSITIVE_VERIFICATION_FIELDS)) }),
    };
  });
  return { ...tx, Signers: signers };
}

function stripFields<T extends { [field: string]: JsonValue }>(value: T, fields: readonly string[]): T {
  const copy = { ...value };
  for (const field of fields) delete copy[field];
  return copy;
}

function dropUndefined<T extends object>(value: T): T {
  const copy = { ...value } as Record<string, unknown>;
  for (const key of Object.keys(copy)) if (copy[key] === undefined) delete copy[key];
  return copy as T;
}

/**
 * What a document's preparation depends on: the uploaded PDF, the metadata and the transaction's signers (who get
 * default signature fields). Equal keys, equal preparation.
 */
export function preparationKey(file: StoredFile, signerIds: readonly string[]): string | undefined {
  if (file.Original === undefined) return undefined;
  return `${file.Original.sha256}/${file.MetadataBlob?.sha256 ?? '-'}/${signerIds.join(',')}`;
}

/** The blobs a transaction references (original PDFs, metadata JSON, current PDFs, the receipt). */
export function referencedBlobs(tx: Transaction): string[] {
  const hashes = new Set<string>();
  for (const file of tx.Files) {
    if (file.Original) hashes.add(file.Original.sha256);
    if (file.MetadataBlob) hashes.add(file.MetadataBlob.sha256);
    if (file.Current) hashes.add(file.Current.sha256);
  }
  if (tx.Receipt) hashes.add(tx.Receipt.sha256);
  for (const translation of Object.values(tx.ReceiptTranslations ?? {})) hashes.add(translation.sha256);
  return [...hashes];
}

/**
 * The receipt for a reader of `language` (a signer's or receiver's, else the transaction's): the translation built in
 * that language, else the transaction's own; with the language it is written in. Undefined before it is built.
 */
export function receiptFor(tx: Transaction, language: Language | undefined): { readonly blob: BlobRef; readonly language: Language } | undefined {
  if (tx.Receipt === undefined) return undefined;
  if (language !== undefined && language !== tx.Language) {
    const translated = tx.ReceiptTranslations?.[language];
    if (translated !== undefined) return { blob: translated, language };
  }
  return { blob: tx.Receipt, language: tx.Language };
}

/** The languages other than the transaction's that its signers read: the receipt is built in each of them too. */
export function receiptTranslationLanguages(tx: Transaction): Language[] {
  const languages = tx.Signers.map((s) => s.Language).filter((l): l is Language => l !== undefined && l !== tx.Language);
  return [...new Set(languages)];
}

/**
 * Bytes of the transaction's documents that count against its account's storage quota: the uploads (original PDFs,
 * metadata JSON) and what the service wrote from them (the prepared, signed and sealed PDFs, which can be far larger
 * than the upload); 0 once the transaction is cleaned. The stores keep it beside the transaction so the quota check
 * is one sum.
 */
export function uploadedBytes(tx: Transaction): number {
  if (tx.cleanedAt !== undefined) return 0;
  let bytes = 0;
  for (const file of tx.Files) {
    bytes += (file.Original?.size ?? 0) + (file.MetadataBlob?.size ?? 0);
    if (file.Current !== undefined && file.Current.sha256 !== file.Original?.sha256) bytes += file.Current.size;
  }
  return bytes;
}

/**
 * Adds or replaces a file (PUT file). Only at status 5 (docs/design/files.md#upload-kinds).
 *
 * @throws DomainError `TRANSACTION_ALREADY_STARTED` ("The transaction has already been started.") at any other status.
 */
export function putFile(tx: Transaction, file: StoredFile, now: Date): Transaction {
  if (tx.cleanedAt !== undefined) {
    throw new DomainError('TRANSACTION_CLEANED', `Transaction ${tx.Id} was cleaned at ${tx.cleanedAt}; its data is gone.`);
  }
  if (tx.Status !== TransactionStatus.WaitingForDocument) throw new DomainError('TRANSACTION_ALREADY_STARTED', 'The transaction has already been started.');
  const at = formatTime(now);
  const exists = tx.Files.some((f) => f.FileId === file.FileId);
  const files = exists ? tx.Files.map((f) => (f.FileId === file.FileId ? file : f)) : [...tx.Files, file];
  return { ...tx, Files: files, ModifiedDateTime: at };
}

/** The file with `fileId`, or undefined. */
export function findFile(tx: Transaction, fileId: string): StoredFile | undefined {
  return tx.Files.find((f) => f.FileId === fileId);
}

/**
 * Replaces the file `fileId` by `update(file)` at any status before the end (the service records the prepared and
 * signed PDFs this way).
 *
 * @throws DomainError `FILE_NOT_FOUND`, `TRANSACTION_CLEANED`.
 */
export function updateFile(tx: Transaction, fileId: string, update: (file: StoredFile) => StoredFile, now: Date): Transaction {
  if (tx.cleanedAt !== undefined) {
    throw new DomainError('TRANSACTION_CLEANED', `Transaction ${tx.Id} was cleaned at ${tx.cleanedAt}; its data is gone.`);
  }
  const file = findFile(tx, fileId);
  if (file === undefined) throw new DomainError('FILE_NOT_FOUND', `File ${fileId} is not part of transaction ${tx.Id}.`);
  return { ...tx, Files: tx.Files.map((f) => (f.FileId === fileId ? update(f) : f)), ModifiedDateTime: formatTime(now) };
}

/**
 * Appends an activity to the signer or receiver `personId` (receivers only get 301 and 999,
 * docs/design/transactions.md#activities).
 *
 * @throws DomainError `SIGNER_NOT_FOUND` / `RECEIVER_NOT_FOUND`, `TRANSACTION_CLEANED`, `INVALID_TRANSITION` for a
 *   receiver code other than 301/999.
 */
export function recordActivity(
  tx: Transaction,
  person: { signerId: string } | { receiverId: string },
  activity: { id: string; code: ActivityCodeNumber; info?: string },
  now: Date,
): Transaction {
  if (tx.cleanedAt !== undefined) {
    throw new DomainError('TRANSACTION_CLEANED', `Transaction ${tx.Id} was cleaned at ${tx.cleanedAt}; its data is gone.`);
  }
  const at = formatTime(now);
  const entry: Activity = { Id: activity.id, Code: activity.code, Activity: ACTIVITY_NAMES[activity.code], CreatedDateTime: at };
  if (activity.info !== undefined) entry.Info = activity.info;
  if ('signerId' in person) {
    if (!tx.Signers.some((s) => s.Id === person.signerId)) {
      throw new DomainError('SIGNER_NOT_FOUND', `Signer ${person.signerId} is not part of transaction ${tx.Id}.`);
    }
    const signers = tx.Signers.map((s) =>
      s.Id === person.signerId ? { ...s, Activities: [...s.Activities, entry], ModifiedDateTime: at } : s,
    );
    return { ...tx, Signers: signers, ModifiedDateTime: at };
  }
  if (!tx.Receivers.some((r) => r.Id === person.receiverId)) {
    throw new DomainError('RECEIVER_NOT_FOUND', `Receiver ${person.receiverId} is not part of transaction ${tx.Id}.`);
  }
  if (activity.code !== ActivityCode.SignedDocumentSent && activity.code !== ActivityCode.Failed) {
    throw new DomainError('INVALID_TRANSITION', `Receivers only get activities 301 and 999, not ${activity.code}.`);
  }
  const receivers = tx.Receivers.map((r) =>
    r.Id === person.receiverId ? { ...r, Activities: [...r.Activities, entry], ModifiedDateTime: at } : r,
  );
  return { ...tx, Receivers: receivers, ModifiedDateTime: at };
}
