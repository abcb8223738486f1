/**
 * Parity of the two text engines: for each PDF named on the command line, both engines index it and every
 * page's words that occur once (up to 30 a page, as the parity tests take them) are compared by box. Prints per file
 * the anchors compared, the largest box difference, how many differ by more than 1 pt, the anchors each engine misses,
 * and on how many pages the two texts differ at all; `--show=N` lists the N worst differences and missing anchors per
 * file. Third-party files (e.g. Mozilla pdf.js's test/pdfs) are read from their path, never copied into the repository.
 *
 * `npx tsx bench/engine-parity.ts [--per-page=30] [--tolerance=1] [--show=5] <pdf>...`
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { indexText, type TextEngine, type TextIndex } from '../src/pdf/text-index/text-index.js';
import { compareIndexes } from '../test/helpers/engine-parity.js';

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const perPage = Number(arg('per-page') ?? 30);
const tolerance = Number(arg('tolerance') ?? 1);
const show = Number(arg('show') ?? 5);
const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (files.length === 0) {
  console.error('usage: npx tsx bench/engine-parity.ts [--per-page=30] [--tolerance=1] [--show=5] <pdf>...');
  process.exit(2);
}

async function index(bytes: Uint8Array, engine: TextEngine): Promise<TextIndex | string> {
  try {
    return await indexText(bytes, { engine });
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return `refused ${e.code ?? ''} ${(e.message ?? String(error)).slice(0, 120)}`;
  }
}

const rows: string[][] = [];
const totals = { anchors: 0, over: 0, missingPdfium: 0, missingPdfjs: 0, worst: 0, textDiffers: 0 };
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  const name = basename(file);
  const pdfjs = await index(bytes, 'pdfjs');
  const pdfium = await index(bytes, 'pdfium');
  if (typeof pdfjs === 'string' || typeof pdfium === 'string') {
    rows.push([name, '', '', '', '', '', '', '', `pdf.js: ${typeof pdfjs === 'string' ? pdfjs : 'ok'}; PDFium: ${typeof pdfium === 'string' ? pdfium : 'ok'}`]);
    continue;
  }
  const c = compareIndexes(pdfjs, pdfium, perPage, tolerance);
  totals.anchors += c.anchors;
  totals.over += c.over.length;
  totals.missingPdfium += c.missingInB.length;
  totals.missingPdfjs += c.missingInA.length;
  totals.worst = Math.max(totals.worst, c.worst);
  totals.textDiffers += c.textDiffers.length;
  const pages = pdfjs.pageCount === pdfium.pageCount ? String(pdfjs.pageCount) : `${pdfjs.pageCount}/${pdfium.pageCount}`;
  rows.push([name, pages, String(c.anchors), c.worst.toFixed(2), String(c.over.length), String(c.missingInB.length), String(c.missingInA.length), String(c.textDiffers.length), '']);
  if (show > 0) {
    for (const d of c.over.slice(0, show)) {
      const box = (r: typeof d.a): string => `[${[r.left, r.top, r.width, r.height].map((v) => v.toFixed(2)).join(' ')}]`;
      console.log(`  ${name} page ${d.pageNumber} ${JSON.stringify(d.word)}: ${d.distance.toFixed(2)} pt, pdf.js ${box(d.a)} PDFium ${box(d.b)}`);
    }
    for (const m of c.missingInB.slice(0, show)) console.log(`  ${name} missing in PDFium: ${m}`);
    for (const m of c.missingInA.slice(0, show)) console.log(`  ${name} missing in pdf.js: ${m}`);
    if (c.textDiffers.length > 0) console.log(`  ${name} text differs on pages ${c.textDiffers.slice(0, 20).join(', ')}${c.textDiffers.length > 20 ? ', …' : ''}`);
  }
}
const header = ['file', 'pages', 'anchors', 'max diff (pt)', `> ${tolerance} pt`, 'missing in PDFium', 'missing in pdf.js', 'pages whose text differs', 'note'];
rows.push(['total', '', String(totals.anchors), totals.worst.toFixed(2), String(totals.over), String(totals.missingPdfium), String(totals.missingPdfjs), String(totals.textDiffers), '']);
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map(() => '---').join('|')}|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
process.exit(0);
