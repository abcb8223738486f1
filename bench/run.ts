/**
 * `npm run bench [-- name ...] [--flags]`: runs every bench/*.bench.ts (or those whose name contains one of the
 * arguments), each in its own process so that peak RSS is measured per benchmark, and prints their tables in order.
 * Flags (`--max=1000`, `--plot`) go to every benchmark; `--plot` alone runs the scaling benchmark and writes
 * bench/results/scaling.svg.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const flags = process.argv.slice(2).filter((arg) => arg.startsWith('-'));
const named = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const filters = named.length === 0 && flags.includes('--plot') ? ['scaling'] : named;
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();

if (benches.length === 0) {
  process.stderr.write(`no benchmark matches ${filters.join(', ')}\n`);
  process.exitCode = 2;
}
let failed = 0;
for (const file of benches) {
  process.stderr.write(`\n▶ ${file}\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, file), ...flags], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    process.stderr.write(`✗ ${file} exited with ${result.status ?? result.signal}\n`);
  }
}
if (failed > 0) process.exitCode = 1;
