/**
 * Outbox benchmark: the embedded service in this process (SQLite store, synchronous=FULL as in
 * production) and a node HTTP receiver on 127.0.0.1.
 * - Throughput: 10,000 postback rows (100 transactions × 100 rows, one URL per transaction, so per-URL ordering
 *   applies) and 1,000 rows to a single URL, delivered by the worker; deliveries per second.
 * - Latency: status change (DELETE → 60) to the postback's arrival, 300 times one after another; p50/p99.
 * - Reference in the same run: plain fetch POSTs from this process to the same receiver (rate and round trip).
 * Targets (2 cores): ≥ 500 deliveries/s; p99 < 200 ms with a healthy receiver.
 * `EVENTS_BENCH_ROWS=20000 npm run bench -- events` changes the row count.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import type { OutboxInput } from '../src/store/store.js';
import { fmt, printTable, quantile } from './lib.js';

const USER = 'bench-user-token';
const APP = 'bench-app-key';
const HEADERS = { authorization: `APIKey ${USER}`, application: `APPKey ${APP}` };

interface Receiver {
  url: string;
  count: number;
  onPostback?: (id: string) => void;
  server: Server;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', count: 0, server: createServer() };
  receiver.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.count++;
      res.writeHead(200).end();
      receiver.onPostback?.((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Id: string }).Id);
    });
  });
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as { port: number }).port}`;
  return receiver;
}

async function create(url: string, postbackUrl: string): Promise<string> {
  const response = await fetch(`${url}/api/transaction`, {
    method: 'POST',
    headers: { ...HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({ Seal: true, PostbackUrl: postbackUrl }),
  });
  if (response.status !== 200) throw new Error(`create: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { Id: string }).Id;
}

/** Enqueues `perTx` postback rows for each transaction (one commit per transaction) and times their delivery. */
async function throughput(server: RunningServer, receiver: Receiver, transactions: number, perTx: number, sameUrl: boolean): Promise<number> {
  const ids: string[] = [];
  for (let i = 0; i < transactions; i++) ids.push(await create(server.url, `${receiver.url}/${sameUrl ? 'one' : i}`));
  for (const id of ids) {
    const tx = await server.store.getTransaction(id);
    if (tx === undefined || tx.PostbackUrl === undefined) throw new Error('transaction missing');
    const rows: OutboxInput[] = Array.from({ length: perTx }, () => ({
      kind: 'postback',
      payload: { transactionId: id, status: 5, url: tx.PostbackUrl! },
      orderKey: `postback:${tx.PostbackUrl}`,
    }));
    await server.store.commit({ transaction: tx, expectedVersion: tx.version, outbox: rows });
  }
  const total = transactions * perTx;
  receiver.count = 0;
  const started = performance.now();
  server.events.start();
  while (receiver.count < total) await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - started) / 1000;
  await server.events.stop();
  return total / seconds;
}

async function latency(server: RunningServer, receiver: Receiver, samples: number): Promise<number[]> {
  server.events.start();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const id = await create(server.url, `${receiver.url}/latency`);
    const arrived = new Promise<number>((resolve) => {
      receiver.onPostback = (got) => {
        if (got === id) resolve(performance.now());
      };
    });
    const t0 = performance.now();
    const response = await fetch(`${server.url}/api/transaction/${id}`, { method: 'DELETE', headers: HEADERS });
    if (response.status !== 200) throw new Error(`delete: ${response.status}`);
    times.push((await arrived) - t0);
  }
  await server.events.stop();
  return times;
}

async function withServer<T>(run: (server: RunningServer) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paraph-events-bench-'));
  const config = loadConfig({
    env: { PORT: '0', PARAPH_DATA_DIR: dataDir, PARAPH_USER_TOKEN: USER, PARAPH_APP_KEY: APP, PARAPH_POSTBACK_SECRET: 'bench', PARAPH_LOG_LEVEL: 'silent',
      // The receiver listens on 127.0.0.1 over http, which the SSRF rules refuse by default.
      PARAPH_POSTBACK_ALLOW_HTTP: 'true', PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.0/8' },
  });
  const server = await startServer(config, { logger: false, worker: false, keyKind: 'ecdsa-p256' });
  try {
    return await run(server);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Reference: plain fetch POSTs of a postback-sized body from this process to the receiver, one after another (ms each). */
async function plainPostsMs(receiver: Receiver, count: number): Promise<number[]> {
  const body = JSON.stringify({ Id: 'reference', Status: 30, Checksum: 'x'.repeat(40) });
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const response = await fetch(`${receiver.url}/reference`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await response.arrayBuffer();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

const receiver = await startReceiver();
try {
  const rows = Number(process.env.EVENTS_BENCH_ROWS ?? 10_000);
  const many = await withServer((server) => throughput(server, receiver, 100, Math.ceil(rows / 100), false));
  const single = await withServer((server) => throughput(server, receiver, 1, 1000, true));
  const lat = (await withServer((server) => latency(server, receiver, 300))).sort((a, b) => a - b);
  const plain = await plainPostsMs(receiver, 1000);
  const plainPerSecond = 1000 / (plain.reduce((sum, ms) => sum + ms, 0) / plain.length);
  printTable(
    'Outbox (postbacks to a local receiver)',
    ['measure', 'value', 'plain fetch POSTs to the same receiver, sequential (ref)', 'target'],
    [
      [`${rows} rows over 100 URLs`, `${fmt(many)} deliveries/s`, `${fmt(plainPerSecond)} POSTs/s`, '≥ 500/s'],
      ['1,000 rows to one URL (in order)', `${fmt(single)} deliveries/s`, `${fmt(plainPerSecond)} POSTs/s`, '—'],
      ['status change → postback p50', `${fmt(quantile(lat, 0.5))} ms`, `${fmt(quantile(plain, 0.5))} ms round trip`, '—'],
      ['status change → postback p99', `${fmt(quantile(lat, 0.99))} ms`, `${fmt(quantile(plain, 0.99))} ms round trip`, '< 200 ms'],
    ],
  );
} finally {
  receiver.server.closeAllConnections();
  receiver.server.close();
}
