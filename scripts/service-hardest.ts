/**
 * The hardest files of a PDF corpus through the running service, as an integrator sends them: `paraph serve` is
 * started on 127.0.0.1 with its embedded store in a temporary folder, and each file goes through a seal-only
 * transaction (create, upload, start, which normalizes and seals it). Reports the status codes per step (5xx is a
 * failure of the service: every bad file must get a 4xx with a message), the slowest answer of /health polled every
 * 250 ms throughout, and the server's peak RSS (VmHWM). `--idle <s>` first polls /health for that long with no
 * file in flight, and reports both phases' median, 99th percentile and maximum with the machine's load average: on a
 * shared machine a slow /health with nothing in flight is the machine's load, not work on the serving thread.
 *
 *   npx tsx scripts/service-hardest.ts [<dir>] [--count 150] [--idle <s>] [--report <corpus-report.json>] [--json <out.json>]
 *
 * "Hardest" = the files a corpus report (scripts/corpus-report.ts --json) shows refused or normalized first, then the
 * largest files. Runs the built CLI (`npm run build` first). The folder defaults to $PARAPH_CORPUS_DIR.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const USER = 'hardest-user-token';
const APP = 'hardest-app-key';
const HEADERS = { authorization: `APIKey ${USER}`, application: `APPKey ${APP}` };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { count: { type: 'string', default: '150' }, idle: { type: 'string', default: '0' }, report: { type: 'string' }, json: { type: 'string' } },
});
const dir = positionals[0] ?? process.env.PARAPH_CORPUS_DIR;
if (!dir) {
  process.stderr.write('usage: service-hardest.ts <dir> [--count 150] [--report <corpus-report.json>] [--json <out>]\n');
  process.exit(2);
}

interface FileResult {
  file: string;
  create: number;
  upload?: number;
  start?: number;
  /** The error text of the first step that did not succeed. */
  message?: string;
  ms: number;
}

function hardest(folder: string, count: number, reportPath?: string): string[] {
  const files = readdirSync(folder).filter((f) => f.toLowerCase().endsWith('.pdf'));
  const first = new Set<string>();
  if (reportPath) {
    const reports = JSON.parse(readFileSync(reportPath, 'utf8')) as { file: string; outcome: { kind: string; normalized?: boolean } }[];
    for (const r of reports) if (r.outcome.kind === 'refused' || r.outcome.normalized) first.add(basename(r.file));
  }
  const bySize = files.filter((f) => !first.has(f)).sort((a, b) => statSync(join(folder, b)).size - statSync(join(folder, a)).size);
  return [...[...first].filter((f) => files.includes(f)).sort(), ...bySize].slice(0, count);
}

async function step(url: string, init: RequestInit): Promise<{ status: number; body: string }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.text() };
}

async function oneFile(base: string, path: string): Promise<FileResult> {
  const started = performance.now();
  const file = basename(path);
  const created = await step(`${base}/api/transaction`, { method: 'POST', headers: { ...HEADERS, 'content-type': 'application/json' }, body: JSON.stringify({ Seal: true }) });
  const result: FileResult = { file, create: created.status, ms: 0 };
  const id = created.status === 200 ? (JSON.parse(created.body || '{}') as { Id?: string }).Id : undefined;
  if (id === undefined && created.status === 200) result.message = 'no Id in the answer';
  if (id !== undefined) {
    const upload = await step(`${base}/api/transaction/${id}/file/doc.pdf`, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/pdf' }, body: readFileSync(path) });
    result.upload = upload.status;
    if (upload.status === 201) {
      const start = await step(`${base}/api/transaction/${id}/start`, { method: 'PUT', headers: HEADERS });
      result.start = start.status;
      if (start.status !== 204) result.message = start.body.slice(0, 300);
    } else result.message = upload.body.slice(0, 300);
  } else if (created.status !== 200) result.message = created.body.slice(0, 300);
  result.ms = Math.round(performance.now() - started);
  return result;
}

function peakRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/** Median, 99th percentile and maximum of `ms`, with the count. */
function summary(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number): number => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  return `${sorted.length} answers, median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${Math.round(sorted.at(-1)!)} ms`;
}

async function main(folder: string): Promise<void> {
  const files = hardest(folder, Number(values.count), values.report);
  const dataDir = mkdtempSync(join(tmpdir(), 'paraph-hardest-'));
  const server = spawn(process.execPath, [join(ROOT, 'dist/cli.js'), 'serve'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', PARAPH_DATA_DIR: dataDir, PARAPH_USER_TOKEN: USER, PARAPH_APP_KEY: APP, PARAPH_LOG_LEVEL: 'silent', PARAPH_FILE_REPLACE_GUARD_MS: '0', PARAPH_ACCOUNT_REQUESTS_PER_MINUTE: '1000000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    server.on('exit', (code) => reject(new Error(`paraph serve exited (${code}) before listening: ${out}`)));
  });
  let healthMax = 0;
  let healthFailures = 0;
  let inFlight = '';
  const slowHealth: { ms: number; file: string }[] = [];
  const latencies: Record<'idle' | 'files', number[]> = { idle: [], files: [] };
  let phase: 'idle' | 'files' = 'idle';
  const loadAverages: Record<'idle' | 'files', number[]> = { idle: loadavg(), files: [] };
  let peakRss = 0;
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const t0 = performance.now();
      const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false);
      const ms = performance.now() - t0;
      latencies[phase].push(ms);
      if (phase === 'files') healthMax = Math.max(healthMax, ms);
      if (phase === 'files' && ms > 1000) slowHealth.push({ ms: Math.round(ms), file: inFlight });
      if (!ok) healthFailures++;
      peakRss = Math.max(peakRss, peakRssMb(server.pid!));
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const results: FileResult[] = [];
  try {
    await new Promise((r) => setTimeout(r, Number(values.idle) * 1000));
    phase = 'files';
    loadAverages.files = loadavg();
    for (const file of files) {
      inFlight = file;
      const result = await oneFile(base, join(folder, file)).catch((error: unknown) => ({ file, create: 0, message: String(error), ms: 0 }));
      results.push(result);
      process.stdout.write(`${file}\t${result.create}/${result.upload ?? '-'}/${result.start ?? '-'}\t${result.ms} ms${result.message ? `\t${result.message.replace(/\s+/g, ' ')}` : ''}\n`);
    }
  } finally {
    polling = false;
    await poll;
    peakRss = Math.max(peakRss, peakRssMb(server.pid!));
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
  const statuses = results.flatMap((r) => [r.create, r.upload, r.start].filter((s): s is number => s !== undefined));
  const fiveXx = results.filter((r) => [r.create, r.upload, r.start].some((s) => s !== undefined && (s >= 500 || s === 0)));
  const sealed = results.filter((r) => r.start === 204).length;
  const counts = new Map<number, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  process.stdout.write(
    `\nfiles: ${results.length}\nsealed: ${sealed}\nrefused (4xx): ${results.filter((r) => r.start !== 204 && !fiveXx.includes(r)).length}\n` +
      `5xx or no answer: ${fiveXx.length}${fiveXx.length ? ` (${fiveXx.map((r) => r.file).join(', ')})` : ''}\n` +
      `status codes: ${[...counts].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ')}\n` +
      `/health max latency: ${Math.round(healthMax)} ms (failed answers: ${healthFailures}; answers over 1 s: ${slowHealth.length}` +
      `${slowHealth.length ? `, the slowest while ${slowHealth.sort((a, b) => b.ms - a.ms).slice(0, 5).map((h) => `${h.file} was in flight (${h.ms} ms)`).join(', ')}` : ''})\n` +
      `peak RSS of the server: ${peakRss} MB\n` +
      (['idle', 'files'] as const)
        .filter((p) => latencies[p].length > 0)
        .map((p) => `/health ${p === 'idle' ? 'with nothing in flight' : 'while files were in flight'}: ${summary(latencies[p])} (load average at its start ${loadAverages[p].map((l) => l.toFixed(1)).join(' / ')})\n`)
        .join(''),
  );
  if (values.json) writeFileSync(values.json, JSON.stringify({ results, healthMaxMs: Math.round(healthMax), healthFailures, slowHealth, peakRssMb: peakRss, health: latencies, loadAverages }, null, 1));
}

await main(dir);
