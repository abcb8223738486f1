/**
 * The account rate quota across processes: the shared bucket hands out
 * no more tokens than it holds to leases racing from two connection pools, and two servers on one database together
 * accept one quota's worth of a burst (minus the documented slack of tokens leased but unspent), the rest 429 with
 * Retry-After.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseBatch } from '../../src/service/policies/account-rate-quota.js';
import { migratePostgres, openPostgresStore } from '../../src/store/postgres-store.js';
import { AUTH_HEADERS as AUTH, startTestService, type TestService } from '../helpers/service-harness.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

let cluster: PgCluster;
let dataDir: string;

beforeAll(async () => {
  cluster = await startPgCluster();
  dataDir = mkdtempSync(join(tmpdir(), 'paraph-pg-rate-'));
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the shared account rate quota on PostgreSQL', () => {
  it('hands out each token once to leases racing from two pools, refilled by the database clock', async () => {
    const url = await cluster.createDatabase();
    await migratePostgres(url);
    const stores = [await openPostgresStore({ url }), await openPostgresStore({ url })];
    try {
      const started = performance.now();
      const leases = await Promise.all(Array.from({ length: 80 }, (_, i) => stores[i % 2]!.rateBuckets.take('acct', 2, 60)));
      const elapsedSeconds = (performance.now() - started) / 1000;
      const taken = leases.reduce((sum, lease) => sum + lease.taken, 0);
      expect(taken).toBeGreaterThanOrEqual(60);
      // 60 a minute is one a second of refill while the leases ran.
      expect(taken).toBeLessThanOrEqual(60 + Math.ceil(elapsedSeconds));
      for (const lease of leases) {
        expect([0, 1, 2]).toContain(lease.taken);
        expect(lease.left).toBeGreaterThanOrEqual(0);
      }
      // Another account has its own, full bucket.
      expect(await stores[0]!.rateBuckets.take('other', 5, 60)).toEqual({ taken: 5, left: 55 });
    } finally {
      for (const store of stores) await store.close();
      await cluster.dropDatabase(url);
    }
  }, 60_000);

  it('two servers on one database accept one quota of a burst split over both, and answer the rest 429 with Retry-After', async () => {
    const url = await cluster.createDatabase();
    // The system clock: the shared bucket refills by the database's clock, in real time.
    const start = (env: Record<string, string>): Promise<TestService> =>
      startTestService({
        dataDir,
        postgres: { url, masterKey: Buffer.alloc(32, 9).toString('base64') },
        now: () => new Date(),
        env: { PARAPH_SMTP_URL: 'smtp://127.0.0.1:9', PARAPH_ACCOUNT_REQUESTS_PER_MINUTE: '60', ...env },
      });
    const servers: TestService[] = [];
    try {
      servers.push(await start({ PARAPH_MIGRATE: '1' }));
      servers.push(await start({}));
      const started = performance.now();
      const created = await fetch(`${servers[0]!.url}/api/transaction`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ Seal: true }),
      });
      expect(created.status).toBe(200);
      const { Id } = (await created.json()) as { Id: string };
      const answers: { status: number; retryAfter: string | null; body: unknown }[] = [];
      // 120 requests, alternating between the servers, ten at a time.
      for (let round = 0; round < 12; round++) {
        answers.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, async (_, i) => {
              const response = await fetch(`${servers[i % 2]!.url}/api/transaction/${Id}`, { headers: AUTH });
              return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as unknown };
            }),
          )),
        );
      }
      const elapsedSeconds = (performance.now() - started) / 1000;
      const accepted = answers.filter((a) => a.status !== 429);
      const refused = answers.filter((a) => a.status === 429);
      expect(new Set(accepted.map((a) => a.status))).toEqual(new Set([200]));
      // Slack: each server may hold up to batch - 1 leased tokens unspent when the other is refused; refill adds one
      // token a second.
      const slack = 2 * (leaseBatch(60) - 1);
      // The create took one token of the 60.
      expect(accepted.length).toBeGreaterThanOrEqual(59 - slack);
      expect(accepted.length).toBeLessThanOrEqual(59 + Math.ceil(elapsedSeconds));
      expect(refused.length).toBe(120 - accepted.length);
      for (const a of refused) {
        expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(a.body).toEqual({ Message: expect.stringMatching(/^Too many requests: this account may send 60 per minute/) });
      }
      // Each server refused some: the quota is not per process.
      for (const parity of [0, 1]) expect(answers.filter((a, i) => i % 2 === parity && a.status === 429).length).toBeGreaterThan(0);
      // Without the shared bucket each server would have accepted its 60 (all 120).
    } finally {
      for (const server of servers) await server.stop();
      await cluster.dropDatabase(url);
    }
  }, 120_000);
});
