/**
 * Scaling benchmark: ms/page of paraph's place, sign and verify against page count (10 … 5,000), measured by
 * `paraph bench <op> --json` itself (the compiled CLI, one plain node process per operation and size, so the published
 * numbers are what a user's `paraph bench` reports), next to the references when installed: `pdftotext -bbox`,
 * `sha256sum` and pdf-lib's `PDFDocument.load`. `paraph place` also runs once in a fresh process (cold, as on the command
 * line), for its wall time and peak RSS: `paraph bench`'s peak includes its warm-up and earlier runs. `npm run bench -- --plot` also writes the chart into the run's
 * untracked results folder (bench-results/<timestamp>/scaling.svg; alone: bench-results/scaling.svg). `npx tsx bench/scaling.bench.ts [--max=1000] [--plot]`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument } from '../src/pdf/pdf-lib.js';
import type { BenchResult } from '../src/bench/bench-operation.js';
import { renderLineChart, type ChartSeries } from '../src/bench/svg-chart.js';
import { signPdf } from '../src/pades/sign-pdf.js';
import { testPki } from '../src/testing/test-pki.js';
import { benchPdf, compileSrc } from './gen-pdf.js';
import { BENCH_CACHE, fmt, hasCommand, printTable, sampleMs, summarize, timeCommandMs } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const maxArg = process.argv.find((a) => a.startsWith('--max='));
const max = maxArg ? Number(maxArg.slice(6)) : Infinity;
// The runner (bench/run.ts) passes its results folder and always wants the chart; alone, --plot asks for it.
const outDir = process.argv.find((a) => a.startsWith('--out-dir='))?.slice(10);
const plot = process.argv.includes('--plot') || outDir !== undefined;
const SIZES = [10, 50, 100, 500, 1000, 5000].filter((n) => n <= max);
const NOW = new Date('2026-11-21T10:00:00Z');
// Small documents are cheap and noisy on a shared machine: more runs there.
const runsFor = (pages: number): number => (pages >= 5000 ? 2 : pages >= 1000 ? 3 : pages >= 500 ? 5 : 9);

const dist = compileSrc();
// The compiled fonts module looks for assets/ next to its src/ directory.
if (!existsSync(join(dist, 'assets'))) symlinkSync(join(root, 'assets'), join(dist, 'assets'));
const cli = join(dist, 'src', 'cli.js');

function paraphBench(args: readonly string[]): BenchResult {
  const run = spawnSync(process.execPath, [cli, 'bench', ...args, '--json', '--no-progress'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`paraph bench ${args.join(' ')} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as BenchResult;
}

async function signedCopy(pages: number, path: string): Promise<string> {
  const out = join(BENCH_CACHE, `scaling-signed-${pages}.pdf`);
  if (!existsSync(out)) {
    const pki = await testPki();
    writeFileSync(out, (await signPdf(new Uint8Array(readFileSync(path)), { signer: pki.signers.p256.signer, signingTime: NOW })).bytes);
  }
  return out;
}

function metadataFor(pages: number): string {
  const out = join(BENCH_CACHE, `scaling-metadata-${pages}.json`);
  // The last page's anchor: the whole document is searched, one field placed.
  writeFileSync(out, JSON.stringify({ FormSets: { f: { sig: { Type: 'Signature', Location: { Search: `{{P${pages}}}`, Top: -75 } } } } }));
  return out;
}

/** One `paraph place` in a fresh process, as a user runs it: wall time and peak RSS (from /usr/bin/time). */
interface ColdPlace {
  ms: number;
  peakRssMb: number;
}

const timeTool = hasCommand('/usr/bin/time') ? '/usr/bin/time' : undefined;

function placeOnce(pdf: string, metadata: string): ColdPlace {
  const out = join(BENCH_CACHE, 'scaling-placed.pdf');
  const command = [process.execPath, cli, 'place', pdf, metadata, '-o', out];
  const start = performance.now();
  const run = timeTool
    ? spawnSync(timeTool, ['-f', '%M', ...command], { encoding: 'utf8' })
    : spawnSync(command[0] as string, command.slice(1), { encoding: 'utf8' });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`paraph place ${pdf} failed: ${run.stderr}`);
  const rssKb = timeTool ? Number(/(\d+)\s*$/.exec(run.stderr)?.[1]) : Number.NaN;
  return { ms, peakRssMb: rssKb / 1024 };
}

interface Row {
  pages: number;
  place: BenchResult;
  placeCold: ColdPlace;
  sign: BenchResult;
  verify: BenchResult;
  pdftotext: number;
  sha256sum: number;
  pdfLibLoad: number;
}

const rows: Row[] = [];
const pdftotext = hasCommand('pdftotext');
const sha256sum = hasCommand('sha256sum');
for (const pages of SIZES) {
  process.stderr.write(`  ${pages} pages…\n`);
  const path = await benchPdf(pages);
  const runs = String(runsFor(pages));
  const place = paraphBench(['place', path, metadataFor(pages), '--runs', runs]);
  const placeCold = placeOnce(path, metadataFor(pages));
  const sign = paraphBench(['sign', path, '--runs', runs]);
  const verify = paraphBench(['verify', await signedCopy(pages, path), '--runs', runs]);
  const median = (xs: number[]): number => summarize(xs).median;
  const reference = (command: string, args: string[]): number => median([0, 1, 2, 3, 4].map(() => timeCommandMs(command, args)));
  const bytes = new Uint8Array(readFileSync(path));
  rows.push({
    pages,
    place,
    placeCold,
    sign,
    verify,
    pdftotext: pdftotext ? reference('pdftotext', ['-bbox', path, '/dev/null']) : Number.NaN,
    sha256sum: sha256sum ? reference('sha256sum', [path]) : Number.NaN,
    pdfLibLoad: median(await sampleMs(Number(runs), () => PDFDocument.load(bytes, { updateMetadata: false }))),
  });
}

printTable(
  'ms per page (median) by page count: paraph bench place/sign/verify (compiled CLI, one process each) and references',
  [
    'pages',
    'place',
    'place, one run in a fresh process',
    'sign',
    'verify',
    'pdftotext -bbox',
    'sha256sum',
    'pdf-lib load',
    'place peak RSS MB (warm-up + runs)',
    'place peak RSS MB (one run, fresh process)',
    'sign peak RSS MB',
    'verify peak RSS MB',
  ],
  rows.map((r) => [
    String(r.pages),
    fmt(r.place.msPerPage, 3),
    fmt(r.placeCold.ms / r.pages, 3),
    fmt(r.sign.msPerPage, 3),
    fmt(r.verify.msPerPage, 3),
    fmt(r.pdftotext / r.pages, 3),
    fmt(r.sha256sum / r.pages, 4),
    fmt(r.pdfLibLoad / r.pages, 3),
    fmt(r.place.peakRssMb, 0),
    fmt(r.placeCold.peakRssMb, 0),
    fmt(r.sign.peakRssMb, 0),
    fmt(r.verify.peakRssMb, 0),
  ]),
);

if (plot) {
  const series = (name: string, y: (r: Row) => number, dashed = false): ChartSeries => ({
    name,
    dashed,
    points: rows.map((r) => ({ x: r.pages, y: y(r) })),
  });
  const svg = renderLineChart({
    title: 'paraph: ms per page against page count (median, log–log)',
    xLabel: 'pages',
    yLabel: 'ms per page',
    series: [
      series('paraph place', (r) => r.place.msPerPage),
      series('paraph sign', (r) => r.sign.msPerPage),
      series('paraph verify', (r) => r.verify.msPerPage),
      ...(pdftotext ? [series('pdftotext -bbox', (r) => r.pdftotext / r.pages, true)] : []),
      ...(sha256sum ? [series('sha256sum', (r) => r.sha256sum / r.pages, true)] : []),
      series('pdf-lib load', (r) => r.pdfLibLoad / r.pages, true),
    ],
  });
  const out = join(outDir ?? join(root, 'bench-results'), 'scaling.svg');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, svg);
  process.stderr.write(`wrote ${out}\n`);
}
