/**
 * The zero-config bootstrap account when processes start together on one empty PostgreSQL database: they
 * end up with one account, whose credentials exactly one of them reports for printing; a process that died between
 * electing the account's Id and creating it does not block the next start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOTSTRAP_ACCOUNT_SETTING, ensureBootstrapAccount } from '../../src/service/bootstrap-account.js';
import { sha256Hex } from '../../src/service/context.js';
import { migratePostgres, openPostgresStore, type PostgresStore } from '../../src/store/postgres-store.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

const clock = () => new Date('2026-11-26T10:00:00Z');

/** `n` stores (one pool each, as `n` processes would have) on a fresh migrated database. */
async function processes(n: number): Promise<{ stores: PostgresStore[]; dispose: () => Promise<void> }> {
  const url = await cluster.createDatabase();
  await migratePostgres(url);
  const stores = await Promise.all(Array.from({ length: n }, () => openPostgresStore({ url, maxConnections: 2 })));
  return {
    stores,
    async dispose() {
      for (const store of stores) await store.close();
      await cluster.dropDatabase(url);
    },
  };
}

describe('the bootstrap account on a shared empty database', () => {
  it('takes PARAPH_NOTIFICATION_EMAIL with generated keys, and a new one on a later start', async () => {
    const { stores, dispose } = await processes(1);
    try {
      const store = stores[0]!;
      const first = await ensureBootstrapAccount(store, { notificationEmail: 'first@example.com' }, clock);
      expect(first.created).toBeDefined();
      expect((await store.listAccounts())[0]!.NotificationEmail).toBe('first@example.com');
      await ensureBootstrapAccount(store, {}, clock);
      expect((await store.listAccounts())[0]!.NotificationEmail).toBe('first@example.com');
      await ensureBootstrapAccount(store, { notificationEmail: 'second@example.com' }, clock);
      const [account] = await store.listAccounts();
      expect(account!.NotificationEmail).toBe('second@example.com');
      expect(account!.PostbackSecret).toBe(first.created!.postbackSecret);
    } finally {
      await dispose();
    }
  }, 60_000);

  it('three processes ensuring it at the same moment create exactly one account and agree on it', async () => {
    for (let round = 0; round < 3; round++) {
      const { stores, dispose } = await processes(3);
      try {
        const ensured = await Promise.all(stores.map((store) => ensureBootstrapAccount(store, {}, clock)));
        const accounts = await stores[0]!.listAccounts();
        expect(accounts).toHaveLength(1);
        const [account] = accounts;
        expect(new Set(ensured.map((e) => e.accountId))).toEqual(new Set([account!.Id]));
        expect(await stores[0]!.getSetting(BOOTSTRAP_ACCOUNT_SETTING)).toBe(account!.Id);
        // Exactly one process reports the credentials, and they are the account's.
        const created = ensured.flatMap((e) => (e.created ? [e.created] : []));
        expect(created).toHaveLength(1);
        expect(account!.UserTokenHash).toBe(sha256Hex(created[0]!.userToken));
        expect(account!.AppKeyHash).toBe(sha256Hex(created[0]!.appKey));
        expect(account!.PostbackSecret).toBe(created[0]!.postbackSecret);
        expect(ensured.filter((e) => e.generatedSecret !== undefined || e.rotated)).toEqual([]);
        // A later start uses it.
        expect(await ensureBootstrapAccount(stores[1]!, {}, clock)).toEqual({ accountId: account!.Id, rotated: false });
      } finally {
        await dispose();
      }
    }
  }, 60_000);

  it('a configured postback secret given to every process is applied to the one account', async () => {
    const { stores, dispose } = await processes(2);
    try {
      const config = { postbackSecret: 'shared-secret-0123456789' };
      const ensured = await Promise.all(stores.map((store) => ensureBootstrapAccount(store, config, clock)));
      const accounts = await stores[0]!.listAccounts();
      expect(accounts.map((a) => a.PostbackSecret)).toEqual(['shared-secret-0123456789']);
      expect(ensured.filter((e) => e.created !== undefined)).toHaveLength(1);
      expect(ensured.every((e) => !e.rotated && e.generatedSecret === undefined)).toBe(true);
    } finally {
      await dispose();
    }
  }, 60_000);

  it('creates the elected account itself when the process that won the election died before creating it', async () => {
    const { stores, dispose } = await processes(1);
    try {
      const store = stores[0]!;
      await store.putSettingIfAbsent(BOOTSTRAP_ACCOUNT_SETTING, 'elected-by-a-dead-process');
      const ensured = await ensureBootstrapAccount(store, {}, clock);
      expect(ensured.accountId).toBe('elected-by-a-dead-process');
      expect(ensured.created).toBeDefined();
      expect((await store.listAccounts()).map((a) => a.Id)).toEqual(['elected-by-a-dead-process']);
    } finally {
      await dispose();
    }
  }, 60_000);
});
