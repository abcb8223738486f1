/**
 * A folder of real-world PDFs through the command line as a user runs it (scripts/corpus-check.ts: `paraph place`
 * with one Signature field, `paraph seal`, then pdfinfo on the input and pdfsig, qpdf --check and `paraph verify` on
 * the output). Every sealed output opens in every reader, and a file poppler reads is refused only for a reason listed
 * here. By default two of the committed pdf.js files; set PARAPH_CORPUS_DIR to a folder such as pdf.js's
 * `test/pdfs` to run a whole corpus (about an hour for pdf.js's 971 files; `npm run build` first and set
 * PARAPH_CORPUS_DIST=1 to run the built CLI, faster per file).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCorpusFile, outputReadable, refusedButPopplerReads, refusedPopplerShowsNothing, type CorpusFileReport } from '../../scripts/corpus-check.js';

const DIR = process.env.PARAPH_CORPUS_DIR ?? join(import.meta.dirname, '../../fixtures/pdfjs');
const FILES = process.env.PARAPH_CORPUS_DIR
  ? readdirSync(DIR).filter((f) => f.toLowerCase().endsWith('.pdf')).sort()
  : ['helloworld-bad.pdf', 'issue6010_1.pdf'];

/** Files of pdf.js's corpus poppler reads and shows that paraph refuses, and why. */
const EXPLAINED_REFUSALS: Readonly<Record<string, string>> = {
  'issue17069.pdf': 'encrypted and signed: decrypting would break the signature',
};

/**
 * Files poppler opens but shows nothing of (no text, page 1 all white), which paraph refuses: not counted as files
 * poppler reads, since no word or drawing of theirs is what a reader sees. Listed so that a new one is looked at.
 */
const POPPLER_SHOWS_NOTHING: Readonly<Record<string, string>> = {
  'bug1782186.pdf': 'poppler does not open its encryption ("Unsupported version/revision (4/4)") and parses the ciphertext as content; the empty password opens it for neither pdf.js, PDFium, qpdf nor paraph',
  'issue15893_reduced.pdf': 'an /Encrypt only the damaged last trailer names: poppler ignores it and parses ciphertext; the empty password opens it for neither pdf.js, PDFium nor paraph',
  'poppler-742-0-fuzzed.pdf': 'a fuzzed catalog and page objects: poppler finds one page of 0 × 0 points; pdf.js, PDFium and qpdf cannot open it',
};

/** Refusals that are right whatever poppler reads: a field that does not fit a tiny page, a search budget. */
const RIGHT_REFUSAL = /^[^:]+: (LOCATION_OUTSIDE_PAGE|PDF_TOO_COMPLEX):/;

describe(`the corpus in ${DIR}`, () => {
  const reports: CorpusFileReport[] = [];
  const timeoutMs = 120_000;
  it(
    `places and seals ${FILES.length} files: every output opens in every reader; a refusal of a file poppler reads is explained`,
    () => {
      for (const file of FILES) reports.push(checkCorpusFile(join(DIR, file), { timeoutMs, useDist: process.env.PARAPH_CORPUS_DIST === '1' }));
      const unreadable = reports.filter((r) => !outputReadable(r)).map((r) => `${r.file}: ${r.output?.problems.join('; ')}`);
      expect(unreadable).toEqual([]);
      const unexplained = reports
        .filter((r) => refusedButPopplerReads(r) && EXPLAINED_REFUSALS[r.file] === undefined)
        .map((r) => (r.outcome.kind === 'refused' ? `${r.file}: ${r.outcome.code}: ${r.outcome.message}` : r.file));
      expect(unexplained.filter((line) => !RIGHT_REFUSAL.test(line))).toEqual([]);
      const unlisted = reports.filter((r) => refusedPopplerShowsNothing(r) && POPPLER_SHOWS_NOTHING[r.file] === undefined);
      expect(unlisted.map((r) => (r.outcome.kind === 'refused' ? `${r.file}: ${r.outcome.code}: ${r.outcome.message}` : r.file)).filter((line) => !RIGHT_REFUSAL.test(line))).toEqual([]);
      if (!process.env.PARAPH_CORPUS_DIR) {
        expect(reports.map((r) => [r.file, r.outcome.kind === 'refused' ? r.outcome.code : 'sealed'])).toEqual([
          ['helloworld-bad.pdf', 'sealed'],
          ['issue6010_1.pdf', 'PDF_ENCRYPTED'],
        ]);
      }
    },
    FILES.length * 6 * timeoutMs,
  );
});
