/**
 * The embedded {@link Store}: SQLite (through sqlite-driver.ts: better-sqlite3, or node:sqlite on
 * Node 24+) plus a {@link FileBlobStore} under one data directory (`<dataDir>/paraph.db`, `<dataDir>/blobs/`). Each `commit` is one SQLite transaction holding
 * the new state, its audit entries (chained in R's audit-log format), its outbox rows, its blob references and its
 * sign-token index, so none of them can diverge. Numbered migrations are recorded in `migrations`.
 *
 * Durability: WAL with `synchronous=FULL` by default, so a commit the service has acknowledged survives a power cut,
 * not only a process crash. NORMAL would risk the last commits on power loss; FULL costs one WAL fsync per commit
 * (measured ~6 ms here, ~170 commits/s, against ~0.9 ms with NORMAL), small next to signing a PDF; the option exists
 * for set-ups that accept the risk. Blobs are durable (fsync + rename + directory fsync) before a commit may reference them, and a
 * commit refuses references to blobs that do not exist.
 */
import { commitRows } from './commit-rows.js';
import { readSqlMigrations, type SqlMigration } from './sql-migrations.js';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../receipt/canonical-json.js';
import { type AuditEntry } from '../receipt/audit-log.js';
import { chainStoredAudit } from './audit-chain.js';
import { type JsonValue, type Transaction } from '../domain/transaction.js';
import { AccountReader, openSignTokens, QUALIFIED_SEAL_SEALED_FIELDS, readAccount, sealAccount, SEAL_PURPOSE } from './sealed-secrets.js';
import { FileBlobStore } from './file-blob-store.js';
import type { AccountCredential } from '../domain/account.js';
import {
  adminAuditFromRow,
  credentialFromRow,
  credentialMatchFromRow,
  credentialValues,
  CREDENTIAL_COLUMNS,
  firstCredentials,
  type AdminAuditRow,
  type CredentialMatchRow,
  type CredentialRow,
} from './credential-rows.js';
import { isSqliteConstraintError, openSqliteDatabase, type SqliteDatabase, type SqliteDriverName, type SqliteStatement } from './sqlite-driver.js';
import { isSealed, masterKeyCheck, matchesCheck, type MasterKey } from './master-key.js';
import {
  ConcurrencyError,
  StoreError,
  type Account,
  type AdminAuditEntry,
  type CredentialMatch,
  type AdminAuditInput,
  type AuditEntryInput,
  type DueTimer,
  type OutboxAttempt,
  type OutboxKind,
  type OperationalCounts,
  type OutboxSettlement,
  type OutboxMessage,
  type Store,
  type StoreHealth,
  type TransactionChange,
} from './store.js';

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Directory of the database and the blobs; created when missing. */
  dataDir: string;
  /**
   * `FULL` (default): an acknowledged commit survives a power cut. `NORMAL`: it survives a process crash but the
   * last commits may be lost on power loss or an OS crash; about 7× more commits per second on this machine's disk.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /**
   * Seals the secrets of transactions and accounts (SignUrl tokens, postback secrets) at rest. Without
   * it they are stored in clear, and the migration that seals them waits for the first open with a key.
   */
  masterKey?: MasterKey;
  /** The SQLite driver (default: node:sqlite on Node 24+, better-sqlite3 before). */
  driver?: SqliteDriverName;
}

/**
 * The account with a valid user token and app key among the hashes (as many placeholders as hashes, in each IN list),
 * with the two credentials; `?` after each list is the time (ms) the credentials must still be valid at.
 */
function accountByCredentialsSql(users: number, apps: number): string {
  const list = (n: number) => Array.from({ length: n }, () => '?').join(', ');
  return `SELECT a.id AS account_id, a.data, u.id AS user_id, u.hash AS user_hash, k.id AS app_id, k.hash AS app_hash
  FROM account_credentials u
  JOIN account_credentials k ON k.account_id = u.account_id
  JOIN accounts a ON a.id = u.account_id
  WHERE u.hash IN (${list(users)}) AND u.kind = 'user-token' AND u.revoked_at IS NULL AND (u.valid_until IS NULL OR u.valid_until > ?)
    AND k.hash IN (${list(apps)}) AND k.kind = 'app-key' AND k.revoked_at IS NULL AND (k.valid_until IS NULL OR k.valid_until > ?)
  LIMIT 1`;
}
const INSERT_CREDENTIAL = `INSERT INTO account_credentials (${CREDENTIAL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const ROTATE_CREDENTIAL =
  'UPDATE account_credentials SET rotated_at = ?, replaced_by = ?, valid_until = ? WHERE id = ? AND rotated_at IS NULL AND revoked_at IS NULL';

/** Purposes bound into the sealed values of the store (master-key.ts). */
const CHECK_SETTING = 'master-key.check';
/** Migrations that rewrite stored JSON with the master key: run only when the store is opened with one. */
const SEAL_MIGRATION = 4;

/** Numbered migrations, applied in order, each once: `sql/sqlite/NNNN_*.sql` (sql-migrations.ts). */
const MIGRATIONS: readonly SqlMigration[] = readSqlMigrations('sqlite');

/**
 * Opens (creating and migrating) the embedded store in `dataDir`.
 *
 * @example
 * const store = await openSqliteStore({ dataDir: './data' });
 * try { await store.getTransaction(id); } finally { await store.close(); }
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteStore> {
  // Only the service's user may read the data: the directory 0700, the database files 0600 (SQLite gives
  // its -wal and -shm files the database file's mode), blobs 0600 (file-blob-store.ts).
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  chmodSync(options.dataDir, 0o700);
  const dbPath = join(options.dataDir, 'paraph.db');
  if (!existsSync(dbPath)) closeSync(openSync(dbPath, 'a', 0o600));
  for (const path of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
  const blobs = await FileBlobStore.open(join(options.dataDir, 'blobs'));
  const db = openSqliteDatabase(dbPath, options.driver);
  let store: SqliteStore;
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
    db.exec('PRAGMA foreign_keys = ON');
    db.exec('PRAGMA busy_timeout = 5000');
    // Deleted content (a token in clear before the sealing migration, a cleaned document's data) is overwritten.
    db.exec('PRAGMA secure_delete = ON');
    store = new SqliteStore(db, blobs, options.masterKey);
    if (options.masterKey !== undefined) store.checkMasterKey();
    migrate(db, store, options.masterKey !== undefined);
    store.checkMasterKey();
  } catch (error) {
    db.close();
    throw error;
  }
  return store;
}

function migrate(db: SqliteDatabase, store: SqliteStore, withKey: boolean): void {
  db.exec('CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM migrations').all() as { version: number }[]).map((r) => r.version));
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    db.immediate(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO migrations (version, applied_at) VALUES (?, ?)').run(migration.version, new Date().toISOString());
    });
  }
  // SignUrl tokens and postback secrets stored in clear by earlier versions are sealed with the master key.
  if (withKey && !applied.has(SEAL_MIGRATION)) {
    db.immediate(() => {
      store.resealAll();
      db.prepare('INSERT INTO migrations (version, applied_at) VALUES (?, ?)').run(SEAL_MIGRATION, new Date().toISOString());
    });
    // The clear texts must not survive in the WAL or in free pages.
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.exec('VACUUM');
  }
}

interface OutboxRow {
  id: number;
  transaction_id: string;
  kind: OutboxKind;
  payload: string;
  order_key: string | null;
  due_at: number;
  first_due_at: number | null;
  attempts: number;
  last_error: string | null;
}

/** The SQLite implementation of {@link Store}. Create it with {@link openSqliteStore}. */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  private closed = false;

  /** @internal use {@link openSqliteStore}. */
  constructor(
    private readonly db: SqliteDatabase,
    readonly blobs: FileBlobStore,
    private readonly masterKey?: MasterKey,
  ) {
    this.accountReader = new AccountReader(masterKey);
  }

  private readonly accountReader: AccountReader;

  /**
   * Refuses a master key other than the one the data directory's secrets were sealed with (and remembers the key
   * on first use).
   *
   * @throws StoreError `MASTER_KEY_MISMATCH`.
   */
  checkMasterKey(): void {
    const key = this.masterKey;
    if (key === undefined) return;
    const hasSettings = (this.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'settings'").get() as { n: number }).n > 0;
    if (!hasSettings) return;
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(CHECK_SETTING) as { value: string } | undefined;
    if (row === undefined) {
      this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(CHECK_SETTING, JSON.stringify(masterKeyCheck(key)));
      return;
    }
    const check = JSON.parse(row.value) as string;
    if (matchesCheck(key, check)) return;
    try {
      key.open(check, 'master-key-check');
    } catch (error) {
      // A wrong key is a configuration mistake the operator fixes: reported as input, not as a crash.
      throw new StoreError('MASTER_KEY_MISMATCH', (error as Error).message);
    }
    throw new StoreError('MASTER_KEY_MISMATCH', 'The master key does not open this data directory\'s secrets.');
  }

  /**
   * Seals every clear secret and re-seals every sealed one under `to` (opening them with this store's key): the
   * sealing migration and the master key rotation. Settings values sealed by their owners (the service keys) are
   * re-sealed with their purpose kept. Runs inside the caller's database transaction.
   */
  resealAll(to: MasterKey | undefined = this.masterKey): void {
    if (to === undefined) return;
    const from = this.masterKey;
    const reseal = (value: string, purpose: string): string => to.seal(isSealed(value) && from ? from.open(value, purpose) : value, purpose);
    const txRows = this.db.prepare('SELECT id, data FROM transactions').all() as { id: string; data: string }[];
    const updateTx = this.db.prepare('UPDATE transactions SET data = ? WHERE id = ?');
    for (const row of txRows) {
      const data = JSON.parse(row.data) as { Signers?: Record<string, unknown>[] };
      for (const signer of data.Signers ?? []) {
        const value = signer.SignTokenSealed ?? signer.SignToken;
        if (typeof value !== 'string') continue;
        delete signer.SignToken;
        signer.SignTokenSealed = reseal(value, SEAL_PURPOSE.signToken);
      }
      updateTx.run(JSON.stringify(data), row.id);
    }
    const accountRows = this.db.prepare('SELECT id, data FROM accounts').all() as { id: string; data: string }[];
    const updateAccount = this.db.prepare('UPDATE accounts SET data = ? WHERE id = ?');
    for (const row of accountRows) {
      const data = JSON.parse(row.data) as Record<string, unknown>;
      let changed = false;
      for (const field of ['PostbackSecret', 'PreviousPostbackSecret'] as const) {
        const value = data[field];
        if (typeof value !== 'string') continue;
        data[field] = reseal(value, SEAL_PURPOSE.postbackSecret);
        changed = true;
      }
      const qualified = data.QualifiedSeal as Record<string, unknown> | undefined;
      for (const [field, purpose] of Object.entries(QUALIFIED_SEAL_SEALED_FIELDS)) {
        const value = qualified?.[field];
        if (qualified === undefined || typeof value !== 'string') continue;
        qualified[field] = reseal(value, purpose);
        changed = true;
      }
      if (changed) updateAccount.run(JSON.stringify(data), row.id);
    }
    const settingRows = this.db.prepare('SELECT key, value FROM settings').all() as { key: string; value: string }[];
    const updateSetting = this.db.prepare('UPDATE settings SET value = ? WHERE key = ?');
    for (const row of settingRows) {
      if (row.key === CHECK_SETTING) {
        updateSetting.run(JSON.stringify(masterKeyCheck(to)), row.key);
        continue;
      }
      const value = JSON.parse(row.value) as JsonValue;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      let changed = false;
      for (const [name, field] of Object.entries(value)) {
        if (!isSealed(field) || from === undefined) continue;
        // Owners seal a settings field with the purpose `setting:<key>.<field>`.
        const purpose = `setting:${row.key}.${name}`;
        value[name] = to.seal(from.open(field, purpose), purpose);
        changed = true;
      }
      if (changed) updateSetting.run(JSON.stringify(value), row.key);
    }
  }

  /**
   * Re-seals every secret under `to` in one database transaction (`paraph rotate-master-key`). The store keeps
   * using its old key object afterwards: close it and open a new one with `to`.
   */
  rotateMasterKey(to: MasterKey): void {
    this.live();
    this.db.immediate(() => this.resealAll(to));
    this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }



  async findAccountByCredentials(userTokenHashes: readonly string[], appKeyHashes: readonly string[], at: Date): Promise<CredentialMatch | undefined> {
    if (userTokenHashes.length === 0 || appKeyHashes.length === 0) return undefined;
    // The statement text depends only on the two list lengths (1 and 1, or 2 and 2 on the legacy fallback), so
    // `sql` prepares it once.
    const row = this.sql(accountByCredentialsSql(userTokenHashes.length, appKeyHashes.length)).get(...userTokenHashes, at.getTime(), ...appKeyHashes, at.getTime()) as
      | CredentialMatchRow
      | undefined;
    return row === undefined ? undefined : credentialMatchFromRow(row, this.accountReader);
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const row = this.sql('SELECT data FROM accounts WHERE id = ?').get(id) as { data: string } | undefined;
    return row === undefined ? undefined : readAccount(row.data, this.masterKey);
  }

  async createAccount(account: Account): Promise<void> {
    const stored = sealAccount(account, this.masterKey);
    const pair = account.UserTokenHash !== undefined && account.AppKeyHash !== undefined ? [account.UserTokenHash, account.AppKeyHash] as const : undefined;
    try {
      this.db.immediate(() => {
        // The legacy key columns are unique as a pair: an account without a first pair fills them with its Id.
        this.sql('INSERT INTO accounts (id, user_token_hash, app_key_hash, data) VALUES (?, ?, ?, ?)')
          .run(account.Id, pair?.[0] ?? `-${account.Id}`, pair?.[1] ?? `-${account.Id}`, JSON.stringify(stored));
        if (pair !== undefined) {
          for (const c of firstCredentials(account.Id, pair[0], pair[1], account.CreatedDateTime)) this.sql(INSERT_CREDENTIAL).run(...credentialValues(c));
        }
      });
    } catch (error) {
      if (isSqliteConstraintError(error)) throw new StoreError('ACCOUNT_EXISTS', `An account with Id ${account.Id} or the same keys exists.`);
      throw error;
    }
  }

  async updateAccount(account: Account): Promise<void> {
    const changed = this.sql('UPDATE accounts SET data = ? WHERE id = ?').run(JSON.stringify(sealAccount(account, this.masterKey)), account.Id);
    if (Number(changed.changes) === 0) throw new StoreError('ACCOUNT_NOT_FOUND', `No account with Id ${account.Id}.`);
  }

  async addCredential(credential: AccountCredential): Promise<void> {
    this.db.immediate(() => this.insertCredential(credential));
  }

  private insertCredential(credential: AccountCredential): void {
    if (this.sql('SELECT 1 FROM accounts WHERE id = ?').get(credential.accountId) === undefined) {
      throw new StoreError('ACCOUNT_NOT_FOUND', `No account with Id ${credential.accountId}.`);
    }
    try {
      this.sql(INSERT_CREDENTIAL).run(...credentialValues(credential));
    } catch (error) {
      if (isSqliteConstraintError(error)) throw new StoreError('CREDENTIAL_EXISTS', `A credential with Id ${credential.id} exists.`, { origin: 'internal' });
      throw error;
    }
  }

  async rotateCredential(id: string, at: Date, validUntil: Date, replacement: AccountCredential): Promise<boolean> {
    return this.db.immediate(() => {
      const changed = this.sql(ROTATE_CREDENTIAL).run(at.getTime(), replacement.id, validUntil.getTime(), id);
      if (Number(changed.changes) === 0) return false;
      this.insertCredential(replacement);
      return true;
    });
  }

  async revokeCredential(id: string, at: Date): Promise<boolean> {
    return Number(this.sql('UPDATE account_credentials SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(at.getTime(), id).changes) > 0;
  }

  async rehashCredential(id: string, from: string, to: string): Promise<void> {
    this.sql('UPDATE account_credentials SET hash = ? WHERE id = ? AND hash = ?').run(to, id, from);
  }

  async listCredentials(accountId: string): Promise<AccountCredential[]> {
    const rows = this.sql(`SELECT ${CREDENTIAL_COLUMNS} FROM account_credentials WHERE account_id = ? ORDER BY created_at, rowid`).all(accountId) as CredentialRow[];
    return rows.map(credentialFromRow);
  }

  async findCredentialsByHash(hashes: readonly string[]): Promise<AccountCredential[]> {
    if (hashes.length === 0) return [];
    // Cached per arity (a request asks with the same number of candidate hashes every time).
    const rows = this.sql(`SELECT ${CREDENTIAL_COLUMNS} FROM account_credentials WHERE hash IN (${hashes.map(() => '?').join(', ')})`).all(...hashes) as CredentialRow[];
    return rows.map(credentialFromRow);
  }

  async appendAdminAudit(entry: AdminAuditInput): Promise<AdminAuditEntry> {
    const row = this.sql('INSERT INTO admin_audit (at, actor, action, account_id, credential_id, data) VALUES (?, ?, ?, ?, ?, ?) RETURNING id').get(
      entry.at.getTime(),
      entry.actor,
      entry.action,
      entry.accountId ?? null,
      entry.credentialId ?? null,
      JSON.stringify(entry.data ?? null),
    ) as { id: number };
    return { ...entry, id: Number(row.id) };
  }

  async listAdminAudit(options: { readonly afterId?: number; readonly limit: number; readonly accountId?: string }): Promise<AdminAuditEntry[]> {
    const rows = (
      options.accountId === undefined
        ? this.sql('SELECT * FROM admin_audit WHERE id > ? ORDER BY id LIMIT ?').all(options.afterId ?? 0, options.limit)
        : this.sql('SELECT * FROM admin_audit WHERE id > ? AND account_id = ? ORDER BY id LIMIT ?').all(options.afterId ?? 0, options.accountId, options.limit)
    ) as AdminAuditRow[];
    return rows.map(adminAuditFromRow);
  }

  async listAccounts(): Promise<Account[]> {
    return (this.sql('SELECT data FROM accounts ORDER BY rowid').all() as { data: string }[]).map((row) => readAccount(row.data, this.masterKey));
  }

  async setPostbackSecret(accountId: string, secret: string): Promise<void> {
    const account = await this.getAccount(accountId);
    if (account === undefined) throw new StoreError('ACCOUNT_NOT_FOUND', `No account with Id ${accountId}.`);
    this.sql('UPDATE accounts SET data = ? WHERE id = ?').run(JSON.stringify(sealAccount({ ...account, PostbackSecret: secret }, this.masterKey)), accountId);
  }

  async setNotificationEmail(accountId: string, email: string | undefined): Promise<void> {
    const account = await this.getAccount(accountId);
    if (account === undefined) throw new StoreError('ACCOUNT_NOT_FOUND', `No account with Id ${accountId}.`);
    const { NotificationEmail: _previous, ...rest } = account;
    const updated = email === undefined ? rest : { ...rest, NotificationEmail: email };
    this.sql('UPDATE accounts SET data = ? WHERE id = ?').run(JSON.stringify(sealAccount(updated, this.masterKey)), accountId);
  }

  async countAccounts(): Promise<number> {
    return (this.sql('SELECT count(*) AS n FROM accounts').get() as { n: number }).n;
  }

  async getTransaction(id: string): Promise<Transaction | undefined> {
    const row = this.sql('SELECT data, version FROM transactions WHERE id = ?').get(id) as
      | { data: string; version: number }
      | undefined;
    return row === undefined ? undefined : { ...openSignTokens(JSON.parse(row.data) as Transaction, this.masterKey), version: row.version };
  }



  async findSignerByTokenHash(tokenHash: string): Promise<{ transaction: Transaction; signerId: string } | undefined> {
    const row = this.sql('SELECT transaction_id, signer_id FROM sign_tokens WHERE token_hash = ?').get(tokenHash) as
      | { transaction_id: string; signer_id: string }
      | undefined;
    if (row === undefined) return undefined;
    const transaction = await this.getTransaction(row.transaction_id);
    return transaction === undefined ? undefined : { transaction, signerId: row.signer_id };
  }

  async commit(change: TransactionChange): Promise<Transaction> {
    const db = this.live();
    const version = change.expectedVersion + 1;
    const stored: Transaction = { ...change.transaction, version };
    const rows = commitRows(stored, change.outbox ?? [], this.masterKey);
    const row = rows.transaction;
    const txId = row.id;
    db.immediate(() => {
      if (change.expectedVersion === 0) {
        const existing = this.sql('SELECT version FROM transactions WHERE id = ?').get(txId) as { version: number } | undefined;
        if (existing !== undefined) throw new ConcurrencyError(txId, 0, existing.version);
        this.sql(
          `INSERT INTO transactions (id, account_id, version, status, data, expire_at, remind_at, ended_at, release_at, storage_bytes)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(txId, row.accountId, row.version, row.status, row.data, row.expireAt, row.remindAt, row.endedAt, row.releaseAt, row.storageBytes);
      } else {
        const result = this.sql(
          `UPDATE transactions SET version = ?, status = ?, data = ?, expire_at = ?, remind_at = ?, ended_at = ?, release_at = ?, storage_bytes = ?
           WHERE id = ? AND version = ?`,
        ).run(row.version, row.status, row.data, row.expireAt, row.remindAt, row.endedAt, row.releaseAt, row.storageBytes, txId, change.expectedVersion);
        if (result.changes === 0) {
          const actual = this.sql('SELECT version FROM transactions WHERE id = ?').get(txId) as { version: number } | undefined;
          throw new ConcurrencyError(txId, change.expectedVersion, actual?.version);
        }
      }
      for (const sha256 of rows.blobs) {
        if (!this.blobs.existsSync(sha256)) {
          throw new StoreError('BLOB_NOT_FOUND', `Transaction ${txId} references blob ${sha256}, which was never stored.`, { origin: 'internal' });
        }
      }
      this.sql('DELETE FROM blob_refs WHERE transaction_id = ?').run(txId);
      const addRef = this.sql('INSERT INTO blob_refs (transaction_id, sha256) VALUES (?, ?)');
      for (const sha256 of rows.blobs) addRef.run(txId, sha256);
      if (rows.signTokens !== undefined) {
        this.sql('DELETE FROM sign_tokens WHERE transaction_id = ?').run(txId);
        const addToken = this.sql('INSERT INTO sign_tokens (token_hash, transaction_id, signer_id) VALUES (?, ?, ?)');
        for (const token of rows.signTokens) addToken.run(token.hash, txId, token.signerId);
      }
      if (change.purgeAudit === true) this.sql('DELETE FROM audit_entries WHERE transaction_id = ?').run(txId);
      this.appendAudit(txId, change.audit ?? []);
      const addOutbox = this.sql(
        'INSERT INTO outbox (transaction_id, kind, payload, order_key, due_at, first_due_at) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const outbox of rows.outbox) addOutbox.run(txId, outbox.kind, outbox.payload, outbox.orderKey, outbox.dueAt, outbox.dueAt);
    });
    return stored;
  }

  // Chains onto the last stored entry with the one chain rule, without loading the whole log.
  private appendAudit(txId: string, inputs: readonly AuditEntryInput[]): void {
    if (inputs.length === 0) return;
    const lastRow = this.sql('SELECT entry FROM audit_entries WHERE transaction_id = ? ORDER BY seq DESC LIMIT 1').get(txId) as { entry: string } | undefined;
    const last = lastRow === undefined ? undefined : (JSON.parse(lastRow.entry) as AuditEntry);
    const insert = this.sql('INSERT INTO audit_entries (transaction_id, seq, entry) VALUES (?, ?, ?)');
    for (const entry of chainStoredAudit(last, inputs)) insert.run(txId, entry.seq, canonicalJson(entry));
  }

  async listAuditEntries(transactionId: string): Promise<AuditEntry[]> {
    const rows = this.sql('SELECT entry FROM audit_entries WHERE transaction_id = ? ORDER BY seq').all(transactionId) as { entry: string }[];
    return rows.map((row) => JSON.parse(row.entry) as AuditEntry);
  }

  async listDueTimers(now: Date, options: { retentionDays: number; limit?: number }): Promise<DueTimer[]> {
    const nowMs = now.getTime();
    const retentionMs = options.retentionDays * 86_400_000;
    const rows = this.sql(
      `SELECT id, 'expire' AS kind, expire_at AS at FROM transactions WHERE expire_at <= @now
       UNION ALL SELECT id, 'remind', remind_at FROM transactions WHERE remind_at <= @now
       UNION ALL SELECT id, 'clean', ended_at + @retention FROM transactions WHERE ended_at <= @now - @retention
       UNION ALL SELECT id, 'release', release_at FROM transactions WHERE release_at <= @now
       ORDER BY at, id LIMIT @limit`,
    ).all({ now: nowMs, retention: retentionMs, limit: options.limit ?? 100 }) as { id: string; kind: DueTimer['kind']; at: number }[];
    return rows.map((row) => ({ transactionId: row.id, kind: row.kind, at: new Date(row.at) }));
  }

  async claimDue(now: Date, limit: number, leaseMs: number): Promise<OutboxMessage[]> {
    const db = this.live();
    const nowMs = now.getTime();
    const claimed = db.immediate(() => {
      // A row of an order key waits for every earlier pending row of that key (delivery one at a time, in order).
      const rows = this.sql(
        `SELECT id, transaction_id, kind, payload, order_key, due_at, first_due_at, attempts, last_error FROM outbox o
         WHERE status = 'pending' AND due_at <= @now AND (lease_until IS NULL OR lease_until <= @now)
           AND (order_key IS NULL OR NOT EXISTS (
             SELECT 1 FROM outbox p WHERE p.order_key = o.order_key AND p.status = 'pending' AND p.id < o.id))
         ORDER BY due_at, id LIMIT @limit`,
      ).all({ now: nowMs, limit }) as OutboxRow[];
      const lease = this.sql('UPDATE outbox SET lease_until = ?, attempts = attempts + 1 WHERE id = ?');
      for (const row of rows) lease.run(nowMs + leaseMs, row.id);
      return rows;
    });
    return claimed.map((row) => {
      const message: OutboxMessage = {
        id: row.id,
        transactionId: row.transaction_id,
        kind: row.kind,
        payload: JSON.parse(row.payload) as JsonValue,
        dueAt: new Date(row.due_at),
        attempts: row.attempts + 1,
        firstDueAt: new Date(row.first_due_at ?? row.due_at),
      };
      if (row.order_key !== null) message.orderKey = row.order_key;
      if (row.last_error !== null) message.lastError = row.last_error;
      return message;
    });
  }

  async settleOutbox(settlements: readonly OutboxSettlement[]): Promise<void> {
    if (settlements.length === 0) return;
    const db = this.live();
    const insert = this.sql('INSERT INTO outbox_attempts (outbox_id, attempt, at, outcome, response_code, detail) VALUES (?, ?, ?, ?, ?, ?)');
    const done = this.sql("UPDATE outbox SET status = 'done', lease_until = NULL WHERE id = ?");
    const retry = this.sql('UPDATE outbox SET due_at = ?, lease_until = NULL, last_error = ? WHERE id = ?');
    const failed = this.sql("UPDATE outbox SET status = 'failed', lease_until = NULL, last_error = ? WHERE id = ?");
    db.immediate(() => {
      for (const { attempt, retryAt } of settlements) {
        insert.run(attempt.outboxId, attempt.attempt, attempt.at.getTime(), attempt.outcome, attempt.responseCode ?? null, attempt.detail ?? null);
        const error = attempt.detail ?? null;
        if (attempt.outcome === 'delivered') done.run(attempt.outboxId);
        else if (attempt.outcome === 'retry' && retryAt !== undefined) retry.run(retryAt.getTime(), error, attempt.outboxId);
        else failed.run(error, attempt.outboxId);
      }
    });
  }

  async listAttempts(outboxId: number): Promise<OutboxAttempt[]> {
    const rows = this.sql(
      'SELECT attempt, at, outcome, response_code, detail FROM outbox_attempts WHERE outbox_id = ? ORDER BY attempt, rowid',
    ).all(outboxId) as { attempt: number; at: number; outcome: OutboxAttempt['outcome']; response_code: number | null; detail: string | null }[];
    return rows.map((row) => ({
      outboxId,
      attempt: row.attempt,
      at: new Date(row.at),
      outcome: row.outcome,
      ...(row.response_code !== null ? { responseCode: row.response_code } : {}),
      ...(row.detail !== null ? { detail: row.detail } : {}),
    }));
  }

  /** The database answers (for `/health`). */
  async countOperational(now: Date): Promise<OperationalCounts> {
    const statuses = this.sql('SELECT status, count(*) AS n FROM transactions GROUP BY status').all() as { status: number; n: number }[];
    const outbox = this.sql(
      `SELECT kind, count(*) AS pending, min(CASE WHEN due_at <= ? THEN first_due_at END) AS oldest
       FROM outbox WHERE status = 'pending' GROUP BY kind`,
    ).all(now.getTime()) as { kind: OutboxKind; pending: number; oldest: number | null }[];
    return {
      transactionsByStatus: new Map(statuses.map((row) => [row.status, row.n])),
      outbox: outbox.map((row) => ({ kind: row.kind, pending: row.pending, ...(row.oldest !== null ? { oldestDueAt: new Date(row.oldest) } : {}) })),
    };
  }

  async ping(): Promise<StoreHealth> {
    try {
      const row = this.sql('SELECT max(version) AS version FROM migrations').get() as { version: number | null } | undefined;
      return { ok: true, schemaVersion: row?.version ?? 0 };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  }

  async getSetting(key: string): Promise<JsonValue | undefined> {
    const row = this.sql('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.value) as JsonValue);
  }

  async putSetting(key: string, value: JsonValue): Promise<void> {
    this.sql('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      .run(key, JSON.stringify(value));
  }

  async putSettingIfAbsent(key: string, value: JsonValue): Promise<JsonValue> {
    this.sql('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run(key, JSON.stringify(value));
    // Settings are never deleted: the key has a value now.
    return (await this.getSetting(key)) ?? value;
  }

  async accountStorageBytes(accountId: string): Promise<number> {
    const row = this.sql('SELECT COALESCE(SUM(storage_bytes), 0) AS n FROM transactions WHERE account_id = ?').get(accountId) as { n: number };
    return row.n;
  }

  async discardBlob(sha256: string): Promise<boolean> {
    // Check and delete in one synchronous step: no commit can add a reference in between.
    if (this.sql('SELECT 1 FROM blob_refs WHERE sha256 = ? LIMIT 1').get(sha256) !== undefined) return false;
    if (!this.blobs.existsSync(sha256)) return false;
    this.blobs.deleteSync(sha256);
    return true;
  }

  async collectGarbage(olderThan: Date): Promise<number> {
    const referenced = this.sql('SELECT 1 FROM blob_refs WHERE sha256 = ? LIMIT 1');
    return this.blobs.deleteUnreferencedSync(olderThan, (sha256) => referenced.get(sha256) !== undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private readonly statements = new Map<string, SqliteStatement>();

  // Prepared once per SQL text: preparing costs more than running most of these statements.
  private sql(text: string): SqliteStatement {
    this.live();
    let statement = this.statements.get(text);
    if (statement === undefined) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  private live(): SqliteDatabase {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'The store is closed.', { origin: 'internal' });
    return this.db;
  }
}

