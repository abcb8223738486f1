/**
 * Verification benchmark (verifyPdf): time to verify a document carrying four signatures (three signers
 * and a seal, each in its own incremental update) at 1–5,000 pages, next to pdf-lib's plain load of the same file,
 * poppler's `pdfsig` and `sha256sum` (the hashing floor); and how verification scales with the number of signatures
 * (revisions) on 1,000 pages. `npm run bench -- verify [--max=1000]`. With PARAPH_BENCH_PYHANKO set to a command that
 * runs pyHanko (e.g. `python3 -m pyhanko`; it is no dependency of paraph), pyHanko's `sign validate` with difference
 * analysis on the same file is the reference column.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from '../src/pdf/pdf-lib.js';
import { sealPdf } from '../src/pades/seal-pdf.js';
import { signPdf } from '../src/pades/sign-pdf.js';
import { verifyPdf } from '../src/pades/verify.js';
import { testPki } from '../src/testing/test-pki.js';
import { benchPdf } from './gen-pdf.js';
import { BENCH_CACHE, fmt, hasCommand, peakRssMb, printTable, sampleMs, timeCommandMs } from './lib.js';

const maxArg = process.argv.find((a) => a.startsWith('--max='));
const max = maxArg ? Number(maxArg.slice(6)) : Infinity;
const sizes = [1, 100, 1000, 5000].filter((n) => n <= max);
const NOW = new Date('2026-11-21T10:00:00Z');
const pki = await testPki();
const rows: string[][] = [];
const pyhanko = process.env.PARAPH_BENCH_PYHANKO?.split(' ').filter(Boolean);
const rootPath = join(BENCH_CACHE, 'verify-root.pem');
if (pyhanko) writeFileSync(rootPath, pki.rootPem);

/** pyHanko's wall time on `path` (all signatures, difference analysis on, no revocation fetching), or NaN. */
function pyhankoMs(path: string): number {
  if (!pyhanko?.[0]) return Number.NaN;
  const args = ['sign', 'validate', '--trust', rootPath, '--trust-replace', '--no-revocation-check', '--validation-time', NOW.toISOString(), '--executive-summary', path];
  try {
    return timeCommandMs(pyhanko[0], [...pyhanko.slice(1), ...args]);
  } catch {
    return Number.NaN;
  }
}

async function signedPdf(pages: number): Promise<string> {
  const path = join(BENCH_CACHE, `verify-${pages}.pdf`);
  if (existsSync(path)) return path;
  let pdf: Uint8Array = new Uint8Array(readFileSync(await benchPdf(pages)));
  const signers = [pki.signers.rsa, pki.signers.p256, pki.signers.rsaPss];
  for (const [i, s] of signers.entries()) {
    pdf = (await signPdf(pdf, { signer: s.signer, signingTime: NOW, placement: { pageNumber: 1, left: 40 + 150 * i, top: 60, width: 140, height: 70 } })).bytes;
  }
  pdf = (await sealPdf(pdf, { signer: pki.seal.signer, signingTime: NOW, organizationName: 'Acme B.V.' })).bytes;
  writeFileSync(path, pdf);
  return path;
}

for (const pages of sizes) {
  const path = await signedPdf(pages);
  const bytes = new Uint8Array(readFileSync(path));
  const first = await verifyPdf(bytes, { trustRoots: [pki.rootDer], now: NOW });
  if (!first.valid || first.signatures.length !== 4) throw new Error(`benchmark document of ${pages} pages does not verify`);
  // A few more runs first: the first verifications pay for JIT compilation of pdf-lib, asn1js and pkijs.
  for (let i = 0; i < (pages >= 1000 ? 1 : 5); i++) await verifyPdf(bytes, { trustRoots: [pki.rootDer], now: NOW });
  const runs = pages >= 1000 ? 3 : 10;
  const verify = await sampleMs(runs, () => verifyPdf(bytes, { trustRoots: [pki.rootDer], now: NOW }));
  const load = await sampleMs(runs, () => PDFDocument.load(bytes, { updateMetadata: false }));
  const median = (xs: number[]): number => xs[Math.floor(xs.length / 2)]!;
  const pdfsig = hasCommand('pdfsig') ? timeCommandMs('pdfsig', ['-nocert', path]) : Number.NaN;
  const sha = hasCommand('sha256sum') ? timeCommandMs('sha256sum', [path]) : Number.NaN;
  rows.push([
    String(pages),
    fmt(bytes.length / 1024 / 1024, 2),
    fmt(median(verify)),
    fmt(verify[verify.length - 1]!),
    fmt(median(load)),
    fmt(median(verify) / median(load), 2),
    fmt(pdfsig),
    fmt(pyhankoMs(path)),
    fmt(sha),
    fmt(peakRssMb(), 0),
  ]);
}

// Scaling with the number of revisions: n sequential signatures on the 1,000-page document (each a revision).
const revisionRows: string[][] = [];
if (max >= 1000) {
  let pdf: Uint8Array = new Uint8Array(readFileSync(await benchPdf(1000)));
  for (let n = 1; n <= 16; n++) {
    pdf = (await signPdf(pdf, { signer: pki.signers.p256.signer, signingTime: NOW, placement: { pageNumber: 1 + (n % 10), left: 40, top: 60, width: 140, height: 70 } })).bytes;
    if (n !== 1 && n !== 4 && n !== 16) continue;
    const report = await verifyPdf(pdf, { trustRoots: [pki.rootDer], now: NOW });
    if (!report.valid || report.signatures.length !== n) throw new Error(`${n} signatures do not verify`);
    const times = await sampleMs(3, () => verifyPdf(pdf, { trustRoots: [pki.rootDer], now: NOW }));
    const load = await sampleMs(3, () => PDFDocument.load(pdf, { updateMetadata: false }));
    revisionRows.push([String(n), fmt(times[1]!), fmt(times[1]! / n), fmt(load[1]!)]);
  }
}

printTable(
  'verifyPdf: 4 signatures (3 signers + seal), ms',
  ['pages', 'MiB', 'verify p50', 'verify max', 'pdf-lib load p50', 'verify / load', 'pdfsig', 'pyHanko', 'sha256sum', 'peak RSS MB (process)'],
  rows,
);
if (revisionRows.length > 0) printTable('verifyPdf on 1,000 pages by number of signatures (one revision each), ms', ['signatures', 'verify p50', 'per signature', 'pdf-lib load p50'], revisionRows);
