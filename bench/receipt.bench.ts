/**
 * Evidential receipt: build time for 10, 1,000 and 10,000 audit entries, with an identity sealer (layout
 * and PDF only) and with the real PAdES seal (sealPdf with the fixture seal key), plus verifyReceipt on the sealed
 * result. Reference in the same run: poppler's pdftotext reading the sealed receipt back. Target: 10,000 in < 5 s.
 */
import { writeFileSync } from 'node:fs';
import { PDFDocument } from '../src/pdf/pdf-lib.js';
import { join } from 'node:path';
import { BENCH_CACHE, fmt, hasCommand, peakRssMb, printTable, quantile, sampleMs, timeCommandMs } from './lib.js';
import { buildReceipt, type ReceiptSealer } from '../src/receipt/receipt.js';
import { verifyReceipt } from '../src/receipt/verify-receipt.js';
import { sealPdf } from '../src/pades/seal-pdf.js';
import { testPki } from '../src/testing/test-pki.js';
import { DOCUMENTS, largeAuditLog, sampleTransaction } from '../test/receipt/sample-transaction.js';

const GENERATED_AT = new Date('2026-11-21T11:00:00.000Z');
const pki = await testPki();
const trustRoots = [new TextEncoder().encode(pki.rootPem)];
const identity: ReceiptSealer = async (pdf) => pdf;
const seal: ReceiptSealer = async (pdf) =>
  (await sealPdf(pdf, { signer: pki.seal.signer, signingTime: GENERATED_AT, organizationName: 'Example Organisation B.V.' })).bytes;
const poppler = hasCommand('pdftotext');

const rows: string[][] = [];
const maxEntries = process.argv.includes('--quick') ? 1_000 : Infinity;
const sizes = ([
  [10, 7],
  [1_000, 5],
  [10_000, 3],
] as const).filter(([entries]) => entries <= maxEntries);
for (const [entries, runs] of sizes) {
  const auditLog = largeAuditLog(entries);
  const options = { transaction: sampleTransaction(), documents: DOCUMENTS, auditLog, generatedAt: GENERATED_AT };
  let sealed: Uint8Array = new Uint8Array();
  await buildReceipt({ ...options, sealer: identity }); // warm-up (font loading, JIT)
  const plain = await sampleMs(runs, () => buildReceipt({ ...options, sealer: identity }));
  const real = await sampleMs(runs, async () => {
    sealed = await buildReceipt({ ...options, sealer: seal });
  });
  const verify = await sampleMs(runs, async () => {
    const verdict = await verifyReceipt(sealed, { trustRoots });
    if (!verdict.ok) throw new Error(`receipt of ${entries} entries does not verify: ${verdict.problems.join('; ')}`);
  });
  const file = join(BENCH_CACHE, `receipt-${entries}.pdf`);
  writeFileSync(file, sealed);
  const pages = (await PDFDocument.load(sealed, { updateMetadata: false })).getPageCount();
  const reference = poppler ? timeCommandMs('pdftotext', [file, '/dev/null']) : Number.NaN;
  rows.push([
    entries.toLocaleString('en-US'),
    String(pages),
    fmt(sealed.length / 1024 / 1024, 2),
    `${fmt(quantile(plain, 0.5))} / ${fmt(quantile(plain, 0.95))}`,
    `${fmt(quantile(real, 0.5))} / ${fmt(quantile(real, 0.95))}`,
    fmt(quantile(real, 0.5) / pages, 2),
    `${fmt(quantile(verify, 0.5))} / ${fmt(quantile(verify, 0.95))}`,
    fmt(reference),
  ]);
}

printTable(`Receipt build (ms, median / p95; peak RSS ${fmt(peakRssMb(), 0)} MB)`, [
  'audit entries',
  'pages',
  'MB',
  'build, identity sealer',
  'build + PAdES seal',
  'ms/page (sealed)',
  'verifyReceipt',
  'pdftotext (ref)',
], rows);
