/**
 * Scale-out benchmark: real `paraph serve` processes (src/ compiled to JavaScript, run with plain node, as
 * in scaling.bench.ts) on one SQLite data directory (1 process) and on one throwaway PostgreSQL cluster (1, 2 and 3
 * processes, a fresh database each), all on this machine; the client sends each request to the next process in turn.
 * - Seal-only transactions (create with Seal: true and no signers + upload a 1-page PDF + start, which seals and builds
 *   the receipt, as in service.bench.ts; then a GET that must show Status 30), completed per second by 8 clients in
 *   parallel for a fixed time (SCALEOUT_BENCH_SECONDS, default 8), next to the SQLite process measured in this run.
 * - GET /api/transaction/{id}: requests/s and p50/p99 latency, one autocannon with 12 connections spread evenly over
 *   the processes (SERVICE_BENCH_SECONDS, default 5). Any non-2xx answer or error fails the run.
 * - Peak RSS (VmHWM) of every serve process, read at the end.
 * - CPU ms per seal-only transaction (/proc/<pid>/stat) of the serve processes, of the PostgreSQL backends of their
 *   database and of this client: what the throughput can be at most on this machine's cores.
 * Every configuration runs from the start; they take turns for SCALEOUT_BENCH_ROUNDS rounds (default 3), each turn
 * after 3 s of unmeasured load, and the table shows the medians.
 * Goal (2 cores, reported, not asserted): PostgreSQL × 2 ≥ 1.5 × SQLite × 1 seal-only, GET p99 < 20 ms.
 * The client (fetch, autocannon) and PostgreSQL run on the same cores as the processes they measure.
 * `npx tsx bench/scaleout.bench.ts [--quick]`; needs PostgreSQL's initdb/pg_ctl (see test/postgres/pg-cluster.ts).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPgCluster, type PgCluster } from '../test/postgres/pg-cluster.js';
import { benchPdf, compileSrc } from './gen-pdf.js';
import { fmt, printTable, summarize } from './lib.js';

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
const ROUNDS = Number(process.env.SCALEOUT_BENCH_ROUNDS ?? (quick ? 1 : 3));
const SEAL_SECONDS = Number(process.env.SCALEOUT_BENCH_SECONDS ?? (quick ? 5 : 8));
const WARM_UP_SECONDS = quick ? 1 : 3;
const GET_SECONDS = Number(process.env.SERVICE_BENCH_SECONDS ?? 5);
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

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU time (user + system, every thread) a process used so far, ms; undefined once it is gone. */
function processCpuMs(pid: number): number | undefined {
  try {
    // Fields after the parenthesised command name: state is the 1st, utime the 12th, stime the 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1000;
  } catch {
    return undefined;
  }
}

/** CPU time the main thread of a process (where its event loop runs) used so far, ms. */
function mainThreadCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1000;
  } catch {
    return undefined;
  }
}

/** The PostgreSQL backends serving `database` (their command line is `postgres: <user> <database> <client> …`). */
function backendsOf(database: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(`postgres: postgres ${database} `);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** CPU ms used so far by the serve processes, by each PostgreSQL backend of their database, and by this client. */
interface CpuSample {
  readonly serve: number;
  /** Per serve process, its main thread's CPU ms. */
  readonly mainThreads: readonly number[];
  readonly backends: ReadonlyMap<number, number>;
  readonly client: number;
}

function sampleCpu(running: readonly Serve[], database: string | undefined): CpuSample {
  const backends = new Map<number, number>();
  for (const pid of database === undefined ? [] : backendsOf(database)) {
    const ms = processCpuMs(pid);
    if (ms !== undefined) backends.set(pid, ms);
  }
  const { user, system } = process.cpuUsage();
  return {
    serve: running.reduce((sum, s) => sum + (processCpuMs(s.child.pid as number) ?? Number.NaN), 0),
    mainThreads: running.map((s) => mainThreadCpuMs(s.child.pid as number) ?? Number.NaN),
    backends,
    client: (user + system) / 1000,
  };
}

/**
 * CPU ms used between two samples. A backend that ended in between is missed (the pools keep their connections
 * while they are busy); the cluster's own background processes are not counted.
 */
function cpuBetween(before: CpuSample, after: CpuSample): { serve: number; postgres: number; client: number; mainThreads: number[] } {
  let postgres = 0;
  for (const [pid, ms] of after.backends) postgres += ms - (before.backends.get(pid) ?? 0);
  const mainThreads = after.mainThreads.map((ms, i) => ms - (before.mainThreads[i] ?? Number.NaN));
  return { serve: after.serve - before.serve, postgres, client: after.client - before.client, mainThreads };
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

interface Configuration {
  readonly label: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly running: Serve[];
  /** The transaction every GET reads: two signers and a document, as in service.bench.ts. */
  getId: string;
  readonly sealRounds: number[];
  /**
   * Per round: CPU ms per seal-only transaction of the serve processes, the PostgreSQL backends and this client; of
   * that, the serve processes' main threads; and the busiest main thread's share of one core.
   */
  readonly sealCpuRounds: { serve: number; postgres: number; client: number; mainThread: number; busiestMainThread: number }[];
  readonly getRounds: AutocannonResult[];
}

/**
 * Starts `processes` serve processes (one after the other: the first creates the account and keys).
 * The configuration joins `started` before its first process starts, so a failure still stops what did start.
 */
async function startConfiguration(label: string, processes: number, pdf: Uint8Array, cluster: PgCluster | undefined, started: Configuration[]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paraph-scaleout-'));
  const databaseUrl = cluster === undefined ? undefined : await cluster.createDatabase();
  const config: Configuration = { label, dataDir, databaseUrl, running: [], getId: '', sealRounds: [], sealCpuRounds: [], getRounds: [] };
  started.push(config);
  if (databaseUrl !== undefined) await migrate(databaseUrl, dataDir);
  for (let i = 0; i < processes; i++) config.running.push(await serve(dataDir, databaseUrl));
  const next = roundRobin(config.running.map((s) => s.url));
  const created = await fetch(`${next()}/api/transaction`, {
    method: 'POST',
    headers: { ...HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({ Seal: true, Signers: [{ Email: 'a@example.com', SignRequestMessage: 'Please sign.' }, { Email: 'b@example.com', SignRequestMessage: 'Please sign.' }] }),
  });
  await expectStatus(created, 200, 'create');
  config.getId = ((await created.json()) as { Id: string }).Id;
  await expectStatus(await fetch(`${next()}/api/transaction/${config.getId}/file/doc.pdf`, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/pdf' }, body: pdf }), 201, 'upload');
}

async function measureGet(config: Configuration): Promise<AutocannonResult> {
  const urls = config.running.map((s) => `${s.url}/api/transaction/${config.getId}`);
  const get = await autocannon({ url: urls, connections: GET_CONNECTIONS, duration: GET_SECONDS, headers: HEADERS });
  if (get.non2xx > 0 || get.errors > 0 || get.timeouts > 0) {
    throw new Error(`${config.label}: GET answered ${get.non2xx} non-2xx (${JSON.stringify(get.statusCodeStats)}), ${get.errors} errors, ${get.timeouts} timeouts: the table would measure refusals, not the service`);
  }
  return get;
}

function checkAlive(config: Configuration): void {
  for (const s of config.running) if (s.child.exitCode !== null) throw new Error(`${config.label}: a serve process exited during the run: ${s.output()}`);
}

async function stopConfiguration(config: Configuration, cluster: PgCluster | undefined): Promise<void> {
  await Promise.all(config.running.map(stop));
  if (config.databaseUrl !== undefined) await cluster?.dropDatabase(config.databaseUrl);
  rmSync(config.dataDir, { recursive: true, force: true });
}

const median = (values: readonly number[]): number => summarize(values).median;

const CORES = availableParallelism();

/**
 * The most seal-only transactions per second the machine's CPU allows this configuration: all cores shared by the
 * serve processes, PostgreSQL and the client, and each process's event loop on one core (what a single process
 * cannot exceed, whatever the cores).
 */
function ceiling(c: Configuration): number {
  const total = median(c.sealCpuRounds.map((r) => r.serve + r.postgres + r.client));
  const mainThreads = median(c.sealCpuRounds.map((r) => r.mainThread));
  return Math.min((CORES * 1000) / total, (c.running.length * 1000) / mainThreads);
}

async function main(): Promise<void> {
  const pdf = new Uint8Array(readFileSync(await benchPdf(1)));
  const cluster = await startPgCluster();
  const configs: Configuration[] = [];
  const peakRss = new Map<Configuration, number[]>();
  try {
    await startConfiguration('SQLite × 1', 1, pdf, undefined, configs);
    for (const n of [1, 2, 3]) await startConfiguration(`PostgreSQL × ${n}`, n, pdf, cluster, configs);
    // The machine is shared: the configurations take turns, round after round (each round in another order), so a
    // burst of outside load spreads over all of them instead of falling on one; the table shows each one's median.
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < configs.length; i++) {
        const config = configs[(round + i) % configs.length] as Configuration;
        const database = config.databaseUrl === undefined ? undefined : new URL(config.databaseUrl).pathname.slice(1);
        // Idle while the others took their turn, the processes ended their spare PDF worker threads (10 s) and database
        // connections: bring them back under the same load first, unmeasured, as a busy deployment would have them.
        await sealOnlyRate(roundRobin(config.running.map((s) => s.url)), pdf, WARM_UP_SECONDS, SEAL_CLIENTS);
        const beforeSeal = sampleCpu(config.running, database);
        const seal = await sealOnlyRate(roundRobin(config.running.map((s) => s.url)), pdf, SEAL_SECONDS, SEAL_CLIENTS);
        const afterSeal = sampleCpu(config.running, database);
        const sealCpu = cpuBetween(beforeSeal, afterSeal);
        const wallMs = (seal.count / seal.perSecond) * 1000;
        const perTx = {
          serve: sealCpu.serve / seal.count,
          postgres: sealCpu.postgres / seal.count,
          client: sealCpu.client / seal.count,
          mainThread: sealCpu.mainThreads.reduce((a, b) => a + b, 0) / seal.count,
          busiestMainThread: Math.max(...sealCpu.mainThreads) / wallMs,
        };
        config.sealRounds.push(seal.perSecond);
        config.sealCpuRounds.push(perTx);
        const get = await measureGet(config);
        const getCpu = cpuBetween(afterSeal, sampleCpu(config.running, database));
        config.getRounds.push(get);
        checkAlive(config);
        const perGet = (ms: number): string => fmt((ms / get.requests.total) * 1000, 0);
        process.stderr.write(
          `round ${round + 1} ${config.label}: ${fmt(seal.perSecond)} tx/s (CPU ms/tx serve ${fmt(perTx.serve)} (main threads ${fmt(perTx.mainThread)}, busiest ${fmt(perTx.busiestMainThread * 100, 0)} % of a core) + PostgreSQL ${fmt(perTx.postgres)} + client ${fmt(perTx.client)}), ` +
            `GET ${fmt(get.requests.average, 0)} req/s p99 ${get.latency.p99} ms (CPU µs/req serve ${perGet(getCpu.serve)} + PostgreSQL ${perGet(getCpu.postgres)} + client ${perGet(getCpu.client)})\n`,
        );
      }
    }
    for (const config of configs) peakRss.set(config, config.running.map((s) => peakRssMb(s.child.pid as number)));
  } finally {
    await Promise.all(configs.map((c) => stopConfiguration(c, cluster)));
    await cluster.stop();
  }
  const sqlite = median((configs[0] as Configuration).sealRounds);
  printTable(
    `Scale-out: seal-only transactions (${SEAL_CLIENTS} clients, ${SEAL_SECONDS} s, 1-page PDF) and GET /api/transaction/{id} (autocannon, ${GET_CONNECTIONS} connections, ${GET_SECONDS} s), requests round-robin over \`paraph serve\` processes on one machine with the client and PostgreSQL; median of ${ROUNDS} interleaved rounds`,
    [
      'store × processes',
      'seal-only transactions/s',
      'ratio to SQLite × 1 (ref)',
      'transactions/s per round',
      'CPU ms per transaction: serve + PostgreSQL + client',
      'of serve: main threads ms/tx',
      'busiest main thread, % of a core',
      `CPU ceiling on ${CORES} cores, tx/s`,
      'GET req/s',
      'GET p50 ms',
      'GET p99 ms',
      'peak RSS MB per process',
      'target',
    ],
    configs.map((c) => [
      c.label,
      fmt(median(c.sealRounds)),
      fmt(median(c.sealRounds) / sqlite, 2),
      c.sealRounds.map((r) => fmt(r)).join(' / '),
      `${fmt(median(c.sealCpuRounds.map((r) => r.serve)), 0)} + ${fmt(median(c.sealCpuRounds.map((r) => r.postgres)), 0)} + ${fmt(median(c.sealCpuRounds.map((r) => r.client)), 0)}`,
      fmt(median(c.sealCpuRounds.map((r) => r.mainThread)), 0),
      fmt(median(c.sealCpuRounds.map((r) => r.busiestMainThread)) * 100, 0),
      fmt(ceiling(c), 0),
      fmt(median(c.getRounds.map((g) => g.requests.average)), 0),
      fmt(median(c.getRounds.map((g) => g.latency.p50))),
      fmt(median(c.getRounds.map((g) => g.latency.p99))),
      (peakRss.get(c) ?? []).map((mb) => fmt(mb, 0)).join(' / '),
      c.label === 'PostgreSQL × 2' ? '≥ 1.5× SQLite × 1, GET p99 < 20 ms' : 'GET p99 < 20 ms',
    ]),
  );
}

await main();
