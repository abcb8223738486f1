/**
 * The numbered schema of the PostgreSQL store (docs/design/storage.md#migrations). `paraph migrate` (or
 * `PARAPH_MIGRATE=1` on start) applies the missing ones, each in its own transaction, under an advisory lock so that
 * processes starting together do not race; a store refuses a database whose schema is older or newer than the one it
 * knows. Never edit a migration that has shipped: add the next. Times are milliseconds since the epoch (BIGINT), JSON
 * is stored as text exactly as written (the audit entries' canonical text must stay byte-exact).
 */
import type { Pool, PoolClient } from 'pg';

export interface PostgresMigration {
  readonly version: number;
  readonly sql: string;
}

/**
 * Taken shared by everything that adds an outbox job, exclusively by the collector of empty job queues. Part of
 * migration 6's SQL: never change it.
 */
export const OUTBOX_QUEUE_LOCK = 0x70617262;

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        user_token_hash TEXT NOT NULL,
        app_key_hash TEXT NOT NULL,
        data TEXT NOT NULL,
        created_seq BIGSERIAL,
        UNIQUE (user_token_hash, app_key_hash)
      );
      CREATE TABLE transactions (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        version INTEGER NOT NULL,
        status INTEGER NOT NULL,
        data TEXT NOT NULL,
        expire_at BIGINT,
        remind_at BIGINT,
        ended_at BIGINT,
        release_at BIGINT
      );
      CREATE INDEX transactions_expire ON transactions(expire_at) WHERE expire_at IS NOT NULL;
      CREATE INDEX transactions_remind ON transactions(remind_at) WHERE remind_at IS NOT NULL;
      CREATE INDEX transactions_ended ON transactions(ended_at) WHERE ended_at IS NOT NULL;
      CREATE INDEX transactions_release ON transactions(release_at) WHERE release_at IS NOT NULL;
      CREATE INDEX transactions_account ON transactions(account_id);
      CREATE TABLE sign_tokens (
        token_hash TEXT PRIMARY KEY,
        transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
        signer_id TEXT NOT NULL
      );
      CREATE INDEX sign_tokens_tx ON sign_tokens(transaction_id);
      CREATE TABLE audit_entries (
        transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        entry TEXT NOT NULL,
        PRIMARY KEY (transaction_id, seq)
      );
      CREATE TABLE outbox (
        id BIGSERIAL PRIMARY KEY,
        transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('postback', 'mail', 'timer')),
        payload TEXT NOT NULL,
        order_key TEXT,
        due_at BIGINT NOT NULL,
        first_due_at BIGINT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
        lease_until BIGINT,
        last_error TEXT
      );
      CREATE INDEX outbox_pending ON outbox(due_at) WHERE status = 'pending';
      CREATE INDEX outbox_order ON outbox(order_key, id) WHERE status = 'pending';
      CREATE TABLE outbox_attempts (
        id BIGSERIAL PRIMARY KEY,
        outbox_id BIGINT NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
        attempt INTEGER NOT NULL,
        at BIGINT NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'retry', 'failed')),
        response_code INTEGER,
        detail TEXT
      );
      CREATE INDEX outbox_attempts_row ON outbox_attempts(outbox_id, attempt);
      CREATE TABLE blobs (
        sha256 TEXT PRIMARY KEY,
        sha512 TEXT NOT NULL,
        size BIGINT NOT NULL,
        created_at BIGINT NOT NULL
      );
      -- Chunks are written under an upload key and renamed to the blob's SHA-256 once its digests are checked.
      CREATE TABLE blob_chunks (
        blob_key TEXT NOT NULL,
        n INTEGER NOT NULL,
        bytes BYTEA NOT NULL,
        PRIMARY KEY (blob_key, n)
      );
      -- The foreign key makes deleting a referenced blob fail even when a commit adds the reference concurrently.
      CREATE TABLE blob_refs (
        transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
        sha256 TEXT NOT NULL REFERENCES blobs(sha256),
        PRIMARY KEY (transaction_id, sha256)
      );
      CREATE INDEX blob_refs_sha ON blob_refs(sha256);
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
  {
    version: 2,
    // The 409 re-upload guard (docs/design/files.md#replace-guard) shared by every process: a slot per transaction,
    // fileId and kind.
    sql: `
      CREATE TABLE upload_slots (
        transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
        file_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('pdf', 'metadata')),
        claim TEXT,
        busy_until BIGINT,
        accepted_at BIGINT,
        PRIMARY KEY (transaction_id, file_id, kind)
      );
    `,
  },
  {
    version: 3,
    // The storage quota reads one column per transaction (domain uploadedBytes, written by every commit)
    // under an index by account, instead of every upload size out of every transaction's JSON.
    sql: `
      ALTER TABLE transactions ADD COLUMN storage_bytes BIGINT NOT NULL DEFAULT 0;
      UPDATE transactions t SET storage_bytes = COALESCE((
        SELECT SUM(COALESCE((f->'Original'->>'size')::bigint, 0) + COALESCE((f->'MetadataBlob'->>'size')::bigint, 0))
        FROM jsonb_array_elements(COALESCE(t.data::jsonb->'Files', '[]'::jsonb)) f
      ), 0) WHERE t.data::jsonb->'cleanedAt' IS NULL;
      CREATE INDEX transactions_account_storage ON transactions(account_id, storage_bytes);
    `,
  },
  {
    version: 4,
    // Jobs run on graphile-worker (its schema is installed first, see installJobSchema). Every outbox row becomes a
    // job in the same transaction that writes it: one job per postback URL (its named queue runs one at a time, so
    // the URL's rows go out in order) and one per other row. `preserve_run_at` keeps a URL that is backing off
    // waiting: a new row must not overtake the one being retried. A new job runs at once; its task compares the
    // rows' due times with the service's clock, not the database's, and waits the difference. The nodes table lets
    // the surviving processes hand a killed process's jobs back (postgres-job-runner.ts). Rows pending from an
    // earlier schema get their jobs here.
    sql: `
      CREATE FUNCTION paraph_enqueue_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        key TEXT := CASE WHEN NEW.order_key IS NULL THEN 'row:' || NEW.id ELSE 'key:' || NEW.order_key END;
      BEGIN
        PERFORM graphile_worker.add_job(
          'paraph_outbox',
          json_build_object('key', key),
          queue_name => CASE WHEN NEW.order_key IS NULL THEN NULL ELSE 'paraph:' || key END,
          job_key => 'paraph:' || key,
          job_key_mode => 'preserve_run_at');
        RETURN NEW;
      END $$;
      CREATE TRIGGER outbox_enqueue AFTER INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION paraph_enqueue_outbox();
      SELECT graphile_worker.add_job(
        'paraph_outbox',
        json_build_object('key', key),
        queue_name => CASE WHEN order_key IS NULL THEN NULL ELSE 'paraph:' || key END,
        job_key => 'paraph:' || key,
        job_key_mode => 'preserve_run_at')
      FROM (
        SELECT DISTINCT CASE WHEN order_key IS NULL THEN 'row:' || id ELSE 'key:' || order_key END AS key, order_key
        FROM outbox WHERE status = 'pending'
      ) pending;
      CREATE TABLE job_nodes (
        pool_id TEXT PRIMARY KEY,
        heartbeat_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 5,
    // The account rate quota shared by every process: a token bucket per account that processes lease
    // tokens from in batches (src/store/postgres-rate-buckets.ts). Times are the database's, in fractional ms.
    sql: `
      CREATE TABLE account_rate_buckets (
        account_id TEXT PRIMARY KEY,
        tokens DOUBLE PRECISION NOT NULL,
        at_ms DOUBLE PRECISION NOT NULL,
        taken INTEGER NOT NULL
      );
    `,
  },
  {
    version: 6,
    // Every job of an outbox key is added through paraph_add_outbox_job, under a shared advisory lock that the
    // collector of empty queues takes exclusively (collectEmptyOutboxQueues). graphile-worker's own GC_JOB_QUEUES
    // could delete a URL's empty queue while a commit was adding a job to it: the job then named a queue that no
    // longer existed and was never fetched (the postback stayed pending for good). Jobs left in that state are
    // given their queue back here.
    sql: `
      CREATE FUNCTION paraph_add_outbox_job(key TEXT, run_at TIMESTAMPTZ, job_key_mode TEXT) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(${OUTBOX_QUEUE_LOCK});
        PERFORM graphile_worker.add_job(
          'paraph_outbox',
          json_build_object('key', key),
          queue_name => CASE WHEN key LIKE 'key:%' THEN 'paraph:' || key END,
          run_at => run_at,
          job_key => 'paraph:' || key,
          job_key_mode => job_key_mode);
      END $$;
      CREATE OR REPLACE FUNCTION paraph_enqueue_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM paraph_add_outbox_job(
          CASE WHEN NEW.order_key IS NULL THEN 'row:' || NEW.id ELSE 'key:' || NEW.order_key END, NULL, 'preserve_run_at');
        RETURN NEW;
      END $$;
      INSERT INTO graphile_worker._private_job_queues (queue_name)
        SELECT DISTINCT j.key FROM graphile_worker._private_jobs j
        WHERE j.key LIKE 'paraph:key:%' AND j.job_queue_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM graphile_worker._private_job_queues q WHERE q.id = j.job_queue_id)
        ON CONFLICT DO NOTHING;
      UPDATE graphile_worker._private_jobs j SET job_queue_id = q.id
        FROM graphile_worker._private_job_queues q
        WHERE q.queue_name = j.key AND j.key LIKE 'paraph:key:%' AND j.job_queue_id IS DISTINCT FROM q.id;
    `,
  },
];

/** The schema version this code reads and writes. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]?.version ?? 0;

// Any constant: serialises `migrate` across processes.
const MIGRATION_LOCK = 0x70617261;

/** The highest applied migration, 0 for an empty database. */
export async function schemaVersion(client: PoolClient): Promise<number> {
  const exists = await client.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  if (exists.rows[0]?.present !== true) return 0;
  const result = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return result.rows[0]?.version ?? 0;
}

/** Applies the missing migrations in order; returns the versions applied. */
export async function applyPostgresMigrations(client: PoolClient, migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS): Promise<number[]> {
  const applied: number[] = [];
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  return applied;
}

/**
 * Installs or upgrades graphile-worker's own schema (`graphile_worker`), which migration 4 builds on. graphile-worker
 * serialises its migrations itself; it is loaded only here and by the job runner, never by the embedded default.
 */
export async function installJobSchema(pool: Pool): Promise<void> {
  const { Logger, runMigrations } = await import('graphile-worker');
  // Its failures reach the caller as exceptions; its progress lines are not the operator's business.
  await runMigrations({ pgPool: pool, logger: new Logger(() => () => undefined) });
}
