/**
 * The store-agnostic behaviour suite on the PostgreSQL store, plus what only PostgreSQL has: migrations from an
 * empty database, refusal of an unknown schema version, commits from two stores (two processes' pools) at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openPostgresStore, migratePostgres, type PostgresStore } from '../../src/store/postgres-store.js';
import { POSTGRES_SCHEMA_VERSION } from '../../src/store/postgres-migrations.js';
import { verifyAuditLog } from '../../src/receipt/audit-log.js';
import { ConcurrencyError, type Store } from '../../src/store/store.js';
import { describeStore } from '../store/store-suite.js';
import { makeTransaction, T0 } from '../store/transaction-fixtures.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';
import { migrateCommand } from '../../src/cli/migrate.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describeStore('postgres', async () => {
  const url = await cluster.createDatabase();
  let store: Store = await openPostgresStore({ url, migrate: true });
  return {
    get store() {
      return store;
    },
    async reopen() {
      await store.close();
      store = await openPostgresStore({ url });
      return store;
    },
    // No local disk state in PostgreSQL mode: there is no area for stray files.
    strayFiles: () => [],
    async cleanup() {
      await store.close();
      await cluster.dropDatabase(url);
    },
  };
});

describe('PostgreSQL store specifics', () => {
  it('migrates an empty database once, and refuses to open an unmigrated or newer schema with a clear message', async () => {
    const url = await cluster.createDatabase();
    try {
      await expect(openPostgresStore({ url })).rejects.toThrow(/schema is at version 0.*run `paraph migrate`/);
      expect(await migratePostgres(url)).toEqual([POSTGRES_SCHEMA_VERSION]);
      expect(await migratePostgres(url)).toEqual([]);
      const store = await openPostgresStore({ url });
      expect(await store.ping()).toEqual({ ok: true, schemaVersion: POSTGRES_SCHEMA_VERSION });
      await store.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [POSTGRES_SCHEMA_VERSION + 1]);
      await client.end();
      await expect(openPostgresStore({ url })).rejects.toThrow(new RegExp(`version ${POSTGRES_SCHEMA_VERSION + 1}, newer than this paraph knows`));
    } finally {
      await cluster.dropDatabase(url);
    }
  });

  it('paraph migrate applies the schema of the database it is given, once, and asks for a URL without one', async () => {
    const url = await cluster.createDatabase();
    const out: string[] = [];
    const io = { stdout: (text: string) => void out.push(text), stderr: (text: string) => void out.push(text) };
    try {
      expect(await migrateCommand(['--database-url', url], io)).toBe(0);
      expect(await migrateCommand(['--database-url', url], io)).toBe(0);
      expect(out).toEqual([
        `applied migration ${POSTGRES_SCHEMA_VERSION}: the schema is at version ${POSTGRES_SCHEMA_VERSION}\n`,
        `the schema is at version ${POSTGRES_SCHEMA_VERSION}: nothing to apply\n`,
      ]);
      const saved = process.env.PARAPH_DATABASE_URL;
      delete process.env.PARAPH_DATABASE_URL;
      try {
        expect(await migrateCommand([], io)).toBe(2);
      } finally {
        if (saved !== undefined) process.env.PARAPH_DATABASE_URL = saved;
      }
      expect(out[2]).toMatch(/--database-url or PARAPH_DATABASE_URL/);
    } finally {
      await cluster.dropDatabase(url);
    }
  });

  it('two stores on one database (two processes): exactly one writer of a version wins and the audit chain stays linear', async () => {
    const url = await cluster.createDatabase();
    const [a, b] = await Promise.all([openPostgresStore({ url, migrate: true }), openPostgresStore({ url, migrate: true })]);
    try {
      await a.createAccount({ Id: 'acc-1', Name: 'Acme', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'k'.repeat(64), CreatedDateTime: '2026-11-21T10:00:00.000+00:00' });
      let tx = await a.commit({ transaction: makeTransaction(), expectedVersion: 0 });
      for (let round = 0; round < 10; round++) {
        const stores: PostgresStore[] = [a, b, a, b];
        const results = await Promise.allSettled(
          stores.map((store, i) =>
            store.commit({
              transaction: { ...tx, Reference: `r${round}-${i}` },
              expectedVersion: tx.version,
              audit: [{ at: T0, type: 'transaction.cancelled', actor: 'api', data: { reason: `r${round}-${i}` } }],
            }),
          ),
        );
        const won = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<Store['commit']>>> => r.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrencyError);
        tx = won[0]!.value;
      }
      expect(verifyAuditLog(await b.listAuditEntries(tx.Id))).toMatchObject({ ok: true, count: 10 });
      const outboxTx = await a.commit({
        transaction: tx,
        expectedVersion: tx.version,
        outbox: Array.from({ length: 20 }, (_, i) => ({ kind: 'mail' as const, payload: i, dueAt: T0 })),
      });
      expect(outboxTx.version).toBe(tx.version + 1);
      const [fromA, fromB] = await Promise.all([a.claimDue(T0, 20, 60_000), b.claimDue(T0, 20, 60_000)]);
      const claimed = [...fromA, ...fromB].map((m) => m.payload as number).sort((x, y) => x - y);
      expect(claimed).toEqual(Array.from({ length: 20 }, (_, i) => i));
    } finally {
      await Promise.all([a.close(), b.close()]);
      await cluster.dropDatabase(url);
    }
  });
});
