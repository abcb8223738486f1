/**
 * The store-agnostic behaviour suite on the PostgreSQL store, plus what only PostgreSQL has: migrations from an
 * empty database, refusal of an unknown schema version, commits from two stores (two processes' pools) at once.
 */
import { SharedUploadGuard } from '../../src/service/policies/upload-guard.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openPostgresStore, migratePostgres, type PostgresStore } from '../../src/store/postgres-store.js';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from '../../src/store/postgres-migrations.js';
import { CHUNK_BYTES } from '../../src/store/postgres-blob-store.js';
import { createHash } from 'node:crypto';
import { verifyAuditLog } from '../../src/receipt/audit-log.js';
import { ConcurrencyError, type Store, type TransactionChange } from '../../src/store/store.js';
import { describeStore } from '../store/store-suite.js';
import { makeTransaction, T0 } from '../store/transaction-fixtures.js';
import type { Transaction } from '../../src/domain/transaction.js';
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

/**
 * A commit that builds on a read of the same store knows the last audit entry and is written by one statement; the
 * others take the transactional path. The suite runs once more with every commit preceded by a read, so each of its
 * behaviours holds on both paths.
 */
function readingFirst(store: PostgresStore): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'commit') {
        return async (change: TransactionChange) => {
          if (change.expectedVersion > 0) await target.getTransaction(change.transaction.Id);
          return target.commit(change);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describeStore('postgres, every commit after a read (one statement)', async () => {
  const url = await cluster.createDatabase();
  let store = await openPostgresStore({ url, migrate: true });
  return {
    get store() {
      return readingFirst(store);
    },
    async reopen() {
      await store.close();
      store = await openPostgresStore({ url });
      return readingFirst(store);
    },
    strayFiles: () => [],
    async cleanup() {
      await store.close();
      await cluster.dropDatabase(url);
    },
  };
});

/**
 * Ten rounds of `stores` committing the same version at once, each with an audit entry (and, with `readFirst`, an
 * outbox row, after reading the transaction); checks that exactly one wins each round and returns the last winner.
 */
async function racingRounds(stores: readonly PostgresStore[], start: Transaction, options: { readFirst: boolean }): Promise<Transaction> {
  let tx = start;
  for (let round = 0; round < 10; round++) {
    if (options.readFirst) {
      const read = await Promise.all(stores.map((store) => store.getTransaction(tx.Id)));
      expect(read.map((r) => r?.version)).toEqual(stores.map(() => tx.version));
    }
    const results = await Promise.allSettled(
      stores.map((store, i) =>
        store.commit({
          transaction: { ...tx, Reference: `r${round}-${i}` },
          expectedVersion: tx.version,
          audit: [{ at: T0, type: 'transaction.cancelled', actor: 'api', data: { reason: `r${round}-${i}` } }],
          ...(options.readFirst ? { outbox: [{ kind: 'mail' as const, payload: `r${round}-${i}`, dueAt: T0 }] } : {}),
        }),
      ),
    );
    const won = results.filter((r): r is PromiseFulfilledResult<Transaction> => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrencyError);
    tx = won[0]!.value;
  }
  return tx;
}

describe('PostgreSQL store specifics', () => {
  it('migrates an empty database once, and refuses to open an unmigrated or newer schema with a clear message', async () => {
    const url = await cluster.createDatabase();
    try {
      await expect(openPostgresStore({ url })).rejects.toThrow(/schema is at version 0.*run `paraph migrate`/);
      expect(await migratePostgres(url)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
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
        `applied migrations ${POSTGRES_MIGRATIONS.map((m) => m.version).join(', ')}: the schema is at version ${POSTGRES_SCHEMA_VERSION}\n`,
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

  it('fills the storage column of transactions written before migration 3 from their stored JSON', async () => {
    const url = await cluster.createDatabase();
    try {
      const store = await openPostgresStore({ url, migrate: true });
      await store.createAccount({ Id: 'acc-1', Name: 'Acme', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'k'.repeat(64), CreatedDateTime: '2026-11-21T10:00:00.000+00:00' });
      const pdf = await store.blobs.write(new Uint8Array(1234));
      const meta = await store.blobs.write(new Uint8Array(56).fill(7));
      const tx = makeTransaction();
      tx.Files.push({ FileId: 'a.pdf', Original: { ...pdf, pages: 1 }, MetadataBlob: meta });
      await store.commit({ transaction: tx, expectedVersion: 0 });
      await store.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('DROP INDEX transactions_account_storage; ALTER TABLE transactions DROP COLUMN storage_bytes; DELETE FROM schema_migrations WHERE version = 3');
      await client.end();
      const migrated = await openPostgresStore({ url, migrate: true });
      expect(await migrated.accountStorageBytes('acc-1')).toBe(1234 + 56);
      await migrated.close();
    } finally {
      await cluster.dropDatabase(url);
    }
  });

  it('two stores on one database (two processes): exactly one writer of a version wins and the audit chain stays linear', async () => {
    const url = await cluster.createDatabase();
    const [a, b] = await Promise.all([openPostgresStore({ url, migrate: true }), openPostgresStore({ url, migrate: true })]);
    try {
      await a.createAccount({ Id: 'acc-1', Name: 'Acme', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'k'.repeat(64), CreatedDateTime: '2026-11-21T10:00:00.000+00:00' });
      const tx = await racingRounds([a, b, a, b], await a.commit({ transaction: makeTransaction(), expectedVersion: 0 }), { readFirst: false });
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

  it('two stores committing after reading the same version (one statement each): one wins, the chain stays linear', async () => {
    const url = await cluster.createDatabase();
    const [a, b] = await Promise.all([openPostgresStore({ url, migrate: true }), openPostgresStore({ url, migrate: true })]);
    try {
      await a.createAccount({ Id: 'acc-1', Name: 'Acme', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'k'.repeat(64), CreatedDateTime: '2026-11-21T10:00:00.000+00:00' });
      const first = await a.commit({ transaction: makeTransaction(), expectedVersion: 0, audit: [{ at: T0, type: 'transaction.cancelled', actor: 'api', data: { reason: 'first' } }] });
      // Every writer reads first, so each knows the last entry; the losers' statements must write nothing at all.
      const tx = await racingRounds([a, b, a, b], first, { readFirst: true });
      const entries = await b.listAuditEntries(tx.Id);
      expect(verifyAuditLog(entries)).toMatchObject({ ok: true, count: 11 });
      // Exactly the winners' outbox rows, one per round, in round order.
      const claimed = await a.claimDue(T0, 100, 60_000);
      const reasons = entries.slice(1).map((e) => (e.data as { reason: string }).reason);
      expect(claimed.map((m) => m.payload)).toEqual(reasons);
      expect((await a.getTransaction(tx.Id))?.Reference).toBe(reasons.at(-1));
    } finally {
      await Promise.all([a.close(), b.close()]);
      await cluster.dropDatabase(url);
    }
  });

  it('stores content larger than one chunk in chunks, and nothing of a stream that fails after its first chunk', async () => {
    const url = await cluster.createDatabase();
    const store = await openPostgresStore({ url, migrate: true });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const whole = Buffer.alloc(3 * CHUNK_BYTES + 1);
      for (let i = 0; i < whole.length; i++) whole[i] = (i * 31) % 251;
      async function* pieces(failAfter?: number) {
        for (let at = 0, n = 0; at < whole.length; at += 100_003, n++) {
          if (n === failAfter) throw new Error('connection reset');
          yield whole.subarray(at, at + 100_003);
        }
      }
      const sha256 = createHash('sha256').update(whole).digest('hex');
      await expect(store.blobs.write(pieces(5))).rejects.toThrow('connection reset');
      expect((await client.query('SELECT count(*)::int AS n FROM blob_chunks')).rows[0].n).toBe(0);
      const info = await store.blobs.write(pieces());
      expect(info).toMatchObject({ sha256, size: whole.length });
      const chunks = await client.query<{ n: number; size: number }>('SELECT n, length(bytes) AS size FROM blob_chunks WHERE blob_key = $1 ORDER BY n', [sha256]);
      expect(chunks.rows.length).toBe(3);
      expect(chunks.rows.reduce((sum, row) => sum + row.size, 0)).toBe(whole.length);
      expect(Buffer.from(await store.blobs.read(sha256)).equals(whole)).toBe(true);
      // The same content again: nothing new is stored, and no upload's chunks are left behind.
      expect(await store.blobs.write(whole)).toEqual(info);
      expect(await store.blobs.write(pieces())).toEqual(info);
      expect((await client.query('SELECT count(*)::int AS n FROM blob_chunks')).rows[0].n).toBe(3);
      // A chunk changed behind the store's back is detected on read.
      await client.query("UPDATE blob_chunks SET bytes = '\\x00' WHERE blob_key = $1 AND n = 2", [sha256]);
      await expect(store.blobs.read(sha256)).rejects.toMatchObject({ code: 'BLOB_CORRUPT' });
    } finally {
      await client.end();
      await store.close();
      await cluster.dropDatabase(url);
    }
  });

  it('upload slots shared by two stores: one claim of a slot at a time, none within the window after an accepted upload', async () => {
    const url = await cluster.createDatabase();
    const [a, b] = await Promise.all([openPostgresStore({ url, migrate: true }), openPostgresStore({ url, migrate: true })]);
    try {
      await a.createAccount({ Id: 'acc-1', Name: 'Acme', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'k'.repeat(64), CreatedDateTime: '2026-11-21T10:00:00.000+00:00' });
      const tx = await a.commit({ transaction: makeTransaction(), expectedVersion: 0 });
      const pdf = { transactionId: tx.Id, fileId: 'f', kind: 'pdf' as const };
      for (let round = 0; round < 5; round++) {
        const slot = { ...pdf, fileId: `f${round}` };
        const claims = await Promise.all([a, b, a, b].map((store, i) => store.uploadSlots.claim(slot, `c${i}`, 1000, 1000, 60_000)));
        expect(claims.filter(Boolean)).toHaveLength(1);
      }
      // Busy until released (or the lease ends); the other kind of the same file is another slot.
      expect(await a.uploadSlots.claim(pdf, 'one', 0, 1000, 60_000)).toBe(true);
      expect(await b.uploadSlots.claim(pdf, 'two', 10, 1000, 60_000)).toBe(false);
      expect(await b.uploadSlots.claim({ ...pdf, kind: 'metadata' }, 'meta', 10, 1000, 60_000)).toBe(true);
      await b.uploadSlots.release(pdf, 'two', true, 20); // not the holder: the slot stays taken
      expect(await b.uploadSlots.claim(pdf, 'three', 30, 0, 60_000)).toBe(false);
      await a.uploadSlots.release(pdf, 'one', true, 100);
      expect(await b.uploadSlots.claim(pdf, 'four', 1099, 1000, 60_000)).toBe(false);
      expect(await b.uploadSlots.claim(pdf, 'five', 1100, 1000, 60_000)).toBe(true);
      // A failed upload does not start the window; a holder that never releases loses the slot when its lease ends.
      await b.uploadSlots.release(pdf, 'five', false, 1200);
      expect(await a.uploadSlots.claim(pdf, 'six', 1201, 1000, 60_000)).toBe(true);
      expect(await b.uploadSlots.claim(pdf, 'seven', 61_200, 1000, 60_000)).toBe(false);
      expect(await b.uploadSlots.claim(pdf, 'eight', 61_201, 1000, 60_000)).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await cluster.dropDatabase(url);
    }
  });

  it('a live upload keeps its slot past the lease by renewing it; a dead one loses it when the lease ends', async () => {
    const url = await cluster.createDatabase();
    const [a, b] = await Promise.all([openPostgresStore({ url, migrate: true }), openPostgresStore({ url, migrate: true })]);
    try {
      await a.createAccount({ Id: 'acc-1', Name: 'Acme', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'k'.repeat(64), CreatedDateTime: '2026-11-21T10:00:00.000+00:00' });
      const tx = await a.commit({ transaction: makeTransaction(), expectedVersion: 0 });
      let claims = 0;
      const onA = new SharedUploadGuard(a.uploadSlots, 0, () => `a${claims++}`, 300);
      const onB = new SharedUploadGuard(b.uploadSlots, 0, () => `b${claims++}`, 300);
      // A slow upload on A: three lease times later, B is still refused.
      const now = () => Date.now();
      const release = await onA.begin(tx.Id, 'slow.pdf', 'pdf', now());
      await new Promise((resolve) => setTimeout(resolve, 900));
      await expect(onB.begin(tx.Id, 'slow.pdf', 'pdf', now())).rejects.toMatchObject({ code: 'UPLOAD_CONFLICT' });
      await release(true, now());
      await (await onB.begin(tx.Id, 'slow.pdf', 'pdf', now()))(true, now());
      // A process that died while receiving: its claim is never renewed nor released.
      expect(await a.uploadSlots.claim({ transactionId: tx.Id, fileId: 'dead.pdf', kind: 'pdf' }, 'dead', now(), 0, 300)).toBe(true);
      await expect(onB.begin(tx.Id, 'dead.pdf', 'pdf', now())).rejects.toMatchObject({ code: 'UPLOAD_CONFLICT' });
      await new Promise((resolve) => setTimeout(resolve, 350));
      await (await onB.begin(tx.Id, 'dead.pdf', 'pdf', now()))(true, now());
    } finally {
      await Promise.all([a.close(), b.close()]);
      await cluster.dropDatabase(url);
    }
  });
});
