/**
 * `npm run bench [-- name ...] [--quick] [--plot] [--write-readme[=<results folder>]] [--out=<folder>]`
 *
 * Runs every bench/*.bench.ts (or those whose name contains one of the names), each in its own process so that peak
 * RSS is measured per benchmark, in ONE run: prints the machine (CPU model, cores, memory, OS, Node, load), an
 * estimate of the duration, every table, and the measured duration. Everything the run produces goes to an untracked
 * folder, `bench-results/<timestamp>/` (git-ignored): `machine.md`, one `<bench>.md` per benchmark, `results.md`
 * (machine, duration and every table: the generated section of docs/benchmarks.md), `run.json` (durations, tables and
 * their reference columns) and `scaling.svg` (the chart, from the same run as the scaling table).
 *
 * - `--quick`: small sizes (`--max=100`, fewer rows, runs and seconds) to prove the benchmarks work (a few minutes;
 *   its numbers are not for the published tables).
 * - `--plot` alone runs the scaling benchmark only (the chart is always drawn into the results folder).
 * - `--write-readme`: after a full run of every benchmark, copies `results.md` into docs/benchmarks.md between the
 * bench
 *   markers and the chart to bench/results/scaling.svg; `--write-readme=<results folder>` copies an earlier full run
 *   without measuring again. Nothing committed is written otherwise.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine, formatMachine } from './machine.js';
import { parseTables, referenceColumns, replaceBenchSection, type BenchTable } from './tables.js';
import { TSX_LOADER } from '../test/helpers/tsx.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const args = process.argv.slice(2);
const flag = (name: string): string | undefined => args.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
const flagValue = (name: string): string | undefined => flag(name)?.split('=').slice(1).join('=') || undefined;
const quick = flag('quick') !== undefined;
const plotOnly = flag('plot') !== undefined;
const writeReadme = flag('write-readme');
const named = args.filter((arg) => !arg.startsWith('-'));
const OWN_FLAGS = ['--quick', '--plot', '--write-readme', '--out'];
const passThrough = args.filter((arg) => arg.startsWith('-') && !OWN_FLAGS.some((f) => arg === f || arg.startsWith(`${f}=`)));

/**
 * Seconds each benchmark took on the project's quiet 2-core machine (full) and roughly in quick mode: the start
 * estimate when no earlier run in bench-results/ measured it.
 */
const ESTIMATE_SECONDS: Readonly<Record<string, { full: number; quick: number }>> = {
  corpus: { full: 120, quick: 15 },
  engines: { full: 90, quick: 15 },
  events: { full: 40, quick: 10 },
  ltv: { full: 60, quick: 15 },
  observability: { full: 240, quick: 60 },
  package: { full: 90, quick: 0 },
  receipt: { full: 60, quick: 10 },
  scaleout: { full: 270, quick: 60 },
  scaling: { full: 300, quick: 30 },
  service: { full: 150, quick: 20 },
  'sign-page': { full: 60, quick: 20 },
  sign: { full: 120, quick: 15 },
  'text-index': { full: 120, quick: 15 },
  verify: { full: 120, quick: 10 },
};
/** Too slow for --quick and without a small size: skipped there (named explicitly they run). */
const SKIPPED_IN_QUICK = new Set(['package']);
/** What --quick gives each benchmark: arguments and environment. */
const QUICK_ARGS = ['--quick', '--max=100', '--limit=3', '--no-generated'];
const QUICK_ENV = { EVENTS_BENCH_ROWS: '500', SERVICE_BENCH_TX: '100', SERVICE_BENCH_SECONDS: '2', SIGN_PAGE_BENCH_RUNS: '1', BENCH_QUICK: '1' };

const nameOf = (file: string): string => file.replace(/\.bench\.ts$/, '');
const allBenches = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts'))
  .map(nameOf)
  .sort();

interface BenchRun {
  readonly name: string;
  readonly seconds: number;
  readonly exitCode: number | null;
  readonly tables: readonly (BenchTable & { readonly references: readonly string[] })[];
}

function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

/** The newest earlier run's measured seconds per benchmark (same mode), for the start estimate. */
function previousSeconds(resultsRoot: string): Map<string, number> {
  const seconds = new Map<string, number>();
  if (!existsSync(resultsRoot)) return seconds;
  for (const dir of readdirSync(resultsRoot).sort()) {
    const file = join(resultsRoot, dir, 'run.json');
    if (!existsSync(file)) continue;
    try {
      const run = JSON.parse(readFileSync(file, 'utf8')) as { quick: boolean; benches: { name: string; seconds: number; exitCode: number | null }[] };
      if (run.quick !== quick) continue;
      for (const b of run.benches) if (b.exitCode === 0) seconds.set(b.name, b.seconds);
    } catch {
      // an unreadable earlier run does not stop this one
    }
  }
  return seconds;
}

function formatDuration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return minutes === 0 ? `${Math.round(seconds)} s` : `${minutes} min ${Math.round(seconds % 60)} s`;
}

function runBench(name: string, outDir: string): Promise<BenchRun> {
  const started = performance.now();
  // A flag given on the command line wins over --quick's value of it (benchmarks read the first occurrence).
  const quickArgs = QUICK_ARGS.filter((q) => !passThrough.some((p) => p.split('=')[0] === q.split('=')[0]));
  const benchArgs = [...(quick ? quickArgs : []), ...passThrough, `--out-dir=${outDir}`];
  const child = spawn(process.execPath, ['--import', TSX_LOADER, join(here, `${name}.bench.ts`), ...benchArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...(quick ? QUICK_ENV : {}) },
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
    process.stdout.write(chunk);
  });
  return new Promise((resolveRun, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      writeFileSync(join(outDir, `${name}.md`), output);
      const tables = parseTables(output).map((t) => ({ ...t, references: referenceColumns(t.header) }));
      resolveRun({ name, seconds: (performance.now() - started) / 1000, exitCode: code, tables });
    });
  });
}

function copyToReadme(resultsDir: string): void {
  const run = JSON.parse(readFileSync(join(resultsDir, 'run.json'), 'utf8')) as { quick: boolean; complete: boolean };
  if (run.quick || !run.complete) {
    throw new Error(`${resultsDir} is not a complete full run (every benchmark, no --quick, all exited 0): not copied into docs/benchmarks.md`);
  }
  const readmePath = join(root, 'docs', 'benchmarks.md');
  writeFileSync(readmePath, replaceBenchSection(readFileSync(readmePath, 'utf8'), readFileSync(join(resultsDir, 'results.md'), 'utf8')));
  const chart = join(resultsDir, 'scaling.svg');
  if (existsSync(chart)) copyFileSync(chart, join(here, 'results', 'scaling.svg'));
  process.stderr.write(`copied ${relative(root, resultsDir)}/results.md into docs/benchmarks.md and its chart to bench/results/scaling.svg\n`);
}

async function main(): Promise<void> {
  const resultsRoot = join(root, 'bench-results');
  const fromFolder = writeReadme?.includes('=') ? flagValue('write-readme') : undefined;
  if (fromFolder !== undefined) {
    copyToReadme(resolve(fromFolder));
    return;
  }
  if (writeReadme !== undefined && (quick || named.length > 0 || plotOnly || passThrough.length > 0)) {
    process.stderr.write('--write-readme needs a full run of every benchmark (no names, --quick, --plot or other flags)\n');
    process.exitCode = 2;
    return;
  }
  const filters = named.length === 0 && plotOnly ? ['scaling'] : named;
  const benches = allBenches
    .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
    .filter((name) => !(quick && filters.length === 0 && SKIPPED_IN_QUICK.has(name)));
  if (benches.length === 0) {
    process.stderr.write(`no benchmark matches ${filters.join(', ')}\n`);
    process.exitCode = 2;
    return;
  }

  const started = new Date();
  const outDir = resolve(flagValue('out') ?? join(resultsRoot, `${timestamp(started)}${quick ? '-quick' : ''}`));
  mkdirSync(outDir, { recursive: true });
  const machine = describeMachine();
  const machineMd = formatMachine(machine);
  writeFileSync(join(outDir, 'machine.md'), `${machineMd}\n`);

  const measured = previousSeconds(resultsRoot);
  const estimate = benches.reduce((sum, b) => sum + (measured.get(b) ?? ESTIMATE_SECONDS[b]?.[quick ? 'quick' : 'full'] ?? 60), 0);
  process.stdout.write(`Machine\n${machineMd}\n\n`);
  process.stdout.write(
    `Running ${benches.length} benchmark(s)${quick ? ' in --quick mode (small sizes; not for the published tables)' : ''}: ${benches.join(', ')}\n` +
      `Estimated duration: ${formatDuration(estimate)}${benches.every((b) => measured.has(b)) ? ' (as measured by the last run in bench-results/)' : ' (built-in estimate: quiet 2-core machine)'}\n` +
      `Results folder: ${outDir}\n` +
      (quick && filters.length === 0 ? `Skipped in --quick: ${[...SKIPPED_IN_QUICK].join(', ')}\n` : ''),
  );

  const runs: BenchRun[] = [];
  for (const name of benches) {
    process.stderr.write(`\n▶ ${name}\n`);
    const run = await runBench(name, outDir);
    runs.push(run);
    if (run.exitCode !== 0) process.stderr.write(`✗ ${name} exited with ${run.exitCode}\n`);
  }

  const seconds = (Date.now() - started.getTime()) / 1000;
  const failed = runs.filter((r) => r.exitCode !== 0).map((r) => r.name);
  const withoutReference = runs.flatMap((r) => r.tables.filter((t) => t.references.length === 0).map((t) => `${r.name}: ${t.title}`));
  const complete = !quick && failed.length === 0 && allBenches.every((b) => benches.includes(b)) && passThrough.length === 0;
  const date = started.toISOString().slice(0, 16).replace('T', ' ');
  const results = [
    `Measured with \`npm run bench${quick ? ' -- --quick' : ''}\` in one run on ${date} UTC, taking ${formatDuration(seconds)}, on:`,
    '',
    machineMd,
    '',
    ...runs.flatMap((r) => (r.exitCode === 0 ? [readFileSync(join(outDir, `${r.name}.md`), 'utf8').trim().replace(/^### /gm, '#### '), ''] : [`(${r.name}: failed in this run)`, ''])),
    ...(existsSync(join(outDir, 'scaling.svg')) ? ['![ms per page against page count](../bench/results/scaling.svg)', ''] : []),
  ].join('\n');
  writeFileSync(join(outDir, 'results.md'), results);
  writeFileSync(
    join(outDir, 'run.json'),
    `${JSON.stringify({ started: started.toISOString(), seconds, quick, complete, args, machine, benches: runs, withoutReference }, null, 2)}\n`,
  );

  process.stdout.write(`\nMeasured duration: ${formatDuration(seconds)} (estimated ${formatDuration(estimate)})\n`);
  if (withoutReference.length > 0) process.stdout.write(`Tables without a reference column:\n${withoutReference.map((t) => `- ${t}`).join('\n')}\n`);
  process.stdout.write(`Results in ${outDir}\n`);
  if (failed.length > 0) {
    process.stderr.write(`failed: ${failed.join(', ')}\n`);
    process.exitCode = 1;
  } else if (writeReadme !== undefined) {
    copyToReadme(outDir);
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}
