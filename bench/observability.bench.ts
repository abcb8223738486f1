/**
 * What observability costs the service: the load of the service benchmark (GET /api/transaction/{id} with autocannon,
 * seal-only transactions with 4 clients, 1-page PDF) on `paraph`'s server with its metrics on (a metrics token set, so
 * process metrics are collected too), once with tracing off and once with tracing on, exporting every span over
 * OTLP/HTTP protobuf to a receiver on 127.0.0.1 that reads and drops them; a third configuration samples 10 % of
 * traces. Each configuration is served by SERVICE_BENCH_PROCESSES processes of its own (default 3; OpenTelemetry's
 * registration is per process; `--serve` is that process); SERVICE_BENCH_ROUNDS times (default 5) every process in turn
 * gets a burst of GETs (SERVICE_BENCH_SECONDS, default 2 s) and a batch of seal-only transactions, and each figure is
 * the median over a configuration's bursts. The load comes from this process, so the server's event loop and CPU carry
 * only the server's work; next to the rates, the serving process's own CPU time (all its threads, from /proc) per
 * transaction and per GET.
 * Next to the process's CPU, the serving thread's alone: with tracing on, spans are encoded and exported on a thread
 * of their own, which shares the machine's cores with the load generator here.
 * Target: tracing costs at most 5 % of transactions/s, GET req/s and GET p99.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { startOtlpReceiver } from '../test/helpers/otlp-receiver.js';
import { TSX_LOADER } from '../test/helpers/tsx.js';
import { benchPdf } from './gen-pdf.js';
import { fmt, printTable } from './lib.js';
import { APP, autocannon, autocannonWithP99, HEADERS, sealOnlyRate, USER } from './service-load.js';

interface Measured {
  readonly getPerSecond: number;
  readonly getP99Ms: number;
  readonly sealOnlyPerSecond: number;
  /** CPU time of the serving process alone (all its threads; the load generator runs in another process) per GET, ms. */
  readonly getCpuMs: number;
  /** CPU time of the serving thread alone per GET, ms. */
  readonly getServingCpuMs: number;
  /** CPU time of the serving process (its PDF processes not included) per seal-only transaction, ms. */
  readonly sealOnlyCpuMs: number;
}

const quick = process.argv.includes('--quick');
const seconds = Number(process.env.SERVICE_BENCH_SECONDS ?? 2);

/** The serving process of one configuration (started by {@link measureConfiguration} with its OTEL_* environment). */
async function serve(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paraph-bench-'));
  const config = loadConfig({
    env: {
      PORT: '0',
      PARAPH_DATA_DIR: dataDir,
      PARAPH_USER_TOKEN: USER,
      PARAPH_APP_KEY: APP,
      PARAPH_FILE_REPLACE_GUARD_MS: '0',
      PARAPH_ACCOUNT_REQUESTS_PER_MINUTE: '10000000',
      PARAPH_MAX_REQUESTS_PER_CONNECTION: '1000000',
      PARAPH_METRICS_TOKEN: 'bench-metrics-token-0123456789',
    },
  });
  const server = await startServer(config, { logger: false, worker: false });
  console.log(JSON.stringify({ url: server.url }));
  // Serves until the benchmark closes stdin.
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.on('end', resolve));
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/** User plus system CPU time of process `pid` (every thread, not its children), ms; from /proc (Linux). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name; in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** User plus system CPU time of the main (serving) thread of process `pid`, ms. */
function servingThreadCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** One serving process of one configuration, warmed up, with a transaction to GET. */
interface ServingProcess {
  readonly configuration: number;
  readonly url: string;
  readonly pid: number;
  readonly getUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts a serving process with `env` (the load comes from this process, so the server's CPU and event loop carry only
 * the server's work) and warms it up: a few seal-only transactions and a second of GETs, so every configuration is
 * measured with its hot paths compiled.
 */
async function startServing(configuration: number, env: Record<string, string>, onePage: Uint8Array): Promise<ServingProcess> {
  const withoutOtel = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
  const child = spawn(process.execPath, ['--import', TSX_LOADER, fileURLToPath(import.meta.url), '--serve'], {
    env: { ...withoutOtel, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const stop = async (): Promise<void> => {
    child.stdin.end();
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.startsWith('{"url"'));
        if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
      });
      child.on('exit', (code) => reject(new Error(`serving process exited with ${String(code)}: ${out}`)));
    });
    await sealOnlyRate(url, onePage, 10, 2);
    const created = await fetch(`${url}/api/transaction`, { method: 'POST', headers: { ...HEADERS, 'content-type': 'application/json' }, body: JSON.stringify({ Seal: true }) });
    const { Id } = (await created.json()) as { Id: string };
    await fetch(`${url}/api/transaction/${Id}/file/doc.pdf`, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/pdf' }, body: onePage });
    const getUrl = `${url}/api/transaction/${Id}`;
    await autocannon({ url: getUrl, connections: 10, duration: 1, headers: HEADERS });
    await idle(child.pid!);
    return { configuration, url, pid: child.pid!, getUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Waits until the serving process `pid` is idle (under 5 % of a core for 200 ms; at most 15 s): a seal-only
 * transaction's sealing and receipt go on after its start was answered, and must neither overlap the next burst nor
 * be left out of its CPU.
 */
async function idle(pid: number): Promise<void> {
  const until = Date.now() + 15_000;
  let before = processCpuMs(pid);
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = processCpuMs(pid);
    if (now - before <= 10) return;
    before = now;
  }
}

/** One burst of GETs against `server`: its rate, p99 and the serving process's CPU per GET. */
async function getBurst(server: ServingProcess): Promise<Pick<Measured, 'getPerSecond' | 'getP99Ms' | 'getCpuMs' | 'getServingCpuMs'>> {
  const cpuBefore = processCpuMs(server.pid);
  const servingBefore = servingThreadCpuMs(server.pid);
  const get = await autocannonWithP99({ url: server.getUrl, connections: 10, duration: seconds, headers: HEADERS });
  const getCpuMs = (processCpuMs(server.pid) - cpuBefore) / Math.max(1, get.requests.total);
  const getServingCpuMs = (servingThreadCpuMs(server.pid) - servingBefore) / Math.max(1, get.requests.total);
  if (get.non2xx > 0) throw new Error(`GET answered ${get.non2xx} non-2xx responses: the table would measure refusals`);
  return { getPerSecond: get.requests.average, getP99Ms: get.p99Ms, getCpuMs, getServingCpuMs };
}

/** One batch of seal-only transactions (4 clients) against `server`: their rate and the serving process's CPU per transaction. */
async function sealBurst(server: ServingProcess, onePage: Uint8Array, transactions: number): Promise<Pick<Measured, 'sealOnlyPerSecond' | 'sealOnlyCpuMs'>> {
  const cpuBefore = processCpuMs(server.pid);
  const sealOnlyPerSecond = await sealOnlyRate(server.url, onePage, transactions, 4);
  await idle(server.pid);
  return { sealOnlyPerSecond, sealOnlyCpuMs: (processCpuMs(server.pid) - cpuBefore) / transactions };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const receiver = await startOtlpReceiver({ keep: false });
  const rounds = Number(process.env.SERVICE_BENCH_ROUNDS ?? (quick ? 2 : 5));
  const processes = Number(process.env.SERVICE_BENCH_PROCESSES ?? (quick ? 1 : 3));
  const transactionsPerBurst = quick ? 8 : 20;
  const configurations: ReadonlyArray<{ name: string; env: Record<string, string> }> = [
    { name: 'metrics on, tracing off', env: {} },
    { name: 'metrics on, tracing on, every trace sampled', env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } },
    { name: 'metrics on, tracing on, 10 % of traces sampled', env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' } },
  ];
  const gets: Array<Array<Pick<Measured, 'getPerSecond' | 'getP99Ms' | 'getCpuMs' | 'getServingCpuMs'>>> = configurations.map(() => []);
  const seals: Array<Array<Pick<Measured, 'sealOnlyPerSecond' | 'sealOnlyCpuMs'>>> = configurations.map(() => []);
  const onePage = new Uint8Array(readFileSync(await benchPdf(1)));
  // Several processes per configuration, started interleaved: how fast one process runs varies by more than what is
  // measured here (±10 % between identical processes on a shared two-core machine), so each configuration's figure is
  // the median of short bursts over all its processes, taken in turns (forward, then backward) with the others'.
  const servers: ServingProcess[] = [];
  try {
    for (let p = 0; p < processes; p++) {
      for (const [i, configuration] of configurations.entries()) servers.push(await startServing(i, configuration.env, onePage));
    }
    const inTurn = (round: number): readonly ServingProcess[] => (round % 2 === 0 ? servers : [...servers].reverse());
    for (let round = 0; round < rounds; round++) for (const server of inTurn(round)) gets[server.configuration]!.push(await getBurst(server));
    for (let round = 0; round < rounds; round++) for (const server of inTurn(round)) seals[server.configuration]!.push(await sealBurst(server, onePage, transactionsPerBurst));
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver.close();
  }
  const medians = configurations.map(
    (_, i): Measured => ({
      getPerSecond: median(gets[i]!.map((r) => r.getPerSecond)),
      getP99Ms: median(gets[i]!.map((r) => r.getP99Ms)),
      getCpuMs: median(gets[i]!.map((r) => r.getCpuMs)),
      getServingCpuMs: median(gets[i]!.map((r) => r.getServingCpuMs)),
      sealOnlyPerSecond: median(seals[i]!.map((r) => r.sealOnlyPerSecond)),
      sealOnlyCpuMs: median(seals[i]!.map((r) => r.sealOnlyCpuMs)),
    }),
  );
  const off = medians[0]!;
  const change = (value: number, reference: number, higherIsBetter: boolean): string =>
    reference === 0 ? '–' : `${fmt(((higherIsBetter ? reference - value : value - reference) / reference) * 100)} %`;
  const cost = (i: number, value: number, reference: number, higherIsBetter: boolean): string => (i === 0 ? '(ref)' : change(value, reference, higherIsBetter));
  printTable(
    `Service: cost of tracing with metrics on (${processes} serving processes per configuration, ${rounds} rounds of bursts taken in turns, medians; the load from another process; 1-page seal-only, 4 clients, ${transactionsPerBurst} per burst; GET, autocannon 10 connections ${seconds} s per burst; CPU of the serving process alone)`,
    ['configuration', 'seal-only transactions/s', 'GET req/s', 'GET p99 ms', 'CPU ms per transaction', 'CPU ms per GET', 'serving thread CPU ms per GET', 'cost: transactions/s', 'cost: GET req/s', 'cost: GET p99', 'cost: CPU per transaction', 'cost: CPU per GET', 'cost: serving thread CPU per GET', 'target'],
    configurations.map((configuration, i) => {
      const m = medians[i]!;
      return [
        configuration.name,
        fmt(m.sealOnlyPerSecond),
        fmt(m.getPerSecond, 0),
        fmt(m.getP99Ms, 2),
        fmt(m.sealOnlyCpuMs),
        fmt(m.getCpuMs, 2),
        fmt(m.getServingCpuMs, 3),
        cost(i, m.sealOnlyPerSecond, off.sealOnlyPerSecond, true),
        cost(i, m.getPerSecond, off.getPerSecond, true),
        cost(i, m.getP99Ms, off.getP99Ms, false),
        cost(i, m.sealOnlyCpuMs, off.sealOnlyCpuMs, false),
        cost(i, m.getCpuMs, off.getCpuMs, false),
        cost(i, m.getServingCpuMs, off.getServingCpuMs, false),
        i === 0 ? '–' : '≤ 5 %',
      ];
    }),
  );
}

if (process.argv.includes('--serve')) await serve();
else await main();
