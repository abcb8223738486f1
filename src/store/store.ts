/**
 * The storage contract of the transaction service: accounts, transactions (as whole aggregates
 * with a version for optimistic concurrency), the audit hash chain, the outbox of postbacks/mails, settings and a
 * content-addressed blob store. Every method is async and nothing here is SQLite-specific, so a PostgreSQL
 * implementation can follow without changing any caller; `test/store/store-suite.ts` is the behaviour both must pass.
 */
import type { AuditEntry, AuditEventInput } from '../receipt/audit-log.js';
import type { JsonValue, Transaction } from '../domain/transaction.js';
import type { TimerKind } from '../domain/transaction-timers.js';
import type { Account, AccountCredential } from '../domain/account.js';
import { createHash } from 'node:crypto';
import { ParaphError } from '../errors.js';

/** The SHA-256 (lowercase hex) of a SignUrl token, as {@link Store.findSignerByTokenHash} looks it up. */
export function hashSignToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The account of the store's contract lives in the domain (src/domain/account.ts); named here for the store's users. */
export type { Account } from '../domain/account.js';

/** One admin action (docs/design/accounts.md#audit): who did what to which account, when; never a secret. */
export interface AdminAuditInput {
  readonly at: Date;
  /** `admin` (the admin API), `cli` (the command line), `bootstrap` (the start from the environment). */
  readonly actor: string;
  /** E.g. `account.created`, `credential.rotated`. */
  readonly action: string;
  readonly accountId?: string;
  readonly credentialId?: string;
  readonly data?: JsonValue;
}

/** An admin audit entry as stored, numbered in the order it was written. */
export interface AdminAuditEntry extends AdminAuditInput {
  readonly id: number;
}

/** An audit entry to append inside {@link Store.commit}; the store chains it (R's `appendAuditEntry`). */
export type AuditEntryInput = AuditEventInput;

/** What an outbox row delivers. */
export type OutboxKind = 'postback' | 'mail' | 'timer';

/** An outbox row to enqueue inside {@link Store.commit}. */
export interface OutboxInput {
  kind: OutboxKind;
  payload: JsonValue;
  /** Earliest delivery time; default: the commit's transaction `ModifiedDateTime`. */
  dueAt?: Date;
  /**
   * Rows with the same key are delivered one at a time, in enqueue order (postbacks to one URL,
   * docs/design/events.md#ordering). A row is only claimable when every earlier row of its key is done or failed.
   */
  orderKey?: string;
}

/** An outbox row as claimed by a worker. */
export interface OutboxMessage {
  id: number;
  transactionId: string;
  kind: OutboxKind;
  payload: JsonValue;
  orderKey?: string;
  dueAt: Date;
  /** Attempts so far, including the current claim. */
  attempts: number;
  lastError?: string;
  /** When the row was first due (retries give up a fixed time after this, docs/design/events.md#retries). */
  firstDueAt: Date;
}

/** An attempt and what follows from it; `retryAt` is required when the outcome is `retry`. */
export interface OutboxSettlement {
  attempt: OutboxAttempt;
  retryAt?: Date;
}

/** One delivery attempt of an outbox row ("Every attempt is recorded", docs/design/events.md#outbox). */
export interface OutboxAttempt {
  outboxId: number;
  /** 1-based attempt number. */
  attempt: number;
  at: Date;
  outcome: 'delivered' | 'retry' | 'failed';
  /** HTTP status of a postback, SMTP reply code of a mail, when there was one. */
  responseCode?: number;
  /** The error or the server's reply. */
  detail?: string;
}

/** One atomic unit of work. */
export interface TransactionChange {
  /** The new state. Its `version` is ignored: the store writes `expectedVersion + 1`. */
  transaction: Transaction;
  /** 0 inserts a new transaction (ConcurrencyError if the Id exists); otherwise compare-and-set on the version. */
  expectedVersion: number;
  /** Appended to the transaction's audit chain in order. Times must not run backwards. */
  audit?: readonly AuditEntryInput[];
  /** Enqueued in order. */
  outbox?: readonly OutboxInput[];
  /** Deletes the transaction's audit entries (cleaning removes audit details, docs/design/transactions.md#cleaning). */
  purgeAudit?: boolean;
}

/** Limits of {@link BlobStore.write}. Digests are lowercase hex. */
export interface BlobWriteOptions {
  expectSha256?: string;
  expectSha512?: string;
  /** Larger input fails with `BLOB_TOO_LARGE` as soon as the limit is passed. */
  maxBytes?: number;
}

/** A stored blob. */
export interface BlobInfo {
  sha256: string;
  sha512: string;
  size: number;
}

/**
 * Content-addressed blobs (PDFs, metadata JSON, receipts). `write` digests while streaming into a temporary file,
 * makes it durable and renames it into place; when it fails (digest mismatch, too large, stream error) nothing is
 * left behind. A blob no transaction references may be removed by {@link Store.collectGarbage}.
 */
export interface BlobStore {
  write(source: AsyncIterable<Uint8Array> | Uint8Array, options?: BlobWriteOptions): Promise<BlobInfo>;
  /** @throws StoreError `BLOB_NOT_FOUND`. */
  read(sha256: string): Promise<Uint8Array>;
  exists(sha256: string): Promise<boolean>;
  /** Deletes unconditionally (no error when absent). Prefer {@link Store.collectGarbage}. */
  delete(sha256: string): Promise<void>;
}

/** A transaction whose derived timer (expiry, reminder, cleaning, stale signing hold: `nextTimerAt`) is due. */
export interface DueTimer {
  transactionId: string;
  kind: TimerKind;
  at: Date;
}

/** The upload a slot of {@link UploadSlots} guards: one kind (PDF or metadata) of one file of one transaction. */
export interface UploadSlot {
  readonly transactionId: string;
  readonly fileId: string;
  readonly kind: 'pdf' | 'metadata';
}

/**
 * The state of the 409 re-upload guard (docs/design/files.md#replace-guard) kept in the store, for a store that many
 * processes share: an upload claims its slot before it is received and releases it when it ends.
 */
export interface UploadSlots {
  /**
   * Takes the slot for the upload `claim` at `nowMs`, unless another upload holds it (for at most `leaseMs`: a
   * process that died while receiving does not block the slot for ever) or one was accepted less than `windowMs`
   * before. Returns whether it was taken.
   */
  claim(slot: UploadSlot, claim: string, nowMs: number, windowMs: number, leaseMs: number): Promise<boolean>;
  /** Extends the lease of the upload `claim` still holding the slot to `nowMs + leaseMs`; false when it no longer holds it. */
  renew(slot: UploadSlot, claim: string, nowMs: number, leaseMs: number): Promise<boolean>;
  /** Ends the upload `claim`; `accepted` records `atMs` as the slot's last accepted upload. */
  release(slot: UploadSlot, claim: string, accepted: boolean, atMs: number): Promise<void>;
}

/** What {@link RateBuckets.take} leased: whole tokens taken, and the fraction of tokens left in the shared bucket. */
export interface RateLease {
  readonly taken: number;
  readonly left: number;
}

/**
 * The per-account request rate quota kept in the store, for a store that many processes share: one token
 * bucket per account, refilled continuously by the database's clock (so processes with skewed clocks agree).
 */
export interface RateBuckets {
  /**
   * Refills the account's bucket (capacity and refill `perMinute` tokens a minute; a new bucket starts full) and
   * takes up to `want` whole tokens, atomically. `taken` is 0 when less than one token is left.
   */
  take(accountId: string, want: number, perMinute: number): Promise<RateLease>;
}

/** An account and the user token and app key of it that authenticated a request (their Id and stored hash). */
export interface CredentialMatch {
  readonly account: Readonly<Account>;
  readonly userToken: { readonly id: string; readonly hash: string };
  readonly appKey: { readonly id: string; readonly hash: string };
}

/** The store. All methods are async; implementations are safe for concurrent callers in one process. */
export interface Store {
  /**
   * The account that has a user token hashed as one of `userTokenHashes` and an app key hashed as one of
   * `appKeyHashes`, both valid at `at` (not revoked, within their overlap once rotated), with the two credentials
   * that matched: one indexed query, read afresh on every call so a revocation holds at once. Disabled accounts are
   * returned too (the caller refuses them).
   */
  findAccountByCredentials(userTokenHashes: readonly string[], appKeyHashes: readonly string[], at: Date): Promise<CredentialMatch | undefined>;
  getAccount(id: string): Promise<Account | undefined>;
  /**
   * Adds the account and, when it carries `UserTokenHash` and `AppKeyHash`, its first two credentials.
   * @throws StoreError `ACCOUNT_EXISTS` when the Id or the key pair is taken.
   */
  createAccount(account: Account): Promise<void>;
  /** Replaces what is stored of the account (name, flags, branding, limits, secrets). @throws StoreError `ACCOUNT_NOT_FOUND`. */
  updateAccount(account: Account): Promise<void>;
  /** @throws StoreError `ACCOUNT_NOT_FOUND` when its account does not exist, `CREDENTIAL_EXISTS` when its Id is taken. */
  addCredential(credential: AccountCredential): Promise<void>;
  /**
   * Marks an active credential rotated at `at` (valid until `validUntil`, replaced by `replacement`) and adds
   * `replacement`, in one write. Returns false, changing nothing, when it is revoked or rotated already (or absent).
   */
  rotateCredential(id: string, at: Date, validUntil: Date, replacement: AccountCredential): Promise<boolean>;
  /** Revokes the credential at `at` (a revoked one keeps its first revocation time). Returns false when it does not exist. */
  revokeCredential(id: string, at: Date): Promise<boolean>;
  /** Replaces the credential's hash `from` with `to` (no change when its hash is no longer `from`). */
  rehashCredential(id: string, from: string, to: string): Promise<void>;
  /** The account's credentials, oldest first. */
  listCredentials(accountId: string): Promise<AccountCredential[]>;
  /** The credentials (of any account, kind and state) whose hash is one of `hashes`. */
  findCredentialsByHash(hashes: readonly string[]): Promise<AccountCredential[]>;
  /** Appends to the admin audit log. */
  appendAdminAudit(entry: AdminAuditInput): Promise<AdminAuditEntry>;
  /** Admin audit entries after `afterId` (default: from the first), oldest first, at most `limit`; of one account when given. */
  listAdminAudit(options: { readonly afterId?: number; readonly limit: number; readonly accountId?: string }): Promise<AdminAuditEntry[]>;
  countAccounts(): Promise<number>;
  /** Every account, oldest first (the first is the bootstrap account of a zero-config start). */
  listAccounts(): Promise<Account[]>;
  /**
   * Replaces an account's postback secret (rotation, docs/design/events.md#checksum). @throws StoreError
   * `ACCOUNT_NOT_FOUND`.
   */
  setPostbackSecret(accountId: string, secret: string): Promise<void>;
  /** Sets (or, with `undefined`, removes) the address an account's sender notices go to. @throws StoreError `ACCOUNT_NOT_FOUND`. */
  setNotificationEmail(accountId: string, email: string | undefined): Promise<void>;

  getTransaction(id: string): Promise<Transaction | undefined>;
  /** Looks a signer up by the SHA-256 (hex) of their SignUrl token. */
  findSignerByTokenHash(tokenHash: string): Promise<{ transaction: Transaction; signerId: string } | undefined>;
  /**
   * Writes the change atomically: state, audit entries, outbox rows and blob references — all or nothing.
   * Returns the transaction as stored (with the new `version`).
   *
   * @throws ConcurrencyError when the stored version is not `expectedVersion` (or the Id exists on insert).
   * @throws StoreError `BLOB_NOT_FOUND` when the transaction references a blob that was never written.
   */
  commit(change: TransactionChange): Promise<Transaction>;
  /** The transaction's audit hash chain, in order. */
  listAuditEntries(transactionId: string): Promise<AuditEntry[]>;

  /** Timers due at `now` (`retentionDays` for cleaning), earliest first. */
  listDueTimers(now: Date, options: { retentionDays: number; limit?: number }): Promise<DueTimer[]>;

  /**
   * Leases up to `limit` due outbox rows for `leaseMs` (a crashed worker's rows come back when the lease ends) and
   * counts the attempt.
   */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<OutboxMessage[]>;
  /**
   * Records delivery attempts and their consequences in one write: `delivered` marks the row done, `retry` makes it
   * due again at `retryAt`, `failed` gives it up. (One write for a whole round keeps the worker off the disk's
   * fsync rate.)
   */
  settleOutbox(settlements: readonly OutboxSettlement[]): Promise<void>;
  /** The attempts of an outbox row, in order. */
  listAttempts(outboxId: number): Promise<OutboxAttempt[]>;

  getSetting(key: string): Promise<JsonValue | undefined>;
  putSetting(key: string, value: JsonValue): Promise<void>;
  /**
   * Stores `value` unless `key` has a value, and returns the value stored afterwards: the first writer's when several
   * processes add the same key at once (the service keys of a simultaneous first start).
   */
  putSettingIfAbsent(key: string, value: JsonValue): Promise<JsonValue>;

  /**
   * What an operator watches, counted by the database (so every process sharing it reports the same numbers):
   * transactions by status, and pending outbox rows by kind with the oldest one's first due time among those due.
   */
  countOperational(now: Date): Promise<OperationalCounts>;

  /** The database behind it (for `/health`). */
  readonly kind: 'sqlite' | 'postgresql';
  /** Whether the database answers, and its schema version (for `/health`). Never throws. */
  ping(): Promise<StoreHealth>;

  /**
   * Bytes of the uploads (original PDFs and metadata) of the account's transactions that are not cleaned: what
   * its storage quota counts.
   */
  accountStorageBytes(accountId: string): Promise<number>;
  /**
   * Deletes the blob `sha256` at once unless a transaction references it (a rejected upload). Returns
   * whether it was deleted.
   */
  discardBlob(sha256: string): Promise<boolean>;

  /**
   * Deletes blobs that no transaction references and that are older than `olderThan` (a blob being uploaded right
   * now is not referenced yet). Returns the number deleted.
   */
  collectGarbage(olderThan: Date): Promise<number>;

  readonly blobs: BlobStore;
  /**
   * The shared re-upload guard of a store that several processes use (PostgreSQL). Absent in the embedded store,
   * which one process owns: the service then keeps the guard in memory.
   */
  readonly uploadSlots?: UploadSlots;
  /** The shared account rate quota of a store that several processes use (PostgreSQL); absent: kept in memory. */
  readonly rateBuckets?: RateBuckets;
  close(): Promise<void>;
}

/** What {@link Store.countOperational} found. */
export interface OperationalCounts {
  /** Transactions by their `Status` code (cleaned ones included: they keep their end status). */
  readonly transactionsByStatus: ReadonlyMap<number, number>;
  /** Pending outbox rows of each kind that has any; `oldestDueAt`: the first due time of the oldest one due now. */
  readonly outbox: ReadonlyArray<{ readonly kind: OutboxKind; readonly pending: number; readonly oldestDueAt?: Date }>;
}

/** What {@link Store.ping} found. `error` is for the log only: it may name hosts or databases. */
export interface StoreHealth {
  readonly ok: boolean;
  /** The highest applied migration, when the database answered. */
  readonly schemaVersion?: number;
  readonly error?: string;
}

/**
 * A storage failure with a stable code: `DIGEST_MISMATCH` (message exactly "SHA-256 digest mismatch" or
 * "SHA-512 digest mismatch", docs/design/files.md#digest; origin `input`), `BLOB_TOO_LARGE` (origin `input`),
 * `BLOB_NOT_FOUND`, `ACCOUNT_EXISTS`, `STORE_CLOSED`.
 */
export class StoreError extends ParaphError {}

/** The transaction changed since it was read: re-read and retry (optimistic concurrency). */
export class ConcurrencyError extends ParaphError {
  constructor(transactionId: string, expected: number, actual: number | undefined) {
    super(
      'CONCURRENT_MODIFICATION',
      actual === undefined
        ? `Transaction ${transactionId} does not exist (expected version ${expected}).`
        : `Transaction ${transactionId} is at version ${actual}, not ${expected}: it was changed concurrently; re-read and retry.`,
      { origin: 'internal' },
    );
  }
}
