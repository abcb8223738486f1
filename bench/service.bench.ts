/**
 * Transaction service benchmark (issue 5): the embedded service (SQLite store, RSA seal as in production) on
 * 127.0.0.1 in this process, loaded with autocannon and a fetch client.
 * - GET /api/transaction/{id}: requests/s and p99 latency (autocannon, 10 connections, 10 s).
 * - Seal-only transactions (create + upload + start, which seals and builds the sealed receipt), completed per second
 *   with 4 clients in parallel, for a 1-page and a 100-page PDF.
 * - RSS over many seal-only transactions (default 2,000; `SERVICE_BENCH_TX=10000 npm run bench -- service`).
 * Targets (issue 5, 2 cores): GET ≥ 3,000 req/s with p99 < 20 ms; ≥ 20 seal-only transactions/s (1 page); memory flat.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { benchPdf } from './gen-pdf.js';
import { fmt, printTable } from './lib.js';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const USER = 'bench-user-token';
const APP = 'bench-app-key';
const HEADERS = { authorization: `APIKey ${USER}`, application: `APPKey ${APP}` };

async function sealOnly(url: string, pdf: Uint8Array): Promise<void> {
  const created = await fetch(`${url}/api/transaction`, {
    method: 'POST',
    headers: { ...HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({ Seal: true }),
  });
  if (created.status !== 200) throw new Error(`create: ${created.status} ${await created.text()}`);
  const { Id } = (await created.json()) as { Id: string };
  const upload = await fetch(`${url}/api/transaction/${Id}/file/doc.pdf`, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/pdf' }, body: pdf });
  if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
  const start = await fetch(`${url}/api/transaction/${Id}/start`, { method: 'PUT', headers: HEADERS });
  if (start.status !== 204) throw new Error(`start: ${start.status} ${await start.text()}`);
}

/** Runs `count` seal-only transactions with `clients` in parallel; returns transactions per second. */
async function sealOnlyRate(url: string, pdf: Uint8Array, count: number, clients: number, onDone?: (n: number) => void): Promise<number> {
  let next = 0;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) {
        next++;
        await sealOnly(url, pdf);
        onDone?.(++done);
      }
    }),
  );
  return (count / (performance.now() - started)) * 1000;
}

function rssMb(): number {
  return process.memoryUsage().rss / 1024 / 1024;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paraph-bench-'));
  let server: RunningServer | undefined;
  try {
    const config = loadConfig({
      env: { PORT: '0', PARAPH_DATA_DIR: dataDir, PARAPH_USER_TOKEN: USER, PARAPH_APP_KEY: APP, PARAPH_FILE_REPLACE_GUARD_MS: '0', PARAPH_LOG_LEVEL: 'silent' },
    });
    server = await startServer(config, { logger: false, worker: false });
    const url = server.url;
    const onePage = new Uint8Array(readFileSync(await benchPdf(1)));
    const hundred = new Uint8Array(readFileSync(await benchPdf(100)));

    // Warm up (JIT, SQLite caches, pdf.js load).
    await sealOnlyRate(url, onePage, 10, 2);

    const created = await fetch(`${url}/api/transaction`, { method: 'POST', headers: { ...HEADERS, 'content-type': 'application/json' }, body: JSON.stringify({ Seal: true, Signers: [{ Email: 'a@example.com' }, { Email: 'b@example.com' }] }) });
    const { Id } = (await created.json()) as { Id: string };
    await fetch(`${url}/api/transaction/${Id}/file/doc.pdf`, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/pdf' }, body: onePage });
    const get = await autocannon({ url: `${url}/api/transaction/${Id}`, connections: 10, duration: 10, headers: HEADERS });
    printTable('Service: GET /api/transaction/{id} (autocannon, 10 connections, 10 s, in-process)', ['req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'target'], [
      [fmt(get.requests.average, 0), fmt(get.latency.p50), fmt(get.latency.p99), String(get.non2xx), String(get.errors), '≥ 3,000 req/s, p99 < 20 ms'],
    ]);

    const rate1 = await sealOnlyRate(url, onePage, 200, 4);
    const rate100 = await sealOnlyRate(url, hundred, 20, 4);
    printTable('Service: seal-only transactions (create + upload + start → sealed, receipt), 4 clients', ['PDF', 'transactions/s', 'target'], [
      [`1 page (${fmt(onePage.length / 1024)} KiB)`, fmt(rate1), '≥ 20/s'],
      [`100 pages (${fmt(hundred.length / 1024)} KiB)`, fmt(rate100), '–'],
    ]);

    const total = Number(process.env.SERVICE_BENCH_TX ?? 2000);
    const checkpoints = new Map<number, number>();
    const every = Math.max(1, Math.floor(total / 5));
    const rate = await sealOnlyRate(url, onePage, total, 4, (n) => {
      if (n % every === 0) checkpoints.set(n, rssMb());
    });
    const rows = [...checkpoints].map(([n, rss]) => [String(n), fmt(rss)]);
    printTable(`Service: RSS over ${total} seal-only transactions (${fmt(rate)}/s)`, ['transactions', 'RSS MB'], rows);
  } finally {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
