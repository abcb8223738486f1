/**
 * What the benchmarks share: the measurement code of `paraph bench` (src/bench/measure.ts, one copy) plus the cache
 * directory of generated inputs and a table printer. Each bench/*.bench.ts runs in its own process (bench/run.ts
 * spawns them), so peak RSS is that benchmark's own.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable } from '../src/bench/measure.js';

export { fmt, hasCommand, peakRssMb, quantile, sampleMs, summarize, timeCommandMs, timeMs } from '../src/bench/measure.js';

/** Where generated benchmark inputs are cached between runs (git-ignored, never committed). */
export const BENCH_CACHE = join(dirname(fileURLToPath(import.meta.url)), '.cache');
mkdirSync(BENCH_CACHE, { recursive: true });

/** Prints a Markdown table with a title line. */
export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  process.stdout.write(formatTable(title, header, rows));
}
