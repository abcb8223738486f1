/**
 * Does Location `Search` find the words poppler reads? For each PDF of a folder (a corpus such as Mozilla pdf.js's
 * `test/pdfs`, read where it lies), takes the first few words of at least 4 letters that `pdftotext` prints on page 1
 * and looks each up as an upload would: normalizePdf, then indexText of page 1 and findText. Prints found/missed per
 * file and the totals. A missed word that pdftotext no longer prints once the page's annotations are removed lives
 * only in an annotation's appearance (a form field, a FreeText comment), which Search does not read
 * (docs/locations.md#what-search-reads): it is counted apart.
 *
 *   npx tsx scripts/search-corpus-report.ts [<folder>] [--engine=pdfjs|pdfium] [--words=5] [--only=a.pdf,b.pdf]
 *       [--timeout=60] [--misses-only] [--json]
 *
 * The folder defaults to PARAPH_CORPUS_DIR. Files are read in a child process; one that runs past the timeout
 * (seconds) is reported as such and the run goes on with the next file. `--json` prints one JSON report per file
 * instead (what test/corpus/search-poppler-words.test.ts reads).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** One file's result, as the child reports it. */
export interface FileReport {
  file: string;
  /** Words pdftotext prints on page 1 (the first `words` of ≥ 4 letters). */
  words: string[];
  missed: string[];
  /** Of `missed`, those that only an annotation's appearance draws. */
  inAnnotations: string[];
  /**
   * Of `missed`, those poppler prints as the font's codes (a font without usable Unicode): PDFium's own reading of the
   * page, which gives those codes too, has the word, but the page was read with pdf.js, whose fallbacks read the letters.
   */
  asCodes?: string[];
  /** Why the file could not be searched (a refusal code, a timeout), when it could not. */
  failure?: string;
}

const MIN_LETTERS = 4;

/** The first `count` distinct words of ≥ 4 letters (punctuation around them removed) in pdftotext's output. */
export function popplerWords(text: string, count: number): string[] {
  const words: string[] = [];
  for (const token of text.split(/\s+/u)) {
    const word = token.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '');
    if ([...word].filter((c) => /\p{L}/u.test(c)).length < MIN_LETTERS) continue;
    if (!words.includes(word)) words.push(word);
    if (words.length === count) break;
  }
  return words;
}

function pdftotext(file: string): string {
  return execFileSync('pdftotext', ['-q', '-f', '1', '-l', '1', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8', timeout: 30_000, maxBuffer: 64 << 20 });
}

/** pdftotext's page 1 of a copy without page 1's annotations; undefined when that copy cannot be made. */
async function withoutAnnotationsText(bytes: Uint8Array, dir: string): Promise<string | undefined> {
  const { PDFDocument, PDFName } = await import('../src/pdf/pdf-lib.js');
  try {
    const doc = await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false });
    doc.getPage(0).node.delete(PDFName.of('Annots'));
    // A copy for poppler to read, never a signed document handed back: pdf-lib's save is fine here.
    const copy = join(dir, 'no-annots.pdf');
    writeFileSync(copy, await doc.save({ useObjectStreams: false }));
    return pdftotext(copy);
  } catch {
    return undefined;
  }
}

async function reportFile(file: string, engine: 'pdfium' | 'pdfjs', count: number, dir: string): Promise<FileReport> {
  const report: FileReport = { file: basename(file), words: [], missed: [], inAnnotations: [] };
  try {
    report.words = popplerWords(pdftotext(file), count);
  } catch {
    return { ...report, failure: 'pdftotext failed' };
  }
  if (report.words.length === 0) return report;
  const { normalizePdf } = await import('../src/pdf/normalize-pdf.js');
  const { indexText, findText } = await import('../src/pdf/text-index/text-index.js');
  const original = new Uint8Array(readFileSync(file));
  let index;
  let searched: Uint8Array;
  try {
    searched = (await normalizePdf(original)).bytes;
    index = await indexText(searched, { pages: [1], engine, workers: 1 });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { ...report, failure: typeof code === 'string' ? code : `crash: ${String(error).slice(0, 80)}` };
  }
  report.missed = report.words.filter((word) => findText(index, word, { pageNumber: 1 }).length === 0);
  if (report.missed.length > 0 && engine === 'pdfium') report.asCodes = await foundInCodes(original, report.missed);
  if (report.missed.length > 0) {
    // From the file as searched: decrypted and repaired, which pdf-lib and poppler read alike.
    const contentText = await withoutAnnotationsText(searched, dir);
    if (contentText !== undefined) {
      const contentWords = new Set(contentText.split(/\s+/u).map((t) => t.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '')));
      report.inAnnotations = report.missed.filter((word) => !contentWords.has(word) && !contentText.includes(word));
    }
  }
  return report;
}

/** Of `words`, those PDFium's own reading of page 1 has when it read that page poorly (codes for letters). */
async function foundInCodes(pdf: Uint8Array, words: string[]): Promise<string[]> {
  const { loadPdfium } = await import('../src/pdf/pdfium.js');
  const { openPdfiumDocument, closePdfiumDocument, extractPdfiumPage } = await import('../src/pdf/text-index/pdfium-extract.js');
  const { normalizePdf } = await import('../src/pdf/normalize-pdf.js');
  const { searchPage } = await import('../src/pdf/text-index/search.js');
  try {
    const pdfium = await loadPdfium();
    const opened = openPdfiumDocument(pdfium, (await normalizePdf(pdf)).bytes);
    try {
      const { text, readPoorly } = extractPdfiumPage(pdfium, opened, 1, true);
      if (!text || !readPoorly) return [];
      return words.filter((needle) => searchPage(1, text.text, text.boxes, [{ needle, keep: 1 }]).length > 0);
    } finally {
      closePdfiumDocument(pdfium, opened);
    }
  } catch {
    return [];
  }
}

/** Child mode: reports the files named on stdin's first line, one JSON line each. */
async function child(engine: 'pdfium' | 'pdfjs', count: number, files: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'search-corpus-'));
  try {
    for (const file of files) process.stdout.write(`${JSON.stringify(await reportFile(file, engine, count, dir))}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function arg(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** Runs the files in child processes, one after the other; a file past the timeout kills its child. */
function runAll(files: string[], engine: string, count: number, timeoutMs: number, onReport: (r: FileReport) => void): Promise<void> {
  return new Promise((resolve) => {
    let next = 0;
    const launch = (): void => {
      if (next >= files.length) {
        resolve();
        return;
      }
      const batch = files.slice(next);
      const proc = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', `--engine=${engine}`, `--words=${count}`, ...batch], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let timer: NodeJS.Timeout;
      const arm = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          onReport({ file: basename(files[next]!), words: [], missed: [], inAnnotations: [], failure: `timeout after ${timeoutMs / 1000} s` });
          next++;
          proc.kill('SIGKILL');
        }, timeoutMs);
      };
      arm();
      createInterface({ input: proc.stdout }).on('line', (line) => {
        if (!line.startsWith('{')) return;
        onReport(JSON.parse(line) as FileReport);
        next++;
        arm();
      });
      proc.on('exit', (code, sig) => {
        clearTimeout(timer);
        if (sig === null && code !== 0 && next < files.length) {
          onReport({ file: basename(files[next]!), words: [], missed: [], inAnnotations: [], failure: `process exit ${code}` });
          next++;
        }
        launch();
      });
    };
    launch();
  });
}

async function main(): Promise<void> {
  const engine = arg('engine') === 'pdfjs' ? 'pdfjs' : 'pdfium';
  const count = Number(arg('words') ?? 5);
  if (process.argv.includes('--child')) {
    await child(engine, count, process.argv.slice(2).filter((a) => !a.startsWith('--')));
    process.exit(0);
  }
  const folder = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? process.env.PARAPH_CORPUS_DIR;
  if (!folder) throw new Error('give the corpus folder as an argument or in PARAPH_CORPUS_DIR');
  const only = arg('only')?.split(',');
  const files = readdirSync(folder)
    .filter((f) => f.toLowerCase().endsWith('.pdf') && (!only || only.includes(f)))
    .sort()
    .map((f) => join(folder, f));
  const timeoutMs = Number(arg('timeout') ?? 60) * 1000;
  const missesOnly = process.argv.includes('--misses-only');
  const json = process.argv.includes('--json');
  const totals = { asCodes: 0, filesAsCodes: 0, files: 0, withWords: 0, words: 0, missed: 0, inAnnotations: 0, filesMissing: 0, filesMissingContent: 0, failed: 0 };
  await runAll(files, engine, count, timeoutMs, (r) => {
    if (json) {
      console.log(JSON.stringify(r));
      return;
    }
    totals.files++;
    if (r.failure) totals.failed++;
    if (r.words.length > 0 && !r.failure) totals.withWords++;
    totals.words += r.failure ? 0 : r.words.length;
    totals.missed += r.missed.length;
    totals.inAnnotations += r.inAnnotations.length;
    const asCodes = (r.asCodes ?? []).filter((w) => !r.inAnnotations.includes(w));
    totals.asCodes += asCodes.length;
    if (asCodes.length > 0) totals.filesAsCodes++;
    if (r.missed.length > 0) totals.filesMissing++;
    if (r.missed.some((w) => !r.inAnnotations.includes(w) && !asCodes.includes(w))) totals.filesMissingContent++;
    if (missesOnly && r.missed.length === 0 && !r.failure) return;
    const content = r.missed.filter((w) => !r.inAnnotations.includes(w) && !asCodes.includes(w));
    const line = r.failure
      ? `${r.file}: not searched (${r.failure})`
      : `${r.file}: ${r.words.length - r.missed.length}/${r.words.length} found` +
        (content.length ? `; missed ${JSON.stringify(content)}` : '') +
        (r.inAnnotations.length ? `; only in annotations ${JSON.stringify(r.inAnnotations)}` : '') +
        (asCodes.length ? `; poppler prints codes ${JSON.stringify(asCodes)}` : '');
    console.log(line);
  });
  if (json) return;
  console.log(
    `\n${engine}: ${totals.files} files, ${totals.withWords} with words searched, ${totals.failed} not searched; ` +
      `${totals.words} words, ${totals.missed} missed in ${totals.filesMissing} files — ` +
      `${totals.missed - totals.inAnnotations - totals.asCodes} in page content (${totals.filesMissingContent} files), ` +
      `${totals.inAnnotations} only in annotations, ${totals.asCodes} printed by poppler as font codes (${totals.filesAsCodes} files)`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
