/**
 * Migration 3 of the SQLite store: a data directory written before it opens with the release timer of a
 * transaction already stuck at 20 under a signing hold (hold + 5 minutes, as a commit would write it); other
 * transactions get none.
 */
import { openSqliteDatabase, type SqliteDatabase } from '../../src/store/sqlite-driver.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatTime, transition, type Transaction } from '../../src/domain/transaction.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { at, makeTransaction, T0 } from './transaction-fixtures.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function insert(raw: SqliteDatabase, tx: Transaction): void {
  const { version: _v, ...body } = tx;
  raw.prepare('INSERT INTO transactions (id, account_id, version, status, data) VALUES (?, ?, 1, ?, ?)').run(tx.Id, 'acc-1', tx.Status, JSON.stringify(body));
}

describe('release migration 3', () => {
  it('gives a transaction held at 20 its release timer, and no other transaction one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paraph-migrate-'));
    dirs.push(dir);
    const store = await openSqliteStore({ dataDir: dir });
    await store.createAccount({ Id: 'acc-1', Name: 'A', UserTokenHash: 'u', AppKeyHash: 'k', CreatedDateTime: formatTime(T0) });
    await store.close();
    // Turn the database back into version 2, then write transactions as version 2 did (no release column).
    const raw = openSqliteDatabase(join(dir, 'paraph.db'));
    raw.exec('DELETE FROM migrations WHERE version = 3; DROP INDEX transactions_release; ALTER TABLE transactions DROP COLUMN release_at;');
    const file = { FileId: 'doc', Original: { sha256: 'a'.repeat(64), size: 10, pages: 1 } };
    const started = transition({ ...makeTransaction(), Files: [file] }, { type: 'start' }, at(1));
    const held = transition({ ...started, Id: 'held' }, { type: 'hold', signerId: 'Signer1' }, new Date(at(2).getTime() + 123));
    const sealing = transition({ ...makeTransaction({ Seal: true }), Id: 'sealing', Files: [file] }, { type: 'start' }, at(1));
    insert(raw, held);
    insert(raw, { ...started, Id: 'waiting' });
    insert(raw, sealing);
    raw.close();

    const migrated = await openSqliteStore({ dataDir: dir });
    try {
      const releaseAt = at(7).getTime() + 123;
      expect(await migrated.listDueTimers(new Date(releaseAt - 1), { retentionDays: 30 })).toEqual([]);
      expect(await migrated.listDueTimers(new Date(releaseAt), { retentionDays: 30 })).toEqual([{ transactionId: 'held', kind: 'release', at: new Date(releaseAt) }]);
    } finally {
      await migrated.close();
    }
  });
});
