/**
 * Runs every PDF of a folder through `paraph place` + `paraph seal` and reports, per file, whether it was sealed or
 * refused (code and message), whether poppler reads it, and whether the sealed output passes pdfsig, qpdf --check and
 * paraph verify; then the counts. For a public corpus such as pdf.js's `test/pdfs`.
 *
 *   npx tsx scripts/corpus-report.ts [<dir>] [--only a.pdf,b.pdf] [--timeout <s>] [--dist] [--json <out.json>]
 *
 * The folder defaults to $PARAPH_CORPUS_DIR. `--dist` runs the built CLI (after `npm run build`), faster per file.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkCorpusFile, outputReadable, qpdfFails, refusedButPopplerReads, refusedPopplerShowsNothing, type CorpusFileReport } from './corpus-check.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { only: { type: 'string' }, timeout: { type: 'string', default: '120' }, dist: { type: 'boolean', default: false }, json: { type: 'string' } },
});
const dir = positionals[0] ?? process.env.PARAPH_CORPUS_DIR;
if (!dir) {
  process.stderr.write('usage: corpus-report.ts <dir> (or PARAPH_CORPUS_DIR) [--only a.pdf,b.pdf] [--timeout <s>] [--dist] [--json <out>]\n');
  process.exit(2);
}
const only = values.only?.split(',').map((f) => f.trim()).filter((f) => f !== '');
const files = (only ?? readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.pdf'))).sort();
const reports: CorpusFileReport[] = [];
for (const file of files) {
  const report = checkCorpusFile(join(dir, file), { timeoutMs: Number(values.timeout) * 1000, useDist: values.dist });
  reports.push(report);
  const o = report.outcome;
  const what =
    o.kind === 'sealed'
      ? `sealed${o.normalized ? ' (normalized)' : ''}; output ${outputReadable(report) ? 'ok' : `FAILS: ${report.output?.problems.join(' | ')}`}`
      : `refused at ${o.step}: ${o.code ?? `exit ${o.exit}`}: ${o.message}`;
  const poppler = !report.popplerReads ? 'fails' : report.popplerShows === false ? 'shows nothing' : 'reads';
  process.stdout.write(`${file}\tpoppler ${poppler}\t${what}\n`);
  if (values.json) writeFileSync(values.json, JSON.stringify(reports, null, 1));
}

const sealed = reports.filter((r) => r.outcome.kind === 'sealed');
const refused = reports.filter((r) => r.outcome.kind === 'refused');
const byCode = new Map<string, number>();
for (const r of refused) if (r.outcome.kind === 'refused') byCode.set(r.outcome.code ?? 'none', (byCode.get(r.outcome.code ?? 'none') ?? 0) + 1);
process.stdout.write(
  [
    '',
    `files: ${reports.length}`,
    `sealed: ${sealed.length} (normalized first: ${sealed.filter((r) => r.outcome.kind === 'sealed' && r.outcome.normalized).length})`,
    `refused: ${refused.length} (${[...byCode].map(([c, n]) => `${c} ${n}`).join(', ')})`,
    `refused by paraph, read by poppler: ${refused.filter(refusedButPopplerReads).length}`,
    `refused by paraph, opened by poppler to show blank pages only: ${refused.filter(refusedPopplerShowsNothing).length}`,
    `sealed outputs failing pdfsig: ${sealed.filter((r) => r.output?.pdfsig === false).length}`,
    `sealed outputs failing qpdf --check (errors the input did not have): ${sealed.filter(qpdfFails).length}`,
    `sealed outputs with qpdf errors of the input's own: ${sealed.filter((r) => r.output?.qpdf === 2 && r.inputQpdf === 2).length}`,
    `sealed outputs failing paraph verify: ${sealed.filter((r) => r.output?.verify === false).length}`,
    '',
  ].join('\n'),
);
