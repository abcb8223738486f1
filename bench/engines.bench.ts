/**
 * The text index's two engines on the same files, warm, next to `pdftotext -bbox`: each engine on one
 * thread (`workers: 0`) and in its worker threads (the default), and PDFium's own share — loading every page and its
 * text page, and counting the characters, with none of paraph's work — which bounds what the PDFium engine can reach.
 * `npm run bench -- engines [--file=<pdf>]...` (default: the generated 1000-page text and mixed contract, and the
 * committed corpus' 120-page book).
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { benchPdf, mixedContractPdf } from './gen-pdf.js';
import { fmt, printTable, timeCommandMs } from './lib.js';
import { loadPdfium } from '../src/pdf/pdfium.js';
import { closePdfiumDocument, openPdfiumDocument } from '../src/pdf/text-index/pdfium-extract.js';
import { indexText, type IndexTextOptions, type TextEngine } from '../src/pdf/text-index/text-index.js';

const quick = process.argv.includes('--quick');
const files = process.argv.filter((a) => a.startsWith('--file=')).map((a) => a.slice(7));
if (files.length === 0) {
  const pages = quick ? 100 : 1000;
  files.push(await benchPdf(pages), await mixedContractPdf(pages), join(import.meta.dirname, '../fixtures/corpus/book.pdf'));
}
const ROUNDS = quick ? 1 : 3;

const pdfium = await loadPdfium();

/** PDFium alone on one thread: open, load each page and its text page, count the characters, close. */
function pdfiumOwnMs(bytes: Uint8Array): { chars: number; ms: number } {
  const start = performance.now();
  const opened = openPdfiumDocument(pdfium, bytes);
  let chars = 0;
  for (let p = 0; p < opened.pageCount; p++) {
    const page = pdfium.FPDF_LoadPage(opened.doc, p);
    const text = pdfium.FPDFText_LoadPage(page);
    chars += pdfium.FPDFText_CountChars(text);
    pdfium.FPDFText_ClosePage(text);
    pdfium.FPDF_ClosePage(page);
  }
  closePdfiumDocument(pdfium, opened);
  return { chars, ms: performance.now() - start };
}

/** Best of `ROUNDS` after one warm-up (the JIT, and the worker pool when threads are used). */
async function bestMs(run: () => unknown): Promise<number> {
  await run();
  let best = Infinity;
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    await run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const rows: string[][] = [];
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  const index = (engine: TextEngine, options: IndexTextOptions = {}) => () => indexText(bytes, { engine, ...options });
  let chars = 0;
  const ownMs = await bestMs(() => (chars = pdfiumOwnMs(bytes).chars));
  const pdfiumOne = await bestMs(index('pdfium', { workers: 0 }));
  const pdfjsOne = await bestMs(index('pdfjs', { workers: 0 }));
  const pdfiumThreads = await bestMs(index('pdfium'));
  const pdfjsThreads = await bestMs(index('pdfjs'));
  const popplerMs = Math.min(...Array.from({ length: ROUNDS }, () => timeCommandMs('pdftotext', ['-bbox', file, '/dev/null'])));
  const pageCount = (await indexText(bytes, { workers: 0 })).pageCount;
  rows.push([
    basename(file),
    String(pageCount),
    String(chars),
    fmt(ownMs, 0),
    fmt(pdfiumOne, 0),
    fmt(pdfjsOne, 0),
    fmt(pdfiumThreads, 0),
    fmt(pdfjsThreads, 0),
    fmt(popplerMs, 0),
    fmt(ownMs / popplerMs, 2),
    fmt(pdfiumThreads / popplerMs, 2),
  ]);
}
printTable(
  `Text engines, warm, best of ${ROUNDS}: PDFium's own work (1 thread) and each engine on 1 thread and in its worker threads vs pdftotext -bbox`,
  [
    'file',
    'pages',
    'chars (PDFium)',
    "PDFium's own ms, 1 thread",
    'PDFium engine ms, 1 thread',
    'pdf.js engine ms, 1 thread',
    'PDFium engine ms, threads',
    'pdf.js engine ms, threads',
    'pdftotext -bbox ms',
    "PDFium's own / pdftotext",
    'PDFium engine, threads / pdftotext',
  ],
  rows,
);
process.exit(0);
