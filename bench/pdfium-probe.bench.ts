/**
 * Probe for issue 14's engine question: how fast PDFium in WebAssembly (`@embedpdf/pdfium`, already a dependency for
 * normalization) reads every character with its box, single-threaded, next to paraph's pdf.js index (warm, worker
 * threads) and `pdftotext -bbox` on the same files. Not an engine: it measures whether one would reach the goal.
 * `npm run bench -- pdfium-probe [--file=<pdf>]...` (default: the generated 1000-page bench text and mixed contract).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { benchPdf, mixedContractPdf } from './gen-pdf.js';
import { fmt, printTable, timeCommandMs } from './lib.js';
import { copyIn, loadPdfium, type Pdfium } from '../src/pdf/pdfium.js';
import { indexText } from '../src/pdf/text-index.js';

interface TextApi {
  FPDF_LoadPage(doc: number, index: number): number;
  FPDF_ClosePage(page: number): void;
  FPDFText_LoadPage(page: number): number;
  FPDFText_ClosePage(text: number): void;
  FPDFText_CountChars(text: number): number;
  FPDFText_GetUnicode(text: number, index: number): number;
  FPDFText_GetLooseCharBox(text: number, index: number, rect: number): boolean;
}

const files = process.argv.filter((a) => a.startsWith('--file=')).map((a) => a.slice(7));
if (files.length === 0) files.push(await benchPdf(1000), await mixedContractPdf(1000));

const initStart = performance.now();
const pdfium = (await loadPdfium()) as Pdfium & TextApi;
const initMs = performance.now() - initStart;

function pdfiumChars(bytes: Uint8Array): { pages: number; chars: number; ms: number } {
  const start = performance.now();
  const ptr = copyIn(pdfium, bytes);
  const doc = pdfium.FPDF_LoadMemDocument(ptr, bytes.length, '');
  const rect = pdfium.pdfium.wasmExports.malloc(16);
  const pages = pdfium.FPDF_GetPageCount(doc);
  let chars = 0;
  let checksum = 0;
  for (let p = 0; p < pages; p++) {
    const page = pdfium.FPDF_LoadPage(doc, p);
    const text = pdfium.FPDFText_LoadPage(page);
    const n = pdfium.FPDFText_CountChars(text);
    for (let i = 0; i < n; i++) {
      checksum += pdfium.FPDFText_GetUnicode(text, i);
      if (pdfium.FPDFText_GetLooseCharBox(text, i, rect)) checksum += pdfium.pdfium.HEAPU8[rect]!;
    }
    chars += n;
    pdfium.FPDFText_ClosePage(text);
    pdfium.FPDF_ClosePage(page);
  }
  pdfium.pdfium.wasmExports.free(rect);
  pdfium.FPDF_CloseDocument(doc);
  pdfium.pdfium.wasmExports.free(ptr);
  if (!Number.isFinite(checksum)) throw new Error('unreachable');
  return { pages, chars, ms: performance.now() - start };
}

const rows: string[][] = [];
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  pdfiumChars(bytes); // warm the JIT and PDFium's caches
  const pdfiumRun = pdfiumChars(bytes);
  await indexText(bytes); // warm the worker pool
  const start = performance.now();
  await indexText(bytes);
  const pdfjsMs = performance.now() - start;
  const popplerMs = timeCommandMs('pdftotext', ['-bbox', file, '/dev/null']);
  rows.push([basename(file), String(pdfiumRun.pages), String(pdfiumRun.chars), fmt(pdfiumRun.ms, 0), fmt(pdfjsMs, 0), fmt(popplerMs, 0), fmt(pdfiumRun.ms / popplerMs, 2), fmt(pdfjsMs / popplerMs, 2)]);
}
printTable(`PDFium (WASM, 1 thread, load ${fmt(initMs, 0)} ms) vs paraph's pdf.js index (warm) vs pdftotext -bbox`, ['file', 'pages', 'chars', 'PDFium ms', 'pdf.js index ms', 'pdftotext ms', 'PDFium / pdftotext', 'pdf.js / pdftotext'], rows);
