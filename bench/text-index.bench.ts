/**
 * Text index benchmark: index time, ms/page and peak RSS at 10–5,000 pages, next to poppler's
 * `pdftotext -bbox` on the same file, and the time to resolve 100 Search locations on the built index.
 * `npm run bench -- text-index [--max=1000]`.
 *
 * Each size is measured in its own plain `node` process running the compiled library (src/ transpiled by
 * compileSrc in gen-pdf.ts): as shipped, the worker threads load `.js` directly (under tsx each would first start a
 * TypeScript loader), and the peak RSS is then that of indexing one document, not of this runner or earlier sizes.
 * Inside that process, a first indexText call warms the worker pool; the second is timed. The peak RSS of that
 * process includes the warm-up's garbage, so a second fresh process indexes the document once and reports the peak
 * RSS of indexing one document on its own.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchPdf, compileSrc } from './gen-pdf.js';
import { fmt, hasCommand, printTable, timeCommandMs } from './lib.js';

interface Measurement {
  indexMs: number;
  coldMs: number;
  resolveMs: number;
  peakRssMb: number;
}

const maxArg = process.argv.find((a) => a.startsWith('--max='));
const max = maxArg ? Number(maxArg.slice(6)) : Infinity;
const sizes = [10, 100, 1000, 5000].filter((n) => n <= max);
const poppler = hasCommand('pdftotext');
const dist = compileSrc();
const url = (file: string): string => JSON.stringify(pathToFileURL(join(dist, file)).href);

const onceChild = `
  import { readFileSync } from 'node:fs';
  const { indexText } = await import(${url('src/pdf/text-index/text-index.js')});
  await indexText(new Uint8Array(readFileSync(process.argv[1])));
  process.stdout.write(JSON.stringify({ peakRssMb: process.resourceUsage().maxRSS / 1024 }));
`;

const child = `
  import { readFileSync } from 'node:fs';
  const { indexText, findText } = await import(${url('src/pdf/text-index/text-index.js')});
  const { resolveLocations } = await import(${url('src/pdf/resolve-locations.js')});
  const [path, pagesArg] = process.argv.slice(1);
  const pages = Number(pagesArg);
  const bytes = new Uint8Array(readFileSync(path));
  let start = performance.now();
  await indexText(bytes);
  const coldMs = performance.now() - start;
  start = performance.now();
  const index = await indexText(bytes);
  const indexMs = performance.now() - start;
  if (findText(index, '{{Signer1}}').length !== pages) throw new Error('benchmark document is not indexed completely');
  // 100 Search locations with distinct texts: the page anchors, spread over the document.
  const fields = {};
  for (let i = 0; i < 100; i++) {
    fields['f' + i] = { Type: 'Signature', Location: { Search: '{{P' + (1 + Math.floor((i * pages) / 100)) + '}}', Top: -75 } };
  }
  start = performance.now();
  resolveLocations(index, { FormSets: { fs: fields } });
  const resolveMs = performance.now() - start;
  process.stdout.write(JSON.stringify({ indexMs, coldMs, resolveMs, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
`;

const rows: string[][] = [];
for (const pages of sizes) {
  const path = await benchPdf(pages);
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', child, path, String(pages)], {
    encoding: 'utf8',
    maxBuffer: 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`benchmark of ${pages} pages failed: ${run.stderr}`);
  const m = JSON.parse(run.stdout) as Measurement;
  const once = spawnSync(process.execPath, ['--input-type=module', '-e', onceChild, path], { encoding: 'utf8' });
  if (once.status !== 0) throw new Error(`single index of ${pages} pages failed: ${once.stderr}`);
  const onceRssMb = (JSON.parse(once.stdout) as { peakRssMb: number }).peakRssMb;
  const popplerMs = poppler ? timeCommandMs('pdftotext', ['-bbox', path, '/dev/null']) : Number.NaN;
  rows.push([
    String(pages),
    fmt(m.indexMs, 0),
    fmt(m.indexMs / pages, 2),
    fmt(m.coldMs, 0),
    fmt(m.resolveMs, 1),
    fmt(m.resolveMs / 100, 3),
    fmt(onceRssMb, 0),
    fmt(m.peakRssMb, 0),
    fmt(popplerMs, 0),
    fmt(popplerMs / pages, 2),
    fmt(m.indexMs / popplerMs, 2),
  ]);
}

printTable('Text index (indexText, 2 pooled worker threads, compiled) vs pdftotext -bbox', [
  'pages',
  'index ms',
  'ms/page',
  'first call ms (threads start)',
  'resolve 100 locations ms',
  'ms/location',
  'peak RSS MB (one index, fresh process)',
  'peak RSS MB (warm-up + timed)',
  'pdftotext -bbox ms',
  'pdftotext ms/page',
  'ratio',
], rows);
