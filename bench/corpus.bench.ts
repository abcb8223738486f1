/**
 * Corpus benchmark: paraph's text extraction against poppler's `pdftotext -bbox` over a folder of real
 * PDFs, each file in a fresh process for both tools (cold, as `paraph place` on the command line), with wall time and
 * peak RSS per file and in total, refusals by code, and the ten files where paraph is slowest relative to poppler.
 * Generated files (a 1-page letter, the 1,000-page bench text, the 1,000-page mixed contract) are measured in the
 * same run, for the published table (docs/benchmarks.md).
 *
 * `npm run bench -- corpus [--dir=<folder of PDFs>] [--limit=N] [--no-generated]`. Without --dir it reads the
 * committed hazard sample (fixtures/corpus). Third-party corpora (e.g. a checkout of Mozilla pdf.js's `test/pdfs`) are
 * read from their path, never copied into the repository. paraph's process does what an upload does: normalizePdf
 * (rewrite of empty-password / damaged files), then indexText with the default limits — in its own thread for a file
 * of up to 128 KB, in worker threads for a larger one, as `paraph place` does.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchPdf, compileSrc, mixedContractPdf } from './gen-pdf.js';
import { fmt, hasCommand, printTable } from './lib.js';

interface Run {
  file: string;
  bytes: number;
  pages: number | undefined;
  outcome: string;
  paraphMs: number;
  paraphRssMb: number;
  popplerMs: number;
  popplerRssMb: number;
  popplerOk: boolean;
}

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const dir = arg('dir') ?? join(import.meta.dirname, '../fixtures/corpus');
const limit = Number(arg('limit') ?? Infinity);
const withGenerated = !process.argv.includes('--no-generated');
const TIMEOUT_MS = 120_000;
const timeTool = hasCommand('/usr/bin/time') ? '/usr/bin/time' : undefined;
if (!hasCommand('pdftotext')) throw new Error('the corpus benchmark needs poppler-utils (pdftotext)');

const dist = compileSrc();
const url = (file: string): string => JSON.stringify(pathToFileURL(join(dist, file)).href);
const child = `
  import { readFileSync } from 'node:fs';
  const { normalizePdf } = await import(${url('src/pdf/normalize-pdf.js')});
  const { indexText } = await import(${url('src/pdf/text-index/text-index.js')});
  const { SMALL_DOCUMENT_BYTES } = await import(${url('src/cli/place.js')});
  let result;
  try {
    const { bytes, normalization } = await normalizePdf(new Uint8Array(readFileSync(process.argv[1])));
    // As 'paraph place' does: a small document is read in this thread, a larger one in worker threads.
    const index = await indexText(bytes, bytes.length <= SMALL_DOCUMENT_BYTES ? { workers: 0 } : {});
    result = { pages: index.pageCount, outcome: normalization ? 'normalized: ' + normalization.reason : 'ok' };
  } catch (error) {
    result = { outcome: error?.code ?? 'CRASH ' + String(error?.message ?? error).slice(0, 60) };
  }
  process.stdout.write(JSON.stringify({ ...result, rssMb: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
`;

function measureParaph(path: string): Pick<Run, 'pages' | 'outcome' | 'paraphMs' | 'paraphRssMb'> {
  const start = performance.now();
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', child, path], { encoding: 'utf8', timeout: TIMEOUT_MS });
  const paraphMs = performance.now() - start;
  if (run.error || run.status !== 0) {
    const outcome = (run.error as { code?: string } | undefined)?.code === 'ETIMEDOUT' ? 'TIMEOUT' : `EXIT ${run.status ?? run.signal}`;
    return { pages: undefined, outcome, paraphMs, paraphRssMb: Number.NaN };
  }
  const r = JSON.parse(run.stdout) as { pages?: number; outcome: string; rssMb: number };
  return { pages: r.pages, outcome: r.outcome, paraphMs, paraphRssMb: r.rssMb };
}

function measurePoppler(path: string): Pick<Run, 'popplerMs' | 'popplerRssMb' | 'popplerOk'> {
  const command = timeTool ?? 'pdftotext';
  const args = timeTool ? ['-f', '%M', 'pdftotext', '-bbox', path, '/dev/null'] : ['-bbox', path, '/dev/null'];
  const start = performance.now();
  const run = spawnSync(command, args, { encoding: 'utf8', timeout: TIMEOUT_MS, stdio: ['ignore', 'ignore', 'pipe'] });
  const popplerMs = performance.now() - start;
  const rss = timeTool ? Number(/(\d+)\s*$/.exec(run.stderr ?? '')?.[1]) / 1024 : Number.NaN;
  return { popplerMs, popplerRssMb: rss, popplerOk: run.status === 0 };
}

function measure(path: string): Run {
  return { file: basename(path), bytes: statSync(path).size, ...measureParaph(path), ...measurePoppler(path) };
}

const files = readdirSync(dir)
  .filter((f) => f.toLowerCase().endsWith('.pdf'))
  .sort()
  .slice(0, limit)
  .map((f) => join(dir, f));
const runs: Run[] = [];
for (const [i, path] of files.entries()) {
  process.stderr.write(`\r${i + 1}/${files.length} ${basename(path).slice(0, 50).padEnd(50)}`);
  runs.push(measure(path));
}
process.stderr.write('\n');

const row = (r: Run): string[] => [
  r.file,
  r.pages === undefined ? '–' : String(r.pages),
  r.outcome,
  fmt(r.paraphMs, 0),
  fmt(r.popplerMs, 0),
  fmt(r.paraphMs / r.popplerMs, 1),
  fmt(r.paraphRssMb, 0),
  fmt(r.popplerRssMb, 0),
];
const header = ['file', 'pages', 'paraph outcome', 'paraph ms', 'pdftotext -bbox ms', 'ratio', 'paraph peak RSS MB', 'pdftotext peak RSS MB'];
printTable(`Corpus ${dir}: every file, each tool in a fresh process`, header, runs.map(row));

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
const read = runs.filter((r) => r.outcome === 'ok' || r.outcome.startsWith('normalized'));
const both = read.filter((r) => r.popplerOk);
const refusals = new Map<string, { files: number; popplerRead: number }>();
for (const r of runs) {
  if (read.includes(r)) continue;
  const count = refusals.get(r.outcome) ?? { files: 0, popplerRead: 0 };
  refusals.set(r.outcome, { files: count.files + 1, popplerRead: count.popplerRead + (r.popplerOk ? 1 : 0) });
}
const popplerOnly = runs.filter((r) => r.popplerOk && !read.includes(r)).length;
printTable('Corpus totals', ['files', 'read by paraph', 'normalized', 'read by both', 'paraph ms (both read)', 'pdftotext ms (both read)', 'ratio', 'paraph max peak RSS MB', 'pdftotext max peak RSS MB', 'refused by paraph, read by poppler'], [[
  String(runs.length),
  String(read.length),
  String(runs.filter((r) => r.outcome.startsWith('normalized')).length),
  String(both.length),
  fmt(sum(both.map((r) => r.paraphMs)), 0),
  fmt(sum(both.map((r) => r.popplerMs)), 0),
  fmt(sum(both.map((r) => r.paraphMs)) / sum(both.map((r) => r.popplerMs)), 2),
  fmt(Math.max(...runs.map((r) => r.paraphRssMb).filter(Number.isFinite)), 0),
  fmt(Math.max(...runs.map((r) => r.popplerRssMb).filter(Number.isFinite)), 0),
  String(popplerOnly),
]]);
printTable('Refusals by code', ['code', 'files', 'of them read by pdftotext -bbox (ref)'], [...refusals].sort((a, b) => b[1].files - a[1].files).map(([code, n]) => [code, String(n.files), String(n.popplerRead)]));
printTable('Worst ten (paraph / pdftotext time)', header, [...runs].sort((a, b) => b.paraphMs / b.popplerMs - a.paraphMs / a.popplerMs).slice(0, 10).map(row));

if (withGenerated) {
  const generated = [await benchPdf(1), await benchPdf(1000), await mixedContractPdf(1000)];
  printTable('Generated files, same run, fresh processes', header, generated.map((path) => row(measure(path))));
}
