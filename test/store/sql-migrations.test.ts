/**
 * The stores' migrations live as numbered SQL files; a data directory created by the first version and migrated
 * step by step ends with the same schema as a fresh one, and keeps its rows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatTime } from '../../src/domain/transaction.js';
import { OUTBOX_QUEUE_LOCK, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from '../../src/store/postgres-migrations.js';
import { readSqlMigrations } from '../../src/store/sql-migrations.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../src/store/sqlite-driver.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { T0 } from './transaction-fixtures.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'paraph-sql-migrations-'));
  dirs.push(dir);
  return dir;
}

function schemaOf(db: SqliteDatabase): string[] {
  const rows = db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as { type: string; name: string; sql: string | null }[];
  // ALTER TABLE ADD COLUMN keeps the original CREATE text plus the column: compare tables by their columns.
  return rows.flatMap((row) => {
    if (row.type !== 'table') return [`${row.type} ${row.name}: ${row.sql ?? ''}`];
    const columns = db.prepare(`PRAGMA table_info(${row.name})`).all() as { name: string; type: string; notnull: number; dflt_value: unknown; pk: number }[];
    return [`table ${row.name}: ${columns.map((c) => `${c.name} ${c.type} ${c.notnull} ${String(c.dflt_value)} ${c.pk}`).sort().join(', ')}`];
  });
}

describe('migration files', () => {
  it('are numbered in order, one SQL file per version', () => {
    expect(readSqlMigrations('sqlite').map((m) => m.name)).toEqual(['0001_initial.sql', '0002_outbox_attempts.sql', '0003_release_at.sql', '0005_storage_bytes.sql', '0006_account_credentials.sql']);
    expect(POSTGRES_MIGRATIONS.map((m) => m.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(POSTGRES_SCHEMA_VERSION).toBe(7);
    for (const migration of [...readSqlMigrations('sqlite'), ...readSqlMigrations('postgres')]) expect(migration.sql.trim()).not.toBe('');
  });

  it('write the outbox queue lock the code takes', () => {
    expect(POSTGRES_MIGRATIONS.find((m) => m.version === 6)?.sql).toContain(`pg_advisory_xact_lock_shared(${OUTBOX_QUEUE_LOCK})`);
  });
});

describe('a SQLite data directory of the first schema version', () => {
  it('migrates to the schema of a fresh store and keeps its rows', async () => {
    const freshDir = await scratch();
    await (await openSqliteStore({ dataDir: freshDir })).close();
    const fresh = openSqliteDatabase(join(freshDir, 'paraph.db'));
    const freshSchema = schemaOf(fresh);
    fresh.close();

    const oldDir = await scratch();
    const old = openSqliteDatabase(join(oldDir, 'paraph.db'));
    old.exec('CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
    old.exec(readSqlMigrations('sqlite')[0]!.sql);
    old.prepare('INSERT INTO migrations (version, applied_at) VALUES (1, ?)').run(new Date(0).toISOString());
    const account = { Id: 'acc-1', Name: 'A', UserTokenHash: 'u', AppKeyHash: 'k', CreatedDateTime: formatTime(T0) };
    old.prepare('INSERT INTO accounts (id, user_token_hash, app_key_hash, data) VALUES (?, ?, ?, ?)').run('acc-1', 'u', 'k', JSON.stringify(account));
    old.close();

    const store = await openSqliteStore({ dataDir: oldDir });
    try {
      expect((await store.getAccount('acc-1'))?.Id).toBe('acc-1');
    } finally {
      await store.close();
    }
    const migrated = openSqliteDatabase(join(oldDir, 'paraph.db'));
    try {
      expect(schemaOf(migrated)).toEqual(freshSchema);
    } finally {
      migrated.close();
    }
  });
});
