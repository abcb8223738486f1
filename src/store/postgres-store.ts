/**
 * The PostgreSQL {@link Store} (docs/design/storage.md#scale-out): the same behaviour as the embedded SQLite store,
 * shared by any number of `paraph serve` processes. Each `commit` is one READ COMMITTED transaction: the optimistic
 * version check is an `UPDATE … WHERE version = $expected` whose row lock serialises every change of one transaction
 * across processes, so the audit chain is appended to the last committed entry and two writers of the same version
 * cannot both win. Outbox rows are leased with `FOR UPDATE SKIP LOCKED`, so two processes never claim the same row.
 * Documents and receipts live in the database too ({@link PostgresBlobStore}); nothing is kept on local disk.
 */
import { commitRows, type CommitRows } from './commit-rows.js';
import pg from 'pg';
import { canonicalJson } from '../receipt/canonical-json.js';
import type { AuditEntry } from '../receipt/audit-log.js';
import type { JsonValue, Transaction } from '../domain/transaction.js';
import { chainStoredAudit } from './audit-chain.js';
import { applyPostgresMigrations, installJobSchema, POSTGRES_SCHEMA_VERSION, schemaVersion } from './postgres-migrations.js';
import { inTransaction, PostgresBlobStore } from './postgres-blob-store.js';
import { outboxMessage, type OutboxRow } from './postgres-job-tables.js';
import { PostgresRateBuckets } from './postgres-rate-buckets.js';
import type { MasterKey } from './master-key.js';
import { AccountReader, openSignTokens, readAccount, sealAccount } from './sealed-secrets.js';
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
import {
  ConcurrencyError,
  StoreError,
  type Account,
  type AdminAuditEntry,
  type CredentialMatch,
  type AdminAuditInput,
  type DueTimer,
  type OutboxAttempt,
  type OutboxKind,
  type OperationalCounts,
  type OutboxMessage,
  type OutboxSettlement,
  type Store,
  type StoreHealth,
  type TransactionChange,
  type UploadSlot,
  type UploadSlots,
} from './store.js';

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`. */
  url: string;
  /** Apply missing migrations first (`paraph migrate`, `PARAPH_MIGRATE=1`). Without it, a schema other than this code's is refused. */
  migrate?: boolean;
  /** Seals SignUrl tokens and postback secrets at rest, as in the SQLite store. */
  masterKey?: MasterKey;
  /** Connections per process (default 10). */
  maxConnections?: number;
}


/**
 * Connects, optionally migrates, and checks the schema version.
 *
 * @throws StoreError `SCHEMA_VERSION_UNKNOWN` when the database's schema is newer than this code's, or older and
 *   `migrate` was not asked for.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const pool = openPool(options.url, options.maxConnections ?? 10);
  try {
    if (options.migrate === true) await installJobSchema(pool);
    const client = await pool.connect();
    try {
      if (options.migrate === true) await applyPostgresMigrations(client);
      const version = await schemaVersion(client);
      if (version !== POSTGRES_SCHEMA_VERSION) {
        throw new StoreError(
          'SCHEMA_VERSION_UNKNOWN',
          version > POSTGRES_SCHEMA_VERSION
            ? `The database schema is at version ${version}, newer than this paraph knows (${POSTGRES_SCHEMA_VERSION}): upgrade paraph before serving from it.`
            : `The database schema is at version ${version}, this paraph needs ${POSTGRES_SCHEMA_VERSION}: run \`paraph migrate\` (or start with PARAPH_MIGRATE=1).`,
          { origin: 'internal' },
        );
      }
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresStore(pool, options.masterKey);
}

/**
 * A pool whose connections may be dropped by the server without crashing the process. pg-pool's `end()` resolves
 * before its connections have closed, and keeps their idle error listener, which re-emits on the pool: a server that
 * terminates such a connection (a restart, `DROP DATABASE … WITH (FORCE)`) would otherwise raise an unhandled 'error'.
 */
export function openPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => undefined);
  // The same for a connection in use: its query fails with the error, which is what its caller sees.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Applies the missing migrations (`paraph migrate`); returns the versions applied. */
export async function migratePostgres(url: string): Promise<number[]> {
  const pool = openPool(url, 1);
  try {
    await installJobSchema(pool);
    const client = await pool.connect();
    try {
      return await applyPostgresMigrations(client);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}


/** The account with a valid user token among $1 and a valid app key among $2 at $3 (ms), with the two credentials. */
const ACCOUNT_BY_CREDENTIALS = `SELECT a.id AS account_id, a.data, u.id AS user_id, u.hash AS user_hash, k.id AS app_id, k.hash AS app_hash
  FROM account_credentials u
  JOIN account_credentials k ON k.account_id = u.account_id
  JOIN accounts a ON a.id = u.account_id
  WHERE u.hash = ANY($1::text[]) AND u.kind = 'user-token' AND u.revoked_at IS NULL AND (u.valid_until IS NULL OR u.valid_until > $3::bigint)
    AND k.hash = ANY($2::text[]) AND k.kind = 'app-key' AND k.revoked_at IS NULL AND (k.valid_until IS NULL OR k.valid_until > $3::bigint)
  LIMIT 1`;

export class PostgresStore implements Store {
  readonly kind = 'postgresql';
  readonly blobs: PostgresBlobStore;
  readonly uploadSlots: UploadSlots = {
    claim: async (slot, claim, nowMs, windowMs, leaseMs) => {
      // ON CONFLICT … WHERE: of two processes claiming at once, the second waits for the first's row and sees it busy.
      const { rowCount } = await this.query(
        `INSERT INTO upload_slots (transaction_id, file_id, kind, claim, busy_until) VALUES ($1, $2, $3, $4, $5::bigint + $6::bigint)
         ON CONFLICT (transaction_id, file_id, kind) DO UPDATE SET claim = excluded.claim, busy_until = excluded.busy_until
         WHERE (upload_slots.busy_until IS NULL OR upload_slots.busy_until <= $5::bigint)
           AND (upload_slots.accepted_at IS NULL OR $5::bigint - upload_slots.accepted_at >= $7::bigint)`,
        [...slotKey(slot), claim, nowMs, leaseMs, windowMs],
      );
      return rowCount === 1;
    },
    renew: async (slot, claim, nowMs, leaseMs) => {
      const { rowCount } = await this.query(
        'UPDATE upload_slots SET busy_until = $5::bigint + $6::bigint WHERE transaction_id = $1 AND file_id = $2 AND kind = $3 AND claim = $4',
        [...slotKey(slot), claim, nowMs, leaseMs],
      );
      return rowCount === 1;
    },
    release: async (slot, claim, accepted, atMs) => {
      // Only the holder's claim is cleared (after an expired lease another upload may hold the slot now).
      await this.query(
        `UPDATE upload_slots SET
           accepted_at = CASE WHEN $5::boolean THEN GREATEST(COALESCE(accepted_at, $6::bigint), $6::bigint) ELSE accepted_at END,
           busy_until = CASE WHEN claim = $4 THEN NULL ELSE busy_until END,
           claim = CASE WHEN claim = $4 THEN NULL ELSE claim END
         WHERE transaction_id = $1 AND file_id = $2 AND kind = $3`,
        [...slotKey(slot), claim, accepted, atMs],
      );
    },
  };
  readonly rateBuckets = new PostgresRateBuckets((text, values) => this.query(text, values));
  private readonly lastAudit = new LastAuditEntries();
  private closed = false;

  /** @internal use {@link openPostgresStore}. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly masterKey?: MasterKey,
  ) {
    this.blobs = new PostgresBlobStore(pool);
    this.accountReader = new AccountReader(masterKey);
  }

  private readonly accountReader: AccountReader;

  /** The database answers (for `/health`). */
  async countOperational(now: Date): Promise<OperationalCounts> {
    const statuses = await this.query<{ status: number; n: string }>('SELECT status, count(*) AS n FROM transactions GROUP BY status');
    const outbox = await this.query<{ kind: OutboxKind; pending: string; oldest: string | null }>(
      `SELECT kind, count(*) AS pending, min(CASE WHEN due_at <= $1 THEN first_due_at END) AS oldest
       FROM outbox WHERE status = 'pending' GROUP BY kind`,
      [now.getTime()],
    );
    return {
      transactionsByStatus: new Map(statuses.rows.map((row) => [row.status, Number(row.n)])),
      outbox: outbox.rows.map((row) => ({ kind: row.kind, pending: Number(row.pending), ...(row.oldest !== null ? { oldestDueAt: new Date(Number(row.oldest)) } : {}) })),
    };
  }

  async ping(): Promise<StoreHealth> {
    try {
      const result = await this.query<{ version: number }>('SELECT max(version) AS version FROM schema_migrations');
      return { ok: true, schemaVersion: result.rows[0]?.version ?? 0 };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  }

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    this.live();
    return this.pool.query<R>(text, values);
  }



  async findAccountByCredentials(userTokenHashes: readonly string[], appKeyHashes: readonly string[], at: Date): Promise<CredentialMatch | undefined> {
    if (userTokenHashes.length === 0 || appKeyHashes.length === 0) return undefined;
    this.live();
    // A named statement: each pooled connection parses and plans it once.
    const { rows } = await this.pool.query<CredentialMatchRow>({
      name: 'paraph-account-by-credentials',
      text: ACCOUNT_BY_CREDENTIALS,
      values: [[...userTokenHashes], [...appKeyHashes], at.getTime()],
    });
    return rows[0] === undefined ? undefined : credentialMatchFromRow(rows[0], this.accountReader);
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const { rows } = await this.query<{ data: string }>('SELECT data FROM accounts WHERE id = $1', [id]);
    return rows[0] === undefined ? undefined : readAccount(rows[0].data, this.masterKey);
  }

  async createAccount(account: Account): Promise<void> {
    const pair = account.UserTokenHash !== undefined && account.AppKeyHash !== undefined ? ([account.UserTokenHash, account.AppKeyHash] as const) : undefined;
    try {
      await inTransaction(this.pool, async (client) => {
        // The legacy key columns are unique as a pair: an account without a first pair fills them with its Id.
        await client.query('INSERT INTO accounts (id, user_token_hash, app_key_hash, data) VALUES ($1, $2, $3, $4)', [
          account.Id,
          pair?.[0] ?? `-${account.Id}`,
          pair?.[1] ?? `-${account.Id}`,
          JSON.stringify(sealAccount(account, this.masterKey)),
        ]);
        if (pair === undefined) return;
        for (const c of firstCredentials(account.Id, pair[0], pair[1], account.CreatedDateTime)) await client.query(INSERT_CREDENTIAL, credentialValues(c));
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new StoreError('ACCOUNT_EXISTS', `An account with Id ${account.Id} or the same keys exists.`);
      throw error;
    }
  }

  async updateAccount(account: Account): Promise<void> {
    const result = await this.query('UPDATE accounts SET data = $1 WHERE id = $2', [JSON.stringify(sealAccount(account, this.masterKey)), account.Id]);
    if (result.rowCount === 0) throw new StoreError('ACCOUNT_NOT_FOUND', `No account with Id ${account.Id}.`);
  }

  async addCredential(credential: AccountCredential): Promise<void> {
    await inTransaction(this.pool, (client) => insertCredential(client, credential));
  }

  async rotateCredential(id: string, at: Date, validUntil: Date, replacement: AccountCredential): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const result = await client.query(
        'UPDATE account_credentials SET rotated_at = $1, replaced_by = $2, valid_until = $3 WHERE id = $4 AND rotated_at IS NULL AND revoked_at IS NULL',
        [at.getTime(), replacement.id, validUntil.getTime(), id],
      );
      if (result.rowCount === 0) return false;
      await insertCredential(client, replacement);
      return true;
    });
  }

  async revokeCredential(id: string, at: Date): Promise<boolean> {
    const result = await this.query('UPDATE account_credentials SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2', [at.getTime(), id]);
    return (result.rowCount ?? 0) > 0;
  }

  async rehashCredential(id: string, from: string, to: string): Promise<void> {
    await this.query('UPDATE account_credentials SET hash = $1 WHERE id = $2 AND hash = $3', [to, id, from]);
  }

  async listCredentials(accountId: string): Promise<AccountCredential[]> {
    const { rows } = await this.query<CredentialRow>(`SELECT ${CREDENTIAL_COLUMNS} FROM account_credentials WHERE account_id = $1 ORDER BY created_at, seq`, [accountId]);
    return rows.map(credentialFromRow);
  }

  async findCredentialsByHash(hashes: readonly string[]): Promise<AccountCredential[]> {
    if (hashes.length === 0) return [];
    const { rows } = await this.query<CredentialRow>(`SELECT ${CREDENTIAL_COLUMNS} FROM account_credentials WHERE hash = ANY($1::text[])`, [[...hashes]]);
    return rows.map(credentialFromRow);
  }

  async appendAdminAudit(entry: AdminAuditInput): Promise<AdminAuditEntry> {
    const { rows } = await this.query<{ id: string }>(
      'INSERT INTO admin_audit (at, actor, action, account_id, credential_id, data) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
      [entry.at.getTime(), entry.actor, entry.action, entry.accountId ?? null, entry.credentialId ?? null, JSON.stringify(entry.data ?? null)],
    );
    return { ...entry, id: Number(rows[0]?.id) };
  }

  async listAdminAudit(options: { readonly afterId?: number; readonly limit: number; readonly accountId?: string }): Promise<AdminAuditEntry[]> {
    const { rows } =
      options.accountId === undefined
        ? await this.query<AdminAuditRow>('SELECT * FROM admin_audit WHERE id > $1 ORDER BY id LIMIT $2', [options.afterId ?? 0, options.limit])
        : await this.query<AdminAuditRow>('SELECT * FROM admin_audit WHERE id > $1 AND account_id = $2 ORDER BY id LIMIT $3', [options.afterId ?? 0, options.accountId, options.limit]);
    return rows.map(adminAuditFromRow);
  }

  async countAccounts(): Promise<number> {
    const { rows } = await this.query<{ n: string }>('SELECT count(*) AS n FROM accounts');
    return Number(rows[0]?.n ?? 0);
  }

  async listAccounts(): Promise<Account[]> {
    const { rows } = await this.query<{ data: string }>('SELECT data FROM accounts ORDER BY created_seq');
    return rows.map((row) => readAccount(row.data, this.masterKey));
  }

  async setPostbackSecret(accountId: string, secret: string): Promise<void> {
    const account = await this.getAccount(accountId);
    if (account === undefined) throw new StoreError('ACCOUNT_NOT_FOUND', `No account with Id ${accountId}.`);
    await this.query('UPDATE accounts SET data = $1 WHERE id = $2', [JSON.stringify(sealAccount({ ...account, PostbackSecret: secret }, this.masterKey)), accountId]);
  }

  async setNotificationEmail(accountId: string, email: string | undefined): Promise<void> {
    const account = await this.getAccount(accountId);
    if (account === undefined) throw new StoreError('ACCOUNT_NOT_FOUND', `No account with Id ${accountId}.`);
    const { NotificationEmail: _previous, ...rest } = account;
    const updated = email === undefined ? rest : { ...rest, NotificationEmail: email };
    await this.query('UPDATE accounts SET data = $1 WHERE id = $2', [JSON.stringify(sealAccount(updated, this.masterKey)), accountId]);
  }

  async getTransaction(id: string): Promise<Transaction | undefined> {
    const { rows } = await this.query<{ data: string; version: number; last_audit: string | null }>(
      `SELECT data, version, (SELECT entry FROM audit_entries a WHERE a.transaction_id = t.id ORDER BY seq DESC LIMIT 1) AS last_audit
       FROM transactions t WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    this.lastAudit.remember(id, row.version, row.last_audit);
    return { ...openSignTokens(JSON.parse(row.data) as Transaction, this.masterKey), version: row.version };
  }

  async findSignerByTokenHash(tokenHash: string): Promise<{ transaction: Transaction; signerId: string } | undefined> {
    const { rows } = await this.query<{ transaction_id: string; signer_id: string }>(
      'SELECT transaction_id, signer_id FROM sign_tokens WHERE token_hash = $1',
      [tokenHash],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const transaction = await this.getTransaction(row.transaction_id);
    return transaction === undefined ? undefined : { transaction, signerId: row.signer_id };
  }

  async commit(change: TransactionChange): Promise<Transaction> {
    this.live();
    const version = change.expectedVersion + 1;
    const stored: Transaction = { ...change.transaction, version };
    const rows = commitRows(stored, change.outbox ?? [], this.masterKey);
    const row = rows.transaction;
    const txId = row.id;
    const blobs = [...rows.blobs];
    const values = [row.status, row.data, row.expireAt, row.remindAt, row.endedAt, row.releaseAt, row.storageBytes];
    // A new transaction has no entries yet (if its Id existed, the insert finds it and fails).
    const lastAudit =
      change.purgeAudit === true ? undefined : change.expectedVersion === 0 ? null : this.lastAudit.recall(txId, change.expectedVersion);
    if (lastAudit !== undefined) {
      await this.commitInOneStatement(rows, change, lastAudit);
      return stored;
    }
    await inTransaction(this.pool, async (client) => {
      if (change.expectedVersion === 0) {
        const inserted = await client.query(
          `INSERT INTO transactions (id, account_id, version, status, data, expire_at, remind_at, ended_at, release_at, storage_bytes)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
          [txId, row.accountId, row.version, ...values],
        );
        if (inserted.rowCount !== 1) {
          const actual = await client.query<{ version: number }>('SELECT version FROM transactions WHERE id = $1', [txId]);
          throw new ConcurrencyError(txId, 0, actual.rows[0]?.version ?? 1);
        }
      } else {
        // The row lock taken here serialises every change of this transaction until COMMIT, across processes.
        const updated = await client.query(
          `UPDATE transactions SET version = $1, status = $2, data = $3, expire_at = $4, remind_at = $5, ended_at = $6, release_at = $7, storage_bytes = $8
           WHERE id = $9 AND version = $10`,
          [row.version, ...values, txId, change.expectedVersion],
        );
        if (updated.rowCount !== 1) {
          const actual = await client.query<{ version: number }>('SELECT version FROM transactions WHERE id = $1', [txId]);
          throw new ConcurrencyError(txId, change.expectedVersion, actual.rows[0]?.version);
        }
      }
      if (blobs.length > 0) {
        // FOR KEY SHARE: a concurrent discard of one of these blobs waits for this commit, then finds it referenced.
        const present = await client.query<{ sha256: string }>('SELECT sha256 FROM blobs WHERE sha256 = ANY($1) FOR KEY SHARE', [blobs]);
        const found = new Set(present.rows.map((r) => r.sha256));
        const missing = blobs.find((sha256) => !found.has(sha256));
        if (missing !== undefined) {
          throw new StoreError('BLOB_NOT_FOUND', `Transaction ${txId} references blob ${missing}, which was never stored.`, { origin: 'internal' });
        }
      }
      await client.query('DELETE FROM blob_refs WHERE transaction_id = $1', [txId]);
      if (blobs.length > 0) {
        await client.query('INSERT INTO blob_refs (transaction_id, sha256) SELECT $1, unnest($2::text[])', [txId, blobs]);
      }
      if (rows.signTokens !== undefined) {
        await client.query('DELETE FROM sign_tokens WHERE transaction_id = $1', [txId]);
        if (rows.signTokens.length > 0) {
          await client.query('INSERT INTO sign_tokens (token_hash, transaction_id, signer_id) SELECT unnest($1::text[]), $2, unnest($3::text[])', [
            rows.signTokens.map((t) => t.hash),
            txId,
            rows.signTokens.map((t) => t.signerId),
          ]);
        }
      }
      if (change.purgeAudit === true) await client.query('DELETE FROM audit_entries WHERE transaction_id = $1', [txId]);
      await this.appendAudit(client, txId, change);
      for (const outbox of rows.outbox) {
        await client.query(
          'INSERT INTO outbox (transaction_id, kind, payload, order_key, due_at, first_due_at) VALUES ($1, $2, $3, $4, $5, $5)',
          [txId, outbox.kind, outbox.payload, outbox.orderKey, outbox.dueAt],
        );
      }
    });
    return stored;
  }

  /**
   * A commit whose last audit entry is known from the read it builds on ({@link LastAuditEntries}), as one statement:
   * one round trip instead of ten, atomic without BEGIN/COMMIT. Every part depends on the row `version = expected`
   * matched; if it did, no commit came between the read and this one (each bumps the version), so the remembered
   * entry is still the last. Blob references are checked by their foreign key (which also makes a concurrent discard
   * of the blob wait for this statement, as `FOR KEY SHARE` does in the transactional path).
   */
  private async commitInOneStatement(commit: CommitRows, change: TransactionChange, lastEntry: string | null): Promise<void> {
    const { expectedVersion } = change;
    const row = commit.transaction;
    const entries = chainStoredAudit(lastEntry === null ? undefined : (JSON.parse(lastEntry) as AuditEntry), change.audit ?? []);
    const tokens = commit.signTokens;
    const outbox = commit.outbox;
    const written =
      expectedVersion === 0
        ? `INSERT INTO transactions (id, account_id, version, status, data, expire_at, remind_at, ended_at, release_at, storage_bytes)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING RETURNING id`
        : `UPDATE transactions SET version = $3, status = $4, data = $5, expire_at = $6, remind_at = $7, ended_at = $8, release_at = $9, storage_bytes = $10
           WHERE id = $1 AND account_id = $2 AND version = $3 - 1 RETURNING id`;
    try {
      const { rows } = await this.query<{ written: number }>(
        `WITH written AS (${written}),
         old_refs AS (DELETE FROM blob_refs WHERE transaction_id = (SELECT id FROM written) AND sha256 <> ALL($11::text[])),
         new_refs AS (INSERT INTO blob_refs (transaction_id, sha256) SELECT w.id, b FROM written w, unnest($11::text[]) b ON CONFLICT DO NOTHING),
         old_tokens AS (DELETE FROM sign_tokens WHERE transaction_id = (SELECT id FROM written) AND $12::boolean AND token_hash <> ALL($13::text[])),
         new_tokens AS (INSERT INTO sign_tokens (token_hash, transaction_id, signer_id)
           SELECT t.hash, w.id, t.signer FROM written w, unnest($13::text[], $14::text[]) t(hash, signer) WHERE $12::boolean ON CONFLICT DO NOTHING),
         audit AS (INSERT INTO audit_entries (transaction_id, seq, entry) SELECT w.id, e.seq, e.entry FROM written w, unnest($15::int[], $16::text[]) e(seq, entry)),
         outbox_rows AS (INSERT INTO outbox (transaction_id, kind, payload, order_key, due_at, first_due_at)
           SELECT w.id, o.kind, o.payload, o.order_key, o.due, o.due FROM written w, unnest($17::text[], $18::text[], $19::text[], $20::bigint[]) WITH ORDINALITY o(kind, payload, order_key, due, n) ORDER BY o.n)
         SELECT count(*)::int AS written FROM written`,
        [
          row.id,
          row.accountId,
          row.version,
          row.status,
          row.data,
          row.expireAt,
          row.remindAt,
          row.endedAt,
          row.releaseAt,
          row.storageBytes,
          [...commit.blobs],
          tokens !== undefined,
          (tokens ?? []).map((t) => t.hash),
          (tokens ?? []).map((t) => t.signerId),
          entries.map((entry) => entry.seq),
          entries.map((entry) => canonicalJson(entry)),
          outbox.map((o) => o.kind),
          outbox.map((o) => o.payload),
          outbox.map((o) => o.orderKey),
          outbox.map((o) => o.dueAt),
        ],
      );
      if (rows[0]?.written !== 1) {
        const actual = await this.query<{ version: number }>('SELECT version FROM transactions WHERE id = $1', [row.id]);
        throw new ConcurrencyError(row.id, expectedVersion, actual.rows[0]?.version ?? (expectedVersion === 0 ? 1 : undefined));
      }
    } catch (error) {
      const { code, constraint, detail } = error as { code?: string; constraint?: string; detail?: string };
      if (code === '23503' && constraint === 'blob_refs_sha256_fkey') {
        throw new StoreError('BLOB_NOT_FOUND', `Transaction ${row.id} references a blob that was never stored (${detail ?? 'no detail'}).`, { origin: 'internal' });
      }
      throw error;
    }
    const newest = entries.at(-1);
    this.lastAudit.remember(row.id, row.version, newest === undefined ? lastEntry : canonicalJson(newest));
  }

  // Chains onto the last stored entry with the one chain rule; the transaction row's lock keeps the chain linear.
  private async appendAudit(client: pg.PoolClient, txId: string, change: TransactionChange): Promise<void> {
    const inputs = change.audit ?? [];
    if (inputs.length === 0) return;
    const { rows } = await client.query<{ entry: string }>('SELECT entry FROM audit_entries WHERE transaction_id = $1 ORDER BY seq DESC LIMIT 1', [txId]);
    const last = rows[0] === undefined ? undefined : (JSON.parse(rows[0].entry) as AuditEntry);
    const entries = chainStoredAudit(last, inputs);
    await client.query('INSERT INTO audit_entries (transaction_id, seq, entry) SELECT $1, unnest($2::int[]), unnest($3::text[])', [
      txId,
      entries.map((entry) => entry.seq),
      entries.map((entry) => canonicalJson(entry)),
    ]);
  }

  async listAuditEntries(transactionId: string): Promise<AuditEntry[]> {
    const { rows } = await this.query<{ entry: string }>('SELECT entry FROM audit_entries WHERE transaction_id = $1 ORDER BY seq', [transactionId]);
    return rows.map((row) => JSON.parse(row.entry) as AuditEntry);
  }

  async listDueTimers(now: Date, options: { retentionDays: number; limit?: number }): Promise<DueTimer[]> {
    const { rows } = await this.query<{ id: string; kind: DueTimer['kind']; at: string }>(
      `SELECT id, 'expire' AS kind, expire_at AS at FROM transactions WHERE expire_at <= $1
       UNION ALL SELECT id, 'remind', remind_at FROM transactions WHERE remind_at <= $1
       UNION ALL SELECT id, 'clean', ended_at + $2 FROM transactions WHERE ended_at <= $1 - $2
       UNION ALL SELECT id, 'release', release_at FROM transactions WHERE release_at <= $1
       ORDER BY at, id LIMIT $3`,
      [now.getTime(), options.retentionDays * 86_400_000, options.limit ?? 100],
    );
    return rows.map((row) => ({ transactionId: row.id, kind: row.kind, at: new Date(Number(row.at)) }));
  }

  async claimDue(now: Date, limit: number, leaseMs: number): Promise<OutboxMessage[]> {
    const nowMs = now.getTime();
    // A row of an order key waits for every earlier pending row of that key (delivery one at a time, in order);
    // SKIP LOCKED: processes claiming at the same moment take disjoint rows.
    const { rows } = await this.query<OutboxRow>(
      `UPDATE outbox SET lease_until = $1::bigint + $3::bigint, attempts = attempts + 1
       WHERE id IN (
         SELECT id FROM outbox o
         WHERE status = 'pending' AND due_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
           AND (order_key IS NULL OR NOT EXISTS (
             SELECT 1 FROM outbox p WHERE p.order_key = o.order_key AND p.status = 'pending' AND p.id < o.id))
         ORDER BY due_at, id LIMIT $2
         FOR UPDATE SKIP LOCKED)
       RETURNING id, transaction_id, kind, payload, order_key, due_at, first_due_at, attempts - 1 AS attempts, last_error`,
      [nowMs, limit, leaseMs],
    );
    return rows
      .map(outboxMessage)
      .sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime() || a.id - b.id);
  }

  async settleOutbox(settlements: readonly OutboxSettlement[]): Promise<void> {
    if (settlements.length === 0) return;
    this.live();
    const ids = settlements.map(({ attempt }) => attempt.outboxId);
    if (new Set(ids).size !== ids.length) {
      // A row settled twice in one batch: one at a time, in order, the last outcome standing.
      for (const settlement of settlements) await this.settleOutbox([settlement]);
      return;
    }
    // One statement (atomic, one round trip): every attempt recorded, each row done, waiting for its retry, or failed.
    await this.query(
      `WITH s AS (
         SELECT * FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::text[], $5::int[], $6::text[], $7::bigint[]) WITH ORDINALITY
           AS s(outbox_id, attempt, at, outcome, response_code, detail, retry_at, n)),
       recorded AS (
         INSERT INTO outbox_attempts (outbox_id, attempt, at, outcome, response_code, detail)
         SELECT outbox_id, attempt, at, outcome, response_code, detail FROM s ORDER BY n)
       UPDATE outbox o SET
         status = CASE WHEN s.outcome = 'delivered' THEN 'done' WHEN s.outcome = 'retry' AND s.retry_at IS NOT NULL THEN 'pending' ELSE 'failed' END,
         due_at = CASE WHEN s.outcome = 'retry' AND s.retry_at IS NOT NULL THEN s.retry_at ELSE o.due_at END,
         last_error = CASE WHEN s.outcome = 'delivered' THEN o.last_error ELSE s.detail END,
         lease_until = NULL
       FROM s WHERE o.id = s.outbox_id`,
      [
        ids,
        settlements.map(({ attempt }) => attempt.attempt),
        settlements.map(({ attempt }) => attempt.at.getTime()),
        settlements.map(({ attempt }) => attempt.outcome),
        settlements.map(({ attempt }) => attempt.responseCode ?? null),
        settlements.map(({ attempt }) => attempt.detail ?? null),
        settlements.map(({ retryAt }) => retryAt?.getTime() ?? null),
      ],
    );
  }

  async listAttempts(outboxId: number): Promise<OutboxAttempt[]> {
    const { rows } = await this.query<{ attempt: number; at: string; outcome: OutboxAttempt['outcome']; response_code: number | null; detail: string | null }>(
      'SELECT attempt, at, outcome, response_code, detail FROM outbox_attempts WHERE outbox_id = $1 ORDER BY attempt, id',
      [outboxId],
    );
    return rows.map((row) => ({
      outboxId,
      attempt: row.attempt,
      at: new Date(Number(row.at)),
      outcome: row.outcome,
      ...(row.response_code !== null ? { responseCode: row.response_code } : {}),
      ...(row.detail !== null ? { detail: row.detail } : {}),
    }));
  }

  async getSetting(key: string): Promise<JsonValue | undefined> {
    const { rows } = await this.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].value) as JsonValue);
  }

  async putSetting(key: string, value: JsonValue): Promise<void> {
    await this.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, JSON.stringify(value)]);
  }

  async putSettingIfAbsent(key: string, value: JsonValue): Promise<JsonValue> {
    // A concurrent insert of the same key makes this one wait for its commit, then do nothing: the SELECT sees the winner.
    const inserted = await this.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, JSON.stringify(value)]);
    if (inserted.rowCount === 1) return value;
    // Settings are never deleted: the key has a value now.
    return (await this.getSetting(key)) ?? value;
  }

  async accountStorageBytes(accountId: string): Promise<number> {
    const { rows } = await this.query<{ n: string }>(
      'SELECT COALESCE(SUM(storage_bytes), 0) AS n FROM transactions WHERE account_id = $1',
      [accountId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async discardBlob(sha256: string): Promise<boolean> {
    this.live();
    return this.blobs.deleteIfUnreferenced(sha256);
  }

  async collectGarbage(olderThan: Date): Promise<number> {
    const { rows } = await this.query<{ sha256: string }>(
      'SELECT sha256 FROM blobs b WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM blob_refs r WHERE r.sha256 = b.sha256)',
      [olderThan.getTime()],
    );
    let deleted = 0;
    for (const row of rows) if (await this.blobs.deleteIfUnreferenced(row.sha256, olderThan)) deleted++;
    return deleted;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private live(): void {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'The store is closed.', { origin: 'internal' });
  }
}

/** The columns of a transaction row a commit writes. */
/**
 * The last audit entry of recently read transactions, by version (`null`: none yet), so that a commit building on a
 * read of this process need not read it again. Bounded: the oldest are forgotten, a forgotten one costs a read.
 */
class LastAuditEntries {
  private readonly entries = new Map<string, { readonly version: number; readonly entry: string | null }>();

  constructor(private readonly capacity = 2048) {}

  remember(transactionId: string, version: number, entry: string | null): void {
    this.entries.delete(transactionId);
    this.entries.set(transactionId, { version, entry });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** The entry (JSON) remembered for this version, null when it had none, undefined when not remembered. */
  recall(transactionId: string, version: number): string | null | undefined {
    const remembered = this.entries.get(transactionId);
    return remembered?.version === version ? remembered.entry : undefined;
  }
}

function slotKey(slot: UploadSlot): [string, string, string] {
  return [slot.transactionId, slot.fileId, slot.kind];
}

const INSERT_CREDENTIAL = `INSERT INTO account_credentials (${CREDENTIAL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

async function insertCredential(client: pg.PoolClient, credential: AccountCredential): Promise<void> {
  try {
    await client.query(INSERT_CREDENTIAL, credentialValues(credential));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === '23503') throw new StoreError('ACCOUNT_NOT_FOUND', `No account with Id ${credential.accountId}.`);
    if (code === '23505') throw new StoreError('CREDENTIAL_EXISTS', `A credential with Id ${credential.id} exists.`, { origin: 'internal' });
    throw error;
  }
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}
