/**
 * The corpus run over the committed hazard sample (fixtures/corpus/, see generate-corpus.ts): every file
 * is either indexed or refused with its stated code, never crashes the process, stays under the memory limits, and
 * where both paraph and poppler's `pdftotext -bbox` read a file, each anchor word is where poppler puts it within
 * 1 pt (left and right edges; baselines from Helvetica's AFM descent, as in test/pdf/text-index-poppler.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParaphError } from '../../src/errors.js';
import { normalizePdf } from '../../src/pdf/normalize-pdf.js';
import { findText, indexText, TEXT_ENGINES, type TextEngine, type TextIndex } from '../../src/pdf/text-index/text-index.js';
import type { IndexLimits } from '../../src/pdf/text-index/limits.js';
import { scratchFiles } from '../helpers/scratch-files.js';

const CORPUS = join(import.meta.dirname, '../../fixtures/corpus');

interface Entry {
  file: string;
  hazard: string;
  expect: 'read' | 'refused';
  codes?: string[];
  normalize?: boolean;
  anchors: { page: number; text: string; size: number }[];
}

const entries = JSON.parse(readFileSync(join(CORPUS, 'corpus.json'), 'utf8')) as Entry[];
const HELVETICA_DESCENT = 0.207;
/** Generous for a loaded CI machine; the cycle must still end well within a test's time. */
const LIMITS: Partial<IndexLimits> = { pageMs: 20_000, baseMs: 30_000, maxHeapMb: 512 };
const CYCLE_LIMITS: Partial<IndexLimits> = { ...LIMITS, pageMs: 2_000 };
/** No file of the sample may take the test process anywhere near the 4–6 GB pdf.js reached on the originals. */
const PEAK_RSS_MB = 1536;

interface PopplerWord {
  page: number;
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

const scratch = scratchFiles('corpus');

function popplerWords(pdf: Uint8Array): PopplerWord[] | undefined {
  let html: string;
  try {
    html = execFileSync('pdftotext', ['-bbox', scratch.file(pdf), '-'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000, maxBuffer: 256 * 1024 * 1024 });
  } catch {
    return undefined;
  }
  const words: PopplerWord[] = [];
  let page = 0;
  for (const m of html.matchAll(/<page |<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g)) {
    if (m[0] === '<page ') page++;
    else words.push({ page, text: m[5]!, xMin: Number(m[1]), yMin: Number(m[2]), xMax: Number(m[3]), yMax: Number(m[4]) });
  }
  return words;
}

let peakRss = 0;
let sampler: ReturnType<typeof setInterval>;
beforeAll(() => {
  sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss() / 1048576);
  }, 25);
});
afterAll(() => clearInterval(sampler));

/**
 * What an engine does otherwise than corpus.json says (pdf.js's outcome): PDFium breaks a drawing cycle itself, as
 * poppler does, and reads the page.
 */
const PDFIUM_READS = new Set(['form-pattern-cycle.pdf']);

async function index(entry: Entry, bytes: Uint8Array, engine: TextEngine): Promise<TextIndex | ParaphError> {
  try {
    return await indexText(bytes, { engine, limits: entry.file.includes('cycle') ? CYCLE_LIMITS : LIMITS });
  } catch (error) {
    if (error instanceof ParaphError) return error;
    throw error;
  }
}

describe.each(TEXT_ENGINES)('the hazard corpus (%s)', (engine) => {
  for (const listed of entries) {
    const entry: Entry = engine === 'pdfium' && PDFIUM_READS.has(listed.file) ? { ...listed, expect: 'read' } : listed;
    const outcome = entry.normalize
      ? `${entry.expect === 'refused' ? `refused with ${entry.codes?.join('/')}, ` : ''}normalized, then read`
      : entry.expect === 'read' ? 'read' : `refused with ${entry.codes?.join('/')}`;
    it(`${entry.file} (${entry.hazard}): ${outcome}${entry.anchors.length > 0 ? ", anchors as poppler's" : ''}`, async () => {
      let bytes: Uint8Array = readFileSync(join(CORPUS, entry.file));
      if (entry.normalize) {
        // The file as it stands is refused (encrypted) or unfit for an incremental update (damaged xref); the upload
        // path rewrites it, and the rewrite reads.
        if (entry.expect === 'refused') {
          const before = await index(entry, bytes, engine);
          expect(before).toBeInstanceOf(ParaphError);
          expect(entry.codes).toContain((before as ParaphError).code);
        }
        const normalized = await normalizePdf(bytes);
        expect(normalized.normalization).toBeDefined();
        bytes = normalized.bytes;
      }
      const result = await index(entry, bytes, engine);
      const expectRead = entry.expect === 'read' || entry.normalize === true;
      if (!expectRead) {
        expect(result).toBeInstanceOf(ParaphError);
        expect(entry.codes).toContain((result as ParaphError).code);
        if ((result as ParaphError).code === 'PDF_TOO_COMPLEX') expect((result as ParaphError).message).toMatch(/^Page 1 of the PDF is too complex/);
        return;
      }
      expect(result, String(result)).not.toBeInstanceOf(ParaphError);
      const idx = result as TextIndex;
      const words = popplerWords(bytes);
      expect(words, 'pdftotext reads it').toBeDefined();
      for (const anchor of entry.anchors) {
        const ours = findText(idx, anchor.text, { pageNumber: anchor.page });
        const theirs = words!.filter((w) => w.page === anchor.page && w.text === anchor.text);
        expect(ours.map((m) => m.text), anchor.text).toEqual([anchor.text]);
        expect(theirs, anchor.text).toHaveLength(1);
        const box = ours[0]!.box;
        const word = theirs[0]!;
        expect(Math.abs(box.left - word.xMin), `${anchor.text} left`).toBeLessThanOrEqual(1);
        expect(Math.abs(box.left + box.width - word.xMax), `${anchor.text} right`).toBeLessThanOrEqual(1);
        const ourBaseline = box.top + 0.8 * anchor.size;
        expect(Math.abs(ourBaseline - (word.yMax - HELVETICA_DESCENT * anchor.size)), `${anchor.text} baseline`).toBeLessThanOrEqual(1);
      }
    });
  }
});

describe('the hazard corpus', () => {
  it('refuses a document with more pages than allowed, naming the count', async () => {
    const error = await indexText(readFileSync(join(CORPUS, 'book.pdf')), { limits: { maxPages: 50 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParaphError);
    expect((error as ParaphError).code).toBe('PDF_TOO_COMPLEX');
    expect((error as ParaphError).message).toMatch(/has 120 pages, more than the 50 allowed/);
  });

  it('keeps serving after a refusal: the same process indexes the next document', async () => {
    const cycle = await indexText(readFileSync(join(CORPUS, 'form-pattern-cycle.pdf')), { engine: 'pdfjs', limits: CYCLE_LIMITS }).catch((e: unknown) => e);
    expect((cycle as ParaphError).code).toBe('PDF_TOO_COMPLEX');
    // Named by the cycle finder (drawing-cycles.ts), which the watchdog asks about a page that runs long.
    expect((cycle as ParaphError).message).toMatch(/^Page 1 of the PDF is too complex to read its text \(form 5 0 R draws itself, form 5 0 R → form 7 0 R → pattern 6 0 R → form 5 0 R, which never ends\)/);
    const next = await indexText(readFileSync(join(CORPUS, 'type3-huge-image.pdf')), { limits: LIMITS });
    expect(findText(next, '{{Signer1}}')).toHaveLength(1);
  });

  it(`never takes the process past ${PEAK_RSS_MB} MB`, () => {
    expect(peakRss).toBeGreaterThan(0);
    expect(peakRss).toBeLessThan(PEAK_RSS_MB);
  });
});
