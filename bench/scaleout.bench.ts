/**
 * Scale-out benchmark (issue 17): real `paraph serve` processes (src/ compiled to JavaScript, run with plain node, as
 * in scaling.bench.ts) on one SQLite data directory (1 process) and on one throwaway PostgreSQL cluster (1, 2 and 3
 * processes, a fresh database each), all on this machine; the client sends each request to the next process in turn.
 * - Seal-only transactions (create with Seal: true and no signers + upload a 1-page PDF + start, which seals and builds
 *   the receipt, as in service.bench.ts; then a GET that must show Status 30), completed per second by 8 clients in
 *   parallel for a fixed time (SCALEOUT_BENCH_SECONDS, default 25), next to the SQLite process measured in this run.
 * - GET /api/transaction/{id}: requests/s and p50/p99 latency, one autocannon with 12 connections spread evenly over
 *   the processes (SERVICE_BENCH_SECONDS, default 10). Any non-2xx answer or error fails the run.
 * - Peak RSS (VmHWM) of every serve process, read just before it is stopped.
 * Goal (issue 17, 2 cores, reported, not asserted): PostgreSQL × 2 ≥ 1.5 × SQLite × 1 seal-only, GET p99 < 20 ms.
 * The client (fetch, autocannon) and PostgreSQL run on the same cores as the processes they measure.
 * `npx tsx bench/scaleout.bench.ts [--quick]`; needs PostgreSQL's initdb/pg_ctl (see test/postgres/pg-cluster.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPgCluster, type PgCluster } from '../test/postgres/pg-cluster.js';
import { benchPdf, compileSrc } from './gen-pdf.js';
import { fmt, printTable } from './lib.js';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const SEAL_SECONDS = Number(process.env.SCALEOUT_BENCH_SECONDS ?? (quick ? 5 : 25));
const GET_SECONDS = Number(process.env.SERVICE_BENCH_SECONDS ?? 10);
const SEAL_CLIENTS = 8;
const GET_CONNECTIONS = 12; // a multiple of 1, 2 and 3: every process gets the same share

const USER = 'bench-user-token';
const APP = 'bench-app-key';
const HEADERS = { authorization: `APIKey ${USER}`, application: `APPKey ${APP}` };
const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');

const dist = compileSrc();
// The compiled fonts module looks for assets/ next to its src/ directory.
if (!existsSync(join(dist, 'assets'))) symlinkSync(fileURLToPath(new URL('../assets', import.meta.url)), join(dist, 'assets'));
const CLI = join(dist, 'src', 'cli.js');

interface Serve {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
}

function serveEnv(dataDir: string, databaseUrl: string | undefined): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    PARAPH_DATA_DIR: dataDir,
    PARAPH_MAIL_DIR: join(dataDir, 'mail'),
    PARAPH_MASTER_KEY: MASTER_KEY,
    PARAPH_USER_TOKEN: USER,
    PARAPH_APP_KEY: APP,
    PARAPH_POSTBACK_SECRET: 'bench-postback-secret',
    PARAPH_LOG_LEVEL: 'warn',
    PARAPH_FILE_REPLACE_GUARD_MS: '0',
    // The per-account rate limit (default 1200/min) would answer most of the load with 429: measure the service, not the limit.
    PARAPH_ACCOUNT_REQUESTS_PER_MINUTE: '10000000',
    // autocannon keeps sending on a connection after the server's `Connection: close` (Node answers those with 503).
    PARAPH_MAX_REQUESTS_PER_CONNECTION: '1000000',
    ...(databaseUrl !== undefined ? { PARAPH_DATABASE_URL: databaseUrl } : {}),
  };
}

/** Starts `paraph serve` and resolves once it printed its URL and /health answers 200. */
async function serve(dataDir: string, databaseUrl: string | undefined): Promise<Serve> {
  const child = spawn(process.execPath, [CLI, 'serve'], { cwd: dataDir, env: serveEnv(dataDir, databaseUrl), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`paraph serve exited with ${child.exitCode}: ${out}`);
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    if (url !== undefined) {
      const health = await fetch(`${url}/health`).catch(() => undefined);
      if (health?.status === 200) return { child, url, output: () => out };
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`paraph serve did not become healthy in 90 s: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function peakRssMb(pid: number): number {
  const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kb) / 1024;
}

async function stop(one: Serve): Promise<void> {
  if (one.child.exitCode !== null) return;
  const exited = new Promise((resolve) => one.child.once('exit', resolve));
  one.child.kill('SIGTERM');
  const timer = setTimeout(() => one.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function migrate(databaseUrl: string, cwd: string): Promise<void> {
  const child = spawn(process.execPath, [CLI, 'migrate', '--database-url', databaseUrl], { cwd, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`paraph migrate exited with ${code}: ${out}`);
}

/** Each call returns the next process's URL: a round-robin load balancer in front of them. */
function roundRobin(urls: readonly string[]): () => string {
  let next = 0;
  return () => urls[next++ % urls.length] as string;
}

async function expectStatus(response: Response, status: number, step: string): Promise<void> {
  if (response.status !== status) throw new Error(`${step}: ${response.status} ${await response.text()}`);
}

/** One seal-only transaction, each of its requests sent to the next process. */
async function sealOnly(next: () => string, pdf: Uint8Array): Promise<void> {
  const created = await fetch(`${next()}/api/transaction`, {
    method: 'POST',
    headers: { ...HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({ Seal: true }),
  });
  await expectStatus(created, 200, 'create');
  const { Id } = (await created.json()) as { Id: string };
  const upload = await fetch(`${next()}/api/transaction/${Id}/file/doc.pdf`, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/pdf' }, body: pdf });
  await expectStatus(upload, 201, 'upload');
  const start = await fetch(`${next()}/api/transaction/${Id}/start`, { method: 'PUT', headers: HEADERS });
  await expectStatus(start, 204, 'start');
  // Start seals a transaction without signers in the same commit: the next GET, on any process, must show 30.
  const got = await fetch(`${next()}/api/transaction/${Id}`, { headers: HEADERS });
  await expectStatus(got, 200, 'get');
  const { Status } = (await got.json()) as { Status: number };
  if (Status !== 30) throw new Error(`transaction ${Id} is at status ${Status} after start, not 30`);
}

/** Seal-only transactions completed per second by `clients` in parallel during `seconds` (in-flight ones finish and count). */
async function sealOnlyRate(next: () => string, pdf: Uint8Array, seconds: number, clients: number): Promise<{ perSecond: number; count: number }> {
  const started = performance.now();
  const until = started + seconds * 1000;
  let count = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        await sealOnly(next, pdf);
        count++;
      }
    }),
  );
  return { perSecond: (count / (performance.now() - started)) * 1000, count };
}

interface Measured {
  readonly label: string;
  readonly txPerSecond: number;
  readonly transactions: number;
  readonly get: AutocannonResult;
  readonly peakRssMb: readonly number[];
}

async function measure(label: string, urls: readonly string[], pdf: Uint8Array): Promise<Omit<Measured, 'peakRssMb'>> {
  // Warm up every process (JIT, caches, the PDF worker threads).
  await sealOnlyRate(roundRobin(urls), pdf, quick ? 1 : 3, urls.length * 2);
  const seal = await sealOnlyRate(roundRobin(urls), pdf, SEAL_SECONDS, SEAL_CLIENTS);

  // The GET of service.bench.ts: a transaction with two signers and a document.
  const next = roundRobin(urls);
  const created = await fetch(`${next()}/api/transaction`, {
    method: 'POST',
    headers: { ...HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({ Seal: true, Signers: [{ Email: 'a@example.com' }, { Email: 'b@example.com' }] }),
  });
  await expectStatus(created, 200, 'create');
  const { Id } = (await created.json()) as { Id: string };
  await expectStatus(await fetch(`${next()}/api/transaction/${Id}/file/doc.pdf`, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/pdf' }, body: pdf }), 201, 'upload');
  const get = await autocannon({ url: urls.map((u) => `${u}/api/transaction/${Id}`), connections: GET_CONNECTIONS, duration: GET_SECONDS, headers: HEADERS });
  if (get.non2xx > 0 || get.errors > 0 || get.timeouts > 0) {
    throw new Error(`${label}: GET answered ${get.non2xx} non-2xx (${JSON.stringify(get.statusCodeStats)}), ${get.errors} errors, ${get.timeouts} timeouts: the table would measure refusals, not the service`);
  }
  return { label, txPerSecond: seal.perSecond, transactions: seal.count, get };
}

/** Starts `processes` serve processes (one after the other: the first creates the account and keys), measures, stops them. */
async function configuration(label: string, processes: number, pdf: Uint8Array, cluster: PgCluster | undefined): Promise<Measured> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paraph-scaleout-'));
  const databaseUrl = cluster === undefined ? undefined : await cluster.createDatabase();
  const running: Serve[] = [];
  try {
    if (databaseUrl !== undefined) await migrate(databaseUrl, dataDir);
    for (let i = 0; i < processes; i++) running.push(await serve(dataDir, databaseUrl));
    const result = await measure(label, running.map((s) => s.url), pdf);
    for (const s of running) if (s.child.exitCode !== null) throw new Error(`${label}: a serve process exited during the run: ${s.output()}`);
    const rss = running.map((s) => peakRssMb(s.child.pid as number));
    process.stderr.write(`${label}: ${fmt(result.txPerSecond)} tx/s (${result.transactions}), GET ${fmt(result.get.requests.average, 0)} req/s p99 ${result.get.latency.p99} ms\n`);
    return { ...result, peakRssMb: rss };
  } finally {
    await Promise.all(running.map(stop));
    if (databaseUrl !== undefined) await cluster?.dropDatabase(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const pdf = new Uint8Array(readFileSync(await benchPdf(1)));
  const cluster = await startPgCluster();
  const rows: Measured[] = [];
  try {
    rows.push(await configuration('SQLite × 1', 1, pdf, undefined));
    for (const n of [1, 2, 3]) rows.push(await configuration(`PostgreSQL × ${n}`, n, pdf, cluster));
  } finally {
    await cluster.stop();
  }
  const sqlite = rows[0] as Measured;
  printTable(
    `Scale-out: seal-only transactions (${SEAL_CLIENTS} clients, ${SEAL_SECONDS} s, 1-page PDF) and GET /api/transaction/{id} (autocannon, ${GET_CONNECTIONS} connections, ${GET_SECONDS} s), requests round-robin over \`paraph serve\` processes on one machine with the client and PostgreSQL`,
    ['store × processes', 'seal-only transactions/s', 'ratio to SQLite × 1 (ref)', 'GET req/s', 'GET p50 ms', 'GET p99 ms', 'peak RSS MB per process', 'target'],
    rows.map((r, i) => [
      r.label,
      fmt(r.txPerSecond),
      fmt(r.txPerSecond / sqlite.txPerSecond, 2),
      fmt(r.get.requests.average, 0),
      fmt(r.get.latency.p50),
      fmt(r.get.latency.p99),
      r.peakRssMb.map((mb) => fmt(mb, 0)).join(' / '),
      i === 2 ? '≥ 1.5× SQLite × 1, GET p99 < 20 ms' : 'GET p99 < 20 ms',
    ]),
  );
}

await main();
