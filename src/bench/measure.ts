/**
 * Measurement primitives shared by `paraph bench` and `npm run bench`: wall time of a function or an external
 * command, sample summaries, peak RSS, whether a reference tool is installed, and Markdown tables. Nothing here times
 * anything by itself; callers decide what to run.
 */
import { spawnSync } from 'node:child_process';

/** Milliseconds taken by `fn` (awaited). */
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

/** The q-quantile (0..1) of ascending-sorted samples (nearest rank); NaN without samples. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
  return sorted[Math.max(0, index)] as number;
}

/** min / median / max of a set of timings in ms. */
export interface TimingSummary {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

/** Summarizes samples (any order). The median of an even count is the mean of the middle two. */
export function summarize(samples: readonly number[]): TimingSummary {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return { min: Number.NaN, median: Number.NaN, max: Number.NaN };
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { min: sorted[0] as number, median, max: sorted[sorted.length - 1] as number };
}

/** Peak resident set size of this process so far, in MB. */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** True when an external command is on PATH (a reference column is left out otherwise). */
export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', 'command -v "$0"', command], { stdio: 'ignore' }).status === 0;
}

/** Wall time in ms of an external command (a reference measured in the same run); throws when it fails. */
export function timeCommandMs(command: string, args: readonly string[]): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr?.toString() ?? String(result.error)}`);
  return ms;
}

/** A number for a table: fixed decimals, `–` when not finite. */
export function fmt(value: number, decimals = 1): string {
  return Number.isFinite(value) ? value.toFixed(decimals) : '–';
}

/** A Markdown table with a `###` title line, ending in a blank line. */
export function formatTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `### ${title}`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    '',
  ].join('\n');
}
