/**
 * One PDF through what a user of the command line does with it — `paraph place` (one Signature field at fixed
 * coordinates on page 1), then `paraph seal` — and the verdicts of other readers: poppler's `pdfinfo` on the input
 * (and, for a refused file, whether poppler shows anything of it),
 * `pdfsig`, `qpdf --check` and `paraph verify` on the sealed output. Shared by scripts/corpus-report.ts and the opt-in
 * corpus test. Each step is a child process with a time budget, so a file that hangs a step costs only that budget.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/** The verdict on one file. */
export interface CorpusFileReport {
  readonly file: string;
  /** `pdfinfo` exit code on the input: 0 when poppler reads it. */
  readonly popplerReads: boolean;
  /**
   * For a refused file poppler reads: whether poppler shows anything of it — `pdftotext` prints text on its first
   * pages or `pdftoppm` draws a pixel that is not white on page 1. False for a file poppler opens only to show blank
   * pages: ciphertext it does not decrypt parsed as content, a page of 0 × 0 points. Such a file is not counted as
   * one poppler reads (nothing could be placed by what a reader shows in it).
   */
  readonly popplerShows?: boolean;
  /** `qpdf --check` exit code on the input (2: errors of its own, such as a content stream that does not decode). */
  readonly inputQpdf: number | null;
  /** `placed` when place and seal both wrote an output; otherwise which step refused and why. */
  readonly outcome:
    | { readonly kind: 'sealed'; readonly normalized: boolean }
    | { readonly kind: 'refused'; readonly step: 'place' | 'seal'; readonly code: string | null; readonly message: string; readonly exit: number | null };
  /** Checks of the sealed output (absent when nothing was sealed). */
  readonly output?: {
    /** pdfsig found the seal (the last signature) and its digest matches. */
    readonly pdfsig: boolean;
    /** `qpdf --check`: 0 clean, 3 warnings only, 2 errors. */
    readonly qpdf: number | null;
    /** paraph verify read the file and found the seal intact (digest and signature value). */
    readonly verify: boolean;
    readonly problems: readonly string[];
  };
}

/** Options of {@link checkCorpusFile}. */
export interface CorpusCheckOptions {
  /** Budget of each step, ms (default 120,000). */
  readonly timeoutMs?: number;
  /** Run `node dist/cli.js` (after `npm run build`) rather than the sources under tsx: faster per file. */
  readonly useDist?: boolean;
}

const METADATA = JSON.stringify({
  // Names no document of a corpus is likely to use for a field already.
  Signers: { Signer1: { FormSets: ['paraphCorpusCheck'] } },
  FormSets: { paraphCorpusCheck: { Signature: { Type: 'Signature', Location: { PageNumber: 1, Left: 5, Top: 5, Width: 30, Height: 15 } } } },
});

function paraphCommand(useDist: boolean): [string, string[]] {
  if (useDist && existsSync(join(ROOT, 'dist/cli.js'))) return [process.execPath, [join(ROOT, 'dist/cli.js')]];
  return [process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts')]];
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], timeoutMs: number): Run {
  const r = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' });
  const timedOut = r.error !== undefined && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
  return { status: r.status, stdout: r.stdout ?? '', stderr: timedOut ? `timed out after ${timeoutMs / 1000} s` : (r.stderr ?? '') };
}

function refusal(step: 'place' | 'seal', r: Run): CorpusFileReport['outcome'] {
  // The first line that is not a note (such as the one saying the input was rewritten first).
  const line = r.stderr.trim().split('\n').find((l) => !l.startsWith('note: ')) ?? '';
  const match = /^([A-Z][A-Z0-9_]+): (.*)$/.exec(line);
  return { kind: 'refused', step, code: match ? match[1]! : null, message: match ? match[2]! : line, exit: r.status };
}

/** Whether poppler shows text on the first pages of `pdfPath`, or anything but white on page 1. */
function popplerShowsSomething(pdfPath: string, timeoutMs: number): boolean {
  if (run('pdftotext', ['-q', '-l', '3', pdfPath, '-'], timeoutMs).stdout.trim() !== '') return true;
  const r = spawnSync('pdftoppm', ['-q', '-r', '20', '-f', '1', '-l', '1', '-gray', '-singlefile', pdfPath], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' });
  if (r.status !== 0 || !r.stdout) return false;
  // A binary PGM: "P5", width, height, maximum value, then one byte a pixel.
  const header = /^P5\s+\d+\s+\d+\s+\d+\s/.exec(r.stdout.subarray(0, 64).toString('latin1'));
  return header !== null && r.stdout.subarray(header[0].length).some((pixel) => pixel < 250);
}

/** The refusal report of `pdfPath`, with what poppler shows of it when it reads it. */
function refused(file: string, pdfPath: string, popplerReads: boolean, inputQpdf: number | null, outcome: CorpusFileReport['outcome'], timeoutMs: number): CorpusFileReport {
  return popplerReads ? { file, popplerReads, popplerShows: popplerShowsSomething(pdfPath, timeoutMs), inputQpdf, outcome } : { file, popplerReads, inputQpdf, outcome };
}

/** Places, seals and checks `pdfPath`. */
export function checkCorpusFile(pdfPath: string, options: CorpusCheckOptions = {}): CorpusFileReport {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const [node, prefix] = paraphCommand(options.useDist ?? false);
  const file = basename(pdfPath);
  const popplerReads = run('pdfinfo', [pdfPath], timeoutMs).status === 0;
  const inputQpdf = run('qpdf', ['--check', pdfPath], timeoutMs).status;
  const dir = mkdtempSync(join(tmpdir(), 'paraph-corpus-'));
  try {
    const metadata = join(dir, 'metadata.json');
    writeFileSync(metadata, METADATA);
    const placed = join(dir, 'placed.pdf');
    const sealed = join(dir, 'sealed.pdf');
    const place = run(node, [...prefix, 'place', pdfPath, metadata, '-o', placed], timeoutMs);
    if (place.status !== 0) return refused(file, pdfPath, popplerReads, inputQpdf, refusal('place', place), timeoutMs);
    const normalized = /rewritten|normali[sz]ed/i.test(place.stderr);
    const p12 = join(ROOT, 'fixtures/pki/seal.p12');
    const seal = run(node, [...prefix, 'seal', placed, '-o', sealed, '--p12', p12, '--pass', 'paraph', '--time', '2026-01-01T00:00:00Z'], timeoutMs);
    if (seal.status !== 0) return refused(file, pdfPath, popplerReads, inputQpdf, refusal('seal', seal), timeoutMs);

    const problems: string[] = [];
    const sig = run('pdfsig', [sealed], timeoutMs);
    // The seal is the last signature; one the input already carried may have been broken before paraph saw it.
    const lastSignature = sig.stdout.split(/^Signature #\d+:/m).slice(1).at(-1);
    const pdfsig = sig.status === 0 && lastSignature !== undefined && !/Signature is Invalid|Digest Mismatch/i.test(lastSignature);
    if (!pdfsig) problems.push(`pdfsig: ${(sig.stderr || sig.stdout).trim().split('\n').slice(0, 2).join(' / ')}`);
    const qpdf = run('qpdf', ['--check', sealed], timeoutMs);
    if (qpdf.status !== 0) problems.push(`qpdf --check exit ${qpdf.status}: ${(qpdf.stderr || qpdf.stdout).trim().split('\n').slice(0, 2).join(' / ')}`);
    const verified = run(node, [...prefix, 'verify', sealed, '--json'], timeoutMs);
    let verify = false;
    try {
      const report = JSON.parse(verified.stdout) as { readable: boolean; signatures: { digestOk?: boolean; signatureOk?: boolean }[]; problems: string[] };
      const last = report.signatures.at(-1);
      verify = report.readable && last?.digestOk === true && last.signatureOk === true;
      if (!verify) problems.push(`paraph verify: ${report.problems.join('; ') || 'the seal does not verify'}`);
    } catch {
      problems.push(`paraph verify: ${verified.stderr.trim().split('\n')[0] ?? 'no report'}`);
    }
    return { file, popplerReads, inputQpdf, outcome: { kind: 'sealed', normalized }, output: { pdfsig, qpdf: qpdf.status, verify, problems } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Whether the sealed output of `report` is one every reader opens: pdfsig and paraph verify find the seal intact, and
 * qpdf --check finds no error (warnings allowed) that the input did not have already (a content stream that does not
 * decode stays so: paraph does not change page content).
 */
export function outputReadable(report: CorpusFileReport): boolean {
  const o = report.output;
  return o === undefined || (o.pdfsig && o.verify && !qpdfFails(report));
}

/** Whether qpdf --check finds errors in the sealed output that it did not find in the input. */
export function qpdfFails(report: CorpusFileReport): boolean {
  const o = report.output;
  return o !== undefined && o.qpdf !== 0 && o.qpdf !== 3 && report.inputQpdf !== 2;
}

/** A refusal of a file poppler reads and shows something of (text, or a drawing on page 1). */
export function refusedButPopplerReads(report: CorpusFileReport): boolean {
  return report.outcome.kind === 'refused' && report.popplerReads && report.popplerShows !== false;
}

/** A refusal of a file poppler opens but shows nothing of: blank pages only. */
export function refusedPopplerShowsNothing(report: CorpusFileReport): boolean {
  return report.outcome.kind === 'refused' && report.popplerReads && report.popplerShows === false;
}
