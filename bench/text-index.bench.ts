/**
 * Text index benchmark (issue 2): index time, ms/page and peak RSS at 10–5,000 pages, next to poppler's
 * `pdftotext -bbox` on the same file, and the time to resolve 100 Search locations on the built index.
 * `npm run bench -- text-index [--max=1000]`. Measures the compiled library (see compileSrc in gen-pdf.ts): as
 * shipped, its worker threads load `.js` directly, while under tsx every worker would first start a TypeScript loader.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FileMetaData } from '../src/domain/file-metadata.js';
import type * as Locate from '../src/pdf/locate.js';
import type * as TextIndexModule from '../src/pdf/text-index.js';
import { benchPdf, compileSrc } from './gen-pdf.js';
import { fmt, hasCommand, peakRssMb, printTable, sampleMs, timeCommandMs, timeMs } from './lib.js';

const dist = compileSrc();
const { findText, indexText } = (await import(pathToFileURL(join(dist, 'src/pdf/text-index.js')).href)) as typeof TextIndexModule;
const { resolveLocations } = (await import(pathToFileURL(join(dist, 'src/pdf/locate.js')).href)) as typeof Locate;

const maxArg = process.argv.find((a) => a.startsWith('--max='));
const max = maxArg ? Number(maxArg.slice(6)) : Infinity;
const sizes = [10, 100, 1000, 5000].filter((n) => n <= max);
const poppler = hasCommand('pdftotext');
const rows: string[][] = [];

for (const pages of sizes) {
  const path = await benchPdf(pages);
  const bytes = new Uint8Array(readFileSync(path));
  let index = await indexText(bytes); // warm-up and the index used below
  const runs = pages >= 1000 ? 1 : 3;
  const times = await sampleMs(runs, async () => {
    index = await indexText(bytes);
  });
  const ms = times[Math.floor(times.length / 2)]!;
  if (findText(index, '{{Signer1}}').length !== pages) throw new Error('benchmark document is not indexed completely');
  // 100 Search locations with distinct texts: the page anchors, spread over the document.
  const metadata: FileMetaData = { FormSets: { fs: {} } };
  for (let i = 0; i < 100; i++) {
    const page = 1 + Math.floor((i * pages) / 100);
    metadata.FormSets!.fs![`f${i}`] = { Type: 'Signature', Location: { Search: `{{P${page}}}`, Top: -75 } };
  }
  const resolveMs = await timeMs(() => resolveLocations(index, metadata));
  const popplerMs = poppler ? timeCommandMs('pdftotext', ['-bbox', path, '/dev/null']) : Number.NaN;
  rows.push([
    String(pages),
    fmt(ms, 0),
    fmt(ms / pages, 2),
    fmt(resolveMs, 1),
    fmt(resolveMs / 100, 2),
    fmt(peakRssMb(), 0),
    fmt(popplerMs, 0),
    fmt(popplerMs / pages, 2),
    fmt(ms / popplerMs, 2),
  ]);
}

printTable('Text index (indexText, worker threads, compiled) vs pdftotext -bbox', [
  'pages',
  'index ms',
  'ms/page',
  'resolve 100 locations ms',
  'ms/location',
  'peak RSS MB',
  'pdftotext -bbox ms',
  'pdftotext ms/page',
  'ratio',
], rows);
