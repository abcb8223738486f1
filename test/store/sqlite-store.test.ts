import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase, type SqliteDatabase } from '../../src/store/sqlite-driver.js';
import { usableSqliteDrivers } from '../helpers/sqlite-drivers.js';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { verifyAuditLog } from '../../src/receipt/audit-log.js';
import { describeStore } from './store-suite.js';
import { makeTransaction } from './transaction-fixtures.js';
import { strayFiles } from './stray-files.js';
import { TSX_LOADER } from '../helpers/tsx.js';

for (const driver of usableSqliteDrivers()) {
  describeStore(`sqlite (${driver})`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paraph-store-'));
    let store: Store = await openSqliteStore({ dataDir: dir, driver });
    return {
      get store() {
        return store;
      },
      async reopen() {
        await store.close();
        store = await openSqliteStore({ dataDir: dir, driver });
        return store;
      },
      strayFiles: () => strayFiles(dir),
      async cleanup() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}

describe('SQLite store specifics', () => {
  it('fills the storage column of a database written before it from the stored transactions (migration 5)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paraph-store-'));
    try {
      const store = await openSqliteStore({ dataDir: dir });
      await store.createAccount({ Id: 'acc-1', Name: 'Acme', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'k'.repeat(64), CreatedDateTime: '2026-11-21T10:00:00.000+00:00' });
      const pdf = await store.blobs.write(new Uint8Array(1234));
      const meta = await store.blobs.write(new Uint8Array(56).fill(7));
      const tx = makeTransaction();
      tx.Files.push({ FileId: 'a.pdf', Original: { ...pdf, pages: 1 }, MetadataBlob: meta });
      await store.commit({ transaction: tx, expectedVersion: 0 });
      await store.close();
      // The database as the version before wrote it: no column, no index, migration 5 not applied.
      const db = openSqliteDatabase(join(dir, 'paraph.db'));
      db.exec('DROP INDEX transactions_account_storage; ALTER TABLE transactions DROP COLUMN storage_bytes; DELETE FROM migrations WHERE version = 5');
      db.close();
      const reopened = await openSqliteStore({ dataDir: dir });
      expect(await reopened.accountStorageBytes('acc-1')).toBe(1234 + 56);
      await reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('applies numbered migrations once, in WAL mode with foreign keys and synchronous=FULL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paraph-store-'));
    try {
      await (await openSqliteStore({ dataDir: dir })).close();
      await (await openSqliteStore({ dataDir: dir })).close();
      const db = openSqliteDatabase(join(dir, 'paraph.db'));
      expect(db.prepare('SELECT version FROM migrations').all()).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 5 }, { version: 6 }]);
      expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      db.close();
      const store = await openSqliteStore({ dataDir: dir });
      // Foreign keys: a transaction of an unknown account is refused.
      const { makeTransaction } = await import('./transaction-fixtures.js');
      await expect(store.commit({ transaction: makeTransaction(undefined, { accountId: 'ghost' }), expectedVersion: 0 })).rejects.toThrow(/FOREIGN KEY/);
      await store.close();
      await expect(store.getTransaction('x')).rejects.toThrow('The store is closed.');
      // synchronous is a per-connection setting: read it through the store's own connection.
      const full = await openSqliteStore({ dataDir: dir });
      expect((full as unknown as { db: SqliteDatabase }).db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 2 });
      await full.close();
      const normal = await openSqliteStore({ dataDir: dir, synchronous: 'NORMAL' });
      expect((normal as unknown as { db: SqliteDatabase }).db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
      await normal.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes temporary files a crashed writer left, and keeps blobs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paraph-store-'));
    try {
      const store = await openSqliteStore({ dataDir: dir });
      const blob = await store.blobs.write(new Uint8Array([1, 2, 3]));
      await store.close();
      mkdirSync(join(dir, 'blobs', 'tmp'), { recursive: true });
      writeFileSync(join(dir, 'blobs', 'tmp', 'abc.part'), 'half');
      const reopened = await openSqliteStore({ dataDir: dir });
      expect(strayFiles(dir)).toEqual([]);
      expect(await reopened.blobs.exists(blob.sha256)).toBe(true);
      await expect(reopened.blobs.read('../../paraph.db')).rejects.toThrow(/is not a blob id/);
      await reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loses no update when two processes write the same transaction concurrently', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paraph-store-'));
    try {
      const store = await openSqliteStore({ dataDir: dir });
      await store.createAccount({ Id: 'acc-1', Name: 'A', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'k'.repeat(64), CreatedDateTime: 'x' });
      await store.commit({ transaction: { ...makeTransaction(), Reference: '0' }, expectedVersion: 0 });
      await store.close();
      const child = join(import.meta.dirname, 'concurrent-child.ts');
      const run = () => promisify(execFile)(process.execPath, ['--import', TSX_LOADER, child, dir, 'tx-1', '30']);
      const outputs = await Promise.all([run(), run()]);
      console.log(`concurrent writers met ${outputs.map((o) => o.stdout.trim()).join(' and ')} conflicts`);
      const reopened = await openSqliteStore({ dataDir: dir });
      const tx = await reopened.getTransaction('tx-1');
      expect(tx?.Reference).toBe('60');
      expect(tx?.version).toBe(61);
      expect(verifyAuditLog(await reopened.listAuditEntries('tx-1'))).toMatchObject({ ok: true, count: 60 });
      await reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
