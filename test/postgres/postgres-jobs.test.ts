/**
 * Jobs on PostgreSQL (docs/design/events.md#postbacks, docs/design/storage.md#jobs) run on graphile-worker: postbacks
 * of two servers sharing a database go out once each and in order per URL; a failed postback holds back the later ones
 * of its URL until its retry; the jobs a dead process left locked run elsewhere once its heartbeat is stale; rows
 * pending before the job engine existed (schema 3) get their jobs when the schema is migrated; and the timers run as a
 * job.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPool } from '../../src/store/postgres-store.js';
import { applyPostgresMigrations, installJobSchema, POSTGRES_MIGRATIONS } from '../../src/store/postgres-migrations.js';
import { collectEmptyOutboxQueues } from '../../src/store/postgres-job-tables.js';
import { AUTH_HEADERS as AUTH, startTestService, type TestService } from '../helpers/service-harness.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

const MASTER_KEY = Buffer.alloc(32, 5).toString('base64');

interface Received {
  readonly path: string;
  readonly id: string;
  readonly status: number;
  readonly deliveryId: string | undefined;
  readonly answered: number;
}

let cluster: PgCluster;
let dataDir: string;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
/** Paths whose next request is answered 500 (once each). */
const failNext = new Set<string>();
/** Paths whose next request is never answered. */
const hangNext = new Set<string>();

beforeAll(async () => {
  cluster = await startPgCluster();
  dataDir = mkdtempSync(join(tmpdir(), 'paraph-pg-jobs-'));
  receiver = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const path = request.url ?? '/';
      if (hangNext.delete(path)) return; // never answered: the sender's connection stays open until it gives up
      const answered = failNext.delete(path) ? 500 : 200;
      const parsed = JSON.parse(body) as { Id: string; Status: number };
      const deliveryId = request.headers['x-paraph-delivery-id'];
      received.push({ path, id: parsed.Id, status: parsed.Status, deliveryId: typeof deliveryId === 'string' ? deliveryId : undefined, answered });
      response.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A service in this process on the database `url` with its workers running, on the system clock (graphile-worker and
 * the database run in real time) or `now`.
 */
function start(url: string, extra: Record<string, string> = {}, now: () => Date = () => new Date()): Promise<TestService> {
  return startTestService({
    dataDir,
    postgres: { url, masterKey: MASTER_KEY },
    worker: true,
    now,
    env: {
      PARAPH_POSTBACK_ALLOW_HTTP: '1',
      PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.0/8',
      PARAPH_MAIL_DIR: join(dataDir, 'mail'),
      PARAPH_WORKER_INTERVAL_MS: '200',
      ...extra,
    },
  });
}

async function onePagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('contract', { x: 50, y: 700 });
  return doc.save();
}

/** Creates, uploads and starts a seal-only transaction (statuses 5 → 30), each request on a server of `servers`. */
async function sealOnly(servers: readonly TestService[], postbackPath: string, pdf: Uint8Array): Promise<string> {
  const at = (i: number): string => (servers[i % servers.length] as TestService).url;
  const created = await fetch(`${at(0)}/api/transaction`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ Seal: true, PostbackUrl: `${receiverUrl}${postbackPath}` }),
  });
  expect(created.status).toBe(200);
  const { Id } = (await created.json()) as { Id: string };
  const upload = await fetch(`${at(1)}/api/transaction/${Id}/file/contract.pdf`, { method: 'PUT', headers: { ...AUTH, 'content-type': 'application/pdf' }, body: pdf });
  expect(upload.status).toBe(201);
  const started = await fetch(`${at(2)}/api/transaction/${Id}/start`, { method: 'PUT', headers: AUTH });
  expect(started.status).toBe(204);
  return Id;
}

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The statuses each transaction's 2xx-answered postbacks reported, in the order they arrived. */
function statusesById(path: string): Map<string, number[]> {
  const byId = new Map<string, number[]>();
  for (const r of received) if (r.path === path && r.answered === 200) byId.set(r.id, [...(byId.get(r.id) ?? []), r.status]);
  return byId;
}

async function withServers<T>(
  count: number,
  url: string,
  extra: Record<string, string>,
  work: (servers: TestService[]) => Promise<T>,
  clock?: () => Date,
): Promise<T> {
  const servers: TestService[] = [];
  try {
    for (let i = 0; i < count; i++) {
      servers.push(await start(url, { PARAPH_MIGRATE: '1', ...extra }, clock));
    }
    await until('the job runners', () => servers.every((s) => s.server.service.workersRunning));
    return await work(servers);
  } finally {
    for (const server of servers) await server.stop();
  }
}

describe('jobs on PostgreSQL (graphile-worker)', () => {
  it('two servers deliver every postback once, in order per URL, whichever server committed it', async () => {
    const url = await cluster.createDatabase();
    const pdf = await onePagePdf();
    await withServers(2, url, {}, async (servers) => {
      const ids = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => sealOnly(servers, `/order-${i % 2}`, pdf)));
      await until('every postback', () => ids.every((id) => received.some((r) => r.id === id && r.status === 30 && r.answered === 200)));
      for (const path of ['/order-0', '/order-1']) {
        for (const [, statuses] of statusesById(path)) expect(statuses).toEqual([...statuses].sort((a, b) => a - b));
      }
      for (const id of ids) {
        const mine = received.filter((r) => r.id === id);
        // Each status change is sent once (a seal-only start goes from 5 to 30 in one change).
        expect(new Set(mine.map((r) => r.deliveryId)).size).toBe(mine.length);
        expect(mine.map((r) => r.status)).toEqual([...new Set(mine.map((r) => r.status))]);
      }
    });
  }, 120_000);

  it('a failed postback holds the later ones of its URL back until its retry, then they follow in order', async () => {
    const url = await cluster.createDatabase();
    const pdf = await onePagePdf();
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await withServers(1, url, {}, async (servers) => {
        failNext.add('/retry');
        const first = await sealOnly(servers, '/retry', pdf);
        const second = await sealOnly(servers, '/retry', pdf);
        await until('the failed first attempt', () => received.some((r) => r.path === '/retry' && r.answered === 500));
        const failed = received.find((r) => r.path === '/retry' && r.answered === 500) as Received;
        // The retry waits 15–30 s; nothing else of the URL may go out meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(received.filter((r) => r.path === '/retry')).toHaveLength(1);
        await admin.query("UPDATE graphile_worker._private_jobs SET run_at = now() WHERE key LIKE 'paraph:key:%' AND locked_at IS NULL");
        await admin.query("UPDATE outbox SET due_at = 0 WHERE status = 'pending'");
        await until('the retried and the held postbacks', () => [first, second].every((id) => received.some((r) => r.id === id && r.status === 30 && r.answered === 200)));
        const delivered = received.filter((r) => r.path === '/retry' && r.answered === 200);
        expect(delivered[0]).toMatchObject({ id: failed.id, status: failed.status, deliveryId: failed.deliveryId });
        expect(delivered.map((r) => `${r.id}:${r.status}`)).toEqual([`${first}:30`, `${second}:30`]);
      });
    } finally {
      await admin.end();
    }
  }, 120_000);

  /** A seal-only transaction committed by a server whose workers are stopped: its postback job waits, unlocked. */
  async function sealOnlyUndelivered(url: string, path: string, pdf: Uint8Array): Promise<string> {
    let id = '';
    await withServers(1, url, { PARAPH_OUTBOX_LEASE_MS: '1000' }, async (servers) => {
      await (servers[0] as TestService).server.service.stopWorkers();
      id = await sealOnly(servers, path, pdf);
    });
    return id;
  }

  it('the jobs a dead process left locked run elsewhere once its heartbeat is older than the lease', async () => {
    const url = await cluster.createDatabase();
    const pdf = await onePagePdf();
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const id = await sealOnlyUndelivered(url, '/dead', pdf);
      // A process that took the jobs, beat once and died.
      await admin.query("UPDATE graphile_worker._private_jobs SET locked_by = 'pool-dead', locked_at = now()");
      await admin.query("INSERT INTO job_nodes (pool_id, heartbeat_at) VALUES ('pool-dead', (extract(epoch FROM now()) * 1000)::bigint)");
      await withServers(1, url, { PARAPH_OUTBOX_LEASE_MS: '1000' }, async () => {
        await until('the dead process\'s postbacks', () => received.some((r) => r.id === id && r.status === 30 && r.answered === 200), 20_000);
        const { rows } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM job_nodes WHERE pool_id = 'pool-dead'");
        expect(Number(rows[0]?.n)).toBe(0);
      });
    } finally {
      await admin.end();
    }
  }, 120_000);

  it('jobs locked by a process that died before its first heartbeat run elsewhere once the lock is older than the lease', async () => {
    const url = await cluster.createDatabase();
    const pdf = await onePagePdf();
    const admin = openPool(url, 1);
    try {
      const id = await sealOnlyUndelivered(url, '/unbeaten', pdf);
      // Locked by a pool that never wrote a heartbeat.
      await admin.query("UPDATE graphile_worker._private_jobs SET locked_by = 'pool-unbeaten', locked_at = now()");
      await withServers(1, url, { PARAPH_OUTBOX_LEASE_MS: '1000' }, async () => {
        await until("the unbeaten process's postbacks", () => received.some((r) => r.id === id && r.status === 30 && r.answered === 200), 20_000);
      });
    } finally {
      await admin.end();
    }
  }, 120_000);

  it('a stopping server interrupts the postback it is waiting for and hands the job back to the other server', async () => {
    const url = await cluster.createDatabase();
    const pdf = await onePagePdf();
    const admin = openPool(url, 1);
    try {
      const first = await start(url, { PARAPH_MIGRATE: '1' });
      let second: TestService | undefined;
      try {
        await until('the first job runner', () => first.server.service.workersRunning);
        hangNext.add('/hang');
        const id = await sealOnly([first], '/hang', pdf);
        await until('the postback in flight', async () => {
          const { rows } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM outbox WHERE attempts > 0 AND status = 'pending'");
          return Number(rows[0]?.n) === 1;
        });
        second = await start(url);
        const stopping = Date.now();
        await first.stop();
        // graphile-worker's grace time is 5 s; the postback timeout (30 s) is not waited for.
        expect(Date.now() - stopping).toBeLessThan(15_000);
        const attempts = await admin.query<{ outcome: string; detail: string }>(
          "SELECT a.outcome, a.detail FROM outbox_attempts a JOIN outbox o ON o.id = a.outbox_id WHERE o.kind = 'postback' ORDER BY a.id",
        );
        expect(attempts.rows).toEqual([{ outcome: 'retry', detail: expect.stringMatching(/interrupted/) as unknown as string }]);
        // The retry is due in 15–30 s: bring it forward, as the clock would.
        await admin.query("UPDATE outbox SET due_at = 0 WHERE status = 'pending'");
        await admin.query("UPDATE graphile_worker._private_jobs SET run_at = now() WHERE key LIKE 'paraph:key:%'");
        await until('the postback from the other server', () => received.some((r) => r.id === id && r.status === 30 && r.answered === 200));
      } finally {
        await first.stop();
        await second?.stop();
      }
    } finally {
      await admin.end();
    }
  }, 120_000);

  it('the timers run as a job: a transaction whose DaysToExpire passed expires', async () => {
    const url = await cluster.createDatabase();
    const pdf = await onePagePdf();
    let offsetMs = 0;
    await withServers(
      2,
      url,
      {},
      async (servers) => {
        const [a, b] = servers as [TestService, TestService];
        const created = await fetch(`${a.url}/api/transaction`, {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/json' },
          body: JSON.stringify({ DaysToExpire: 1, Signers: [{ SendSignRequest: false, Email: 'signer@example.com' }] }),
        });
        const { Id } = (await created.json()) as { Id: string };
        await fetch(`${b.url}/api/transaction/${Id}/file/contract.pdf`, { method: 'PUT', headers: { ...AUTH, 'content-type': 'application/pdf' }, body: pdf });
        expect((await fetch(`${a.url}/api/transaction/${Id}/start`, { method: 'PUT', headers: AUTH })).status).toBe(204);
        offsetMs = 2 * 86_400_000;
        await until('the expiry', async () => {
          const tx = (await (await fetch(`${b.url}/api/transaction/${Id}`, { headers: AUTH })).json()) as { Status: number };
          return tx.Status === 50;
        });
      },
      () => new Date(Date.now() + offsetMs),
    );
  }, 120_000);

  it('collecting empty queues leaves them while a commit may be adding a job to one (that job keeps its queue and can run)', async () => {
    const url = await cluster.createDatabase();
    const pool = await migratedWithTransaction(url, POSTGRES_MIGRATIONS);
    const key = 'postback:https://a.example/';
    try {
      // The URL's earlier postback was delivered: its job is gone, its queue stays behind, empty.
      await insertOutboxRow(pool, key);
      await pool.query('DELETE FROM graphile_worker._private_jobs');
      const writer = await pool.connect();
      try {
        await writer.query('BEGIN');
        await insertOutboxRow(writer, key);
        expect(await collectEmptyOutboxQueues(pool)).toBe(0);
        await writer.query('COMMIT');
      } finally {
        writer.release();
      }
      expect(await queueOfJob(pool, `paraph:key:${key}`)).toBe(`paraph:key:${key}`);
      await pool.query('DELETE FROM graphile_worker._private_jobs');
      expect(await collectEmptyOutboxQueues(pool)).toBe(1);
    } finally {
      await pool.end();
    }
  }, 60_000);

  it('migrating to schema 6 gives a job whose queue was collected under it its queue back', async () => {
    const url = await cluster.createDatabase();
    const pool = await migratedWithTransaction(url, POSTGRES_MIGRATIONS.filter((m) => m.version <= 5));
    const key = 'postback:https://b.example/';
    try {
      await insertOutboxRow(pool, key);
      // What graphile-worker's GC_JOB_QUEUES left when it raced a commit: a job naming a deleted queue.
      await pool.query('DELETE FROM graphile_worker._private_job_queues');
      expect(await queueOfJob(pool, `paraph:key:${key}`)).toBeNull();
      const client = await pool.connect();
      try {
        await applyPostgresMigrations(client);
      } finally {
        client.release();
      }
      expect(await queueOfJob(pool, `paraph:key:${key}`)).toBe(`paraph:key:${key}`);
    } finally {
      await pool.end();
    }
  }, 60_000);

  it('migrating from schema 3 gives the rows pending then their jobs', async () => {
    const url = await cluster.createDatabase();
    const pool = openPool(url, 1);
    try {
      const client = await pool.connect();
      try {
        await applyPostgresMigrations(client, POSTGRES_MIGRATIONS.filter((m) => m.version <= 3));
        await client.query("INSERT INTO accounts (id, user_token_hash, app_key_hash, data) VALUES ('a', 'u', 'k', '{}')");
        await client.query("INSERT INTO transactions (id, account_id, version, status, data) VALUES ('t', 'a', 1, 10, '{}')");
        for (const [key, due] of [['postback:https://a.example/', 5], ['postback:https://a.example/', 7], [null, 9]] as const) {
          await client.query("INSERT INTO outbox (transaction_id, kind, payload, order_key, due_at, first_due_at) VALUES ('t', 'postback', '{}', $1, $2, $2)", [key, due]);
        }
      } finally {
        client.release();
      }
      await installJobSchema(pool);
      const client2 = await pool.connect();
      try {
        expect(await applyPostgresMigrations(client2)).toEqual(POSTGRES_MIGRATIONS.filter((m) => m.version > 3).map((m) => m.version));
      } finally {
        client2.release();
      }
      const { rows } = await pool.query<{ key: string; queue_name: string | null }>(
        "SELECT key, queue_name FROM graphile_worker.jobs WHERE task_identifier = 'paraph_outbox' ORDER BY key",
      );
      expect(rows).toEqual([
        { key: 'paraph:key:postback:https://a.example/', queue_name: 'paraph:key:postback:https://a.example/' },
        { key: expect.stringMatching(/^paraph:row:\d+$/) as unknown as string, queue_name: null },
      ]);
    } finally {
      await pool.end();
    }
  }, 60_000);
});

/** A database with the job engine's schema, `migrations` applied, and an account with one transaction ('t'). */
async function migratedWithTransaction(url: string, migrations: typeof POSTGRES_MIGRATIONS): Promise<pg.Pool> {
  const pool = openPool(url, 3);
  await installJobSchema(pool);
  const client = await pool.connect();
  try {
    await applyPostgresMigrations(client, migrations);
    await client.query("INSERT INTO accounts (id, user_token_hash, app_key_hash, data) VALUES ('a', 'u', 'k', '{}')");
    await client.query("INSERT INTO transactions (id, account_id, version, status, data) VALUES ('t', 'a', 1, 10, '{}')");
  } finally {
    client.release();
  }
  return pool;
}

async function insertOutboxRow(db: Pick<pg.Pool, 'query'>, orderKey: string): Promise<void> {
  await db.query("INSERT INTO outbox (transaction_id, kind, payload, order_key, due_at, first_due_at) VALUES ('t', 'postback', '{}', $1, 1, 1)", [orderKey]);
}

/** The queue graphile-worker's view names for the job `jobKey` (null: none, or one that no longer exists). */
async function queueOfJob(db: Pick<pg.Pool, 'query'>, jobKey: string): Promise<string | null | undefined> {
  const { rows } = await db.query<{ queue_name: string | null }>('SELECT queue_name FROM graphile_worker.jobs WHERE key = $1', [jobKey]);
  return rows[0]?.queue_name;
}
