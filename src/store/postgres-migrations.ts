/**
 * The numbered schema of the PostgreSQL store (docs/design/storage.md#migrations), one file each in
 * `sql/postgres/`. `paraph migrate` (or
 * `PARAPH_MIGRATE=1` on start) applies the missing ones, each in its own transaction, under an advisory lock so that
 * processes starting together do not race; a store refuses a database whose schema is older or newer than the one it
 * knows. Never edit a migration that has shipped: add the next. Times are milliseconds since the epoch (BIGINT), JSON
 * is stored as text exactly as written (the audit entries' canonical text must stay byte-exact).
 */
import type { Pool, PoolClient } from 'pg';
import { readSqlMigrations } from './sql-migrations.js';

export interface PostgresMigration {
  readonly version: number;
  readonly sql: string;
}

/**
 * Taken shared by everything that adds an outbox job, exclusively by the collector of empty job queues. Written as
 * 1885434466 in migration 0006's SQL: never change it.
 */
export const OUTBOX_QUEUE_LOCK = 0x70617262;

/** The migrations, from `sql/postgres/NNNN_*.sql` (sql-migrations.ts). */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = readSqlMigrations('postgres');

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
