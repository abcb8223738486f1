/**
 * `paraph bench place <in.pdf> <metadata.json> | sign <in.pdf> | verify <in.pdf> [--runs N] [--json]`: runs
 * one operation N times on the user's own file and prints min/median/max ms, ms per page and peak RSS (or all of it
 * as JSON). A progress bar goes to stderr once a benchmark has taken longer than a second (plain lines every few
 * seconds when stderr is not a terminal).
 */
import { parseArgs } from 'node:util';
import { parseFileMetaData } from '../pdf/file-metadata.js';
import { BENCH_OPERATIONS, benchOperation, DEFAULT_RUNS, type BenchOperationName, type BenchResult } from '../bench/bench-operation.js';
import { createProgressBar } from '../bench/progress-bar.js';
import { fmt } from '../bench/measure.js';
import { readCliFile } from './cli-files.js';
import { UsageError, type CliCommand } from './common.js';

const USAGE = `usage: paraph bench place <in.pdf> <metadata.json> [options]
       paraph bench sign <in.pdf> [options]
       paraph bench verify <in.pdf> [options]

Runs the operation several times on your file and prints min/median/max time, ms per page and peak RSS.
sign makes an invisible B-B signature with a throw-away ECDSA P-256 key; verify checks every signature.

      --runs <n>      how many times to run (default ${DEFAULT_RUNS})
      --warmup <n>    untimed runs first (default 1: loads the text engine, warms the JIT)
      --trust <pem>   trust root for verify (repeatable)
      --json          print the result as JSON
      --no-progress   no progress bar on stderr
  -h, --help          show this help
`;

/** The `bench` command. Exit 0 on success, 2 for bad input or usage, 1 for an internal error. */
export const benchCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseArgs({
    args,
    options: {
      runs: { type: 'string' },
      warmup: { type: 'string' },
      trust: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      'no-progress': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const [operation, pdfPath, metadataPath, ...extra] = positionals;
  if (operation === undefined || !(BENCH_OPERATIONS as readonly string[]).includes(operation)) {
    throw new UsageError(`paraph bench needs an operation: ${BENCH_OPERATIONS.join(', ')}${operation === undefined ? '' : ` (got ${JSON.stringify(operation)})`}\n\n${USAGE}`);
  }
  const op = operation as BenchOperationName;
  const wanted = op === 'place' ? 2 : 1;
  const files = [pdfPath, metadataPath, ...extra].filter((f): f is string => f !== undefined);
  if (files.length !== wanted) {
    throw new UsageError(`paraph bench ${op} needs ${op === 'place' ? 'a PDF and a metadata JSON file' : 'one PDF'} (got ${files.length} file arguments)\n\n${USAGE}`);
  }
  const runs = values.runs === undefined ? DEFAULT_RUNS : Number(values.runs);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new UsageError(`--runs must be a whole number of at least 1 (got ${JSON.stringify(values.runs)})`);

  const warmup = values.warmup === undefined ? 1 : Number(values.warmup);
  if (!Number.isSafeInteger(warmup) || warmup < 0) throw new UsageError(`--warmup must be a whole number of at least 0 (got ${JSON.stringify(values.warmup)})`);

  const pdf = await readCliFile(files[0] as string, 'PDF');
  const metadata = op === 'place' ? parseFileMetaData(await readCliFile(files[1] as string, 'metadata JSON')) : undefined;
  const trustRoots = await Promise.all((values.trust ?? []).map((path) => readCliFile(path, 'trust root')));
  const progress = values['no-progress'] ? undefined : createProgressBar({ total: runs, label: op, write: io.stderr, terminal: io.stderrIsTerminal === true });
  let result: BenchResult;
  try {
    result = await benchOperation({
      operation: op,
      pdf,
      metadata,
      trustRoots,
      runs,
      warmup,
      // A benchmark run of the CLI is the one place the wall clock is the right "now".
      now: new Date(),
      ...(progress ? { onProgress: (done: number, total: number) => progress.update(done, total) } : {}),
    });
  } finally {
    progress?.done();
  }
  io.stdout(values.json ? `${JSON.stringify({ file: files[0], ...result })}\n` : describe(files[0] as string, result));
  return 0;
};

function describe(file: string, r: BenchResult): string {
  return [
    `${r.operation} ${file}: ${r.pages} page${r.pages === 1 ? '' : 's'}, ${fmt(r.bytes / 1024 / 1024, 2)} MiB, ${r.runs} run${r.runs === 1 ? '' : 's'} after ${r.warmup} warm-up`,
    `  time      min ${fmt(r.minMs)} ms   median ${fmt(r.medianMs)} ms   max ${fmt(r.maxMs)} ms`,
    `  per page  ${fmt(r.msPerPage, 3)} ms (median)`,
    `  peak RSS  ${fmt(r.peakRssMb, 0)} MB (${fmt(r.baselineRssMb, 0)} MB before the runs)`,
    '',
  ].join('\n');
}

