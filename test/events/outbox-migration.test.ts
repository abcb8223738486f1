/**
 * Migration 2 of the SQLite store: a data directory written before it (outbox without attempts and first
 * due dates) opens with its pending rows intact, their first due date taken from their due date, so the 72-hour
 * retry window still counts from when they were queued.
 */
import { openSqliteDatabase } from '../../src/store/sqlite-driver.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { at, makeTransaction } from '../store/transaction-fixtures.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('outbox migration 2', () => {
  it('keeps pending rows of a version-1 database and backfills their first due date', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paraph-migrate-'));
    dirs.push(dir);
    const store = await openSqliteStore({ dataDir: dir });
    await store.createAccount({ Id: 'acc-1', Name: 'A', UserTokenHash: 'u', AppKeyHash: 'k', CreatedDateTime: '2026-11-21T10:00:00.000+00:00' });
    await store.close();
    // Turn the database back into version 1, then queue a row as version 1 did.
    const raw = openSqliteDatabase(join(dir, 'paraph.db'));
    raw.exec(`DELETE FROM migrations WHERE version = 2; DROP TABLE outbox_attempts; ALTER TABLE outbox DROP COLUMN first_due_at;`);
    const tx = makeTransaction();
    const { version: _v, ...body } = tx;
    raw.prepare('INSERT INTO transactions (id, account_id, version, status, data) VALUES (?, ?, 1, 5, ?)').run(tx.Id, 'acc-1', JSON.stringify(body));
    raw.prepare("INSERT INTO outbox (transaction_id, kind, payload, order_key, due_at) VALUES (?, 'postback', '{\"n\":1}', 'k', ?)").run(tx.Id, at(1).getTime());
    raw.close();

    const migrated = await openSqliteStore({ dataDir: dir });
    try {
      const [row] = await migrated.claimDue(at(2), 10, 60_000);
      expect(row).toMatchObject({ payload: { n: 1 }, attempts: 1 });
      expect(row!.firstDueAt.getTime()).toBe(at(1).getTime());
      await migrated.settleOutbox([{ attempt: { outboxId: row!.id, attempt: 1, at: at(2), outcome: 'delivered', responseCode: 200 } }]);
      expect(await migrated.listAttempts(row!.id)).toHaveLength(1);
    } finally {
      await migrated.close();
    }
  });
});
