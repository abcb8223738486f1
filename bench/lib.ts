/**
 * Small helpers shared by the benchmarks: timing, peak memory, reference tools and a Markdown table printer.
 * Each bench/*.bench.ts runs in its own process (bench/run.ts spawns them), so peak RSS is that benchmark's own.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where generated benchmark inputs are cached between runs (git-ignored, never committed). */
export const BENCH_CACHE = join(dirname(fileURLToPath(import.meta.url)), '.cache');
mkdirSync(BENCH_CACHE, { recursive: true });

/** Milliseconds taken by `fn`. */
export async function timeMs(fn: () => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs `fn` `runs` times and returns the times in ms, sorted ascending. */
export async function sampleMs(runs: number, fn: () => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) out.push(await timeMs(fn));
  return out.sort((a, b) => a - b);
}

/** The q-quantile (0..1) of ascending-sorted samples. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

/** Peak resident set size of this process so far, in MB. */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** True when an external command is installed (used to skip a reference column gracefully). */
export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Wall time in ms of an external command (the reference measured in the same run); throws when it fails. */
export function timeCommandMs(command: string, args: readonly string[]): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr?.toString() ?? result.error}`);
  return ms;
}

/** Formats a number for a table: fixed decimals, thousands kept readable. */
export function fmt(value: number, decimals = 1): string {
  return Number.isFinite(value) ? value.toFixed(decimals) : '–';
}

/** Prints a Markdown table with a title line. */
export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const lines = [
    `### ${title}`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
