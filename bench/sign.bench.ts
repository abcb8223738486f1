/**
 * Signing benchmark: time and peak RSS of `signPdf` (visible ECDSA P-256 signature, B-B) and `sealPdf` on
 * 1–5,000-page documents, next to pdf-lib's plain `PDFDocument.load` of the same file and `sha256sum` (the hashing
 * floor); then B-B signatures per second on a 1-page document with ECDSA P-256 and RSA-2048, next to node:crypto's
 * synchronous sign of the same bytes with the same key. `--quick` (bench/run.ts) signs for 0.3 s instead of 2 s.
 * Each size runs in its own child process so peak RSS belongs to that size alone.
 * `npm run bench -- sign` (all sizes) or `npx tsx bench/sign.bench.ts --max=1000`.
 * Targets: sign 1000 pages within 3× pdf-lib load; peak RSS < 3× file + 150 MB; ≥ 60 signatures/s ECDSA P-256 and
 * ≥ 12/s RSA-2048.
 */
import { spawnSync } from 'node:child_process';
import { createPrivateKey, sign as nodeSign } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PDFDocument } from '../src/pdf/pdf-lib.js';
import { sealPdf } from '../src/pades/seal-pdf.js';
import { signPdf } from '../src/pades/sign-pdf.js';
import { testPki } from '../src/testing/test-pki.js';
import { TSX_LOADER } from '../test/helpers/tsx.js';
import { benchPdf } from './gen-pdf.js';
import { fmt, hasCommand, peakRssMb, printTable, sampleMs, timeCommandMs } from './lib.js';

const NOW = new Date('2026-11-21T10:00:00Z');
const PLACEMENT = { pageNumber: 1, left: 40, top: 60, width: 160, height: 70 } as const;
const median = (xs: readonly number[]): number => xs[Math.floor(xs.length / 2)] as number;

type Mode = 'sign' | 'seal' | 'load';

/**
 * Child: runs one mode on one file, prints `{ ms, rss, baseline }`: timings, peak RSS, and the peak RSS before the
 * file was read (tsx, the modules and the test PKI: ~130 MB that do not grow with the document).
 */
async function child(mode: Mode, path: string, runs: number): Promise<void> {
  const pki = await testPki();
  const baseline = peakRssMb();
  const bytes = new Uint8Array(readFileSync(path));
  let ms: number[];
  if (mode === 'load') {
    ms = await sampleMs(runs, () => PDFDocument.load(bytes, { updateMetadata: false }));
  } else if (mode === 'sign') {
    ms = await sampleMs(runs, () => signPdf(bytes, { signer: pki.signers.p256.signer, signingTime: NOW, placement: PLACEMENT }));
  } else {
    ms = await sampleMs(runs, () => sealPdf(bytes, { signer: pki.seal.signer, signingTime: NOW, organizationName: 'Acme B.V.' }));
  }
  process.stdout.write(JSON.stringify({ ms, rss: peakRssMb(), baseline }));
}

interface ChildResult {
  ms: number[];
  rss: number;
  baseline: number;
}

function runChild(mode: Mode, path: string, runs: number): ChildResult {
  const self = fileURLToPath(import.meta.url);
  const result = spawnSync(process.execPath, ['--import', TSX_LOADER, self, `--child=${mode}`, `--file=${path}`, `--runs=${runs}`], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`child ${mode} ${path} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as ChildResult;
}

async function main(): Promise<void> {
  const maxArg = process.argv.find((a) => a.startsWith('--max='));
  const max = maxArg ? Number(maxArg.slice(6)) : Infinity;
  const sizes = [1, 100, 1000, 5000].filter((n) => n <= max);
  const rows: string[][] = [];
  for (const pages of sizes) {
    const path = await benchPdf(pages);
    const mib = statSync(path).size / 1024 / 1024;
    const runs = pages >= 1000 ? 3 : 7;
    // Timings from several runs in one process; peak RSS from a process that runs once (garbage of earlier runs
    // would count otherwise).
    const load = runChild('load', path, runs);
    const sign = runChild('sign', path, runs);
    const seal = runChild('seal', path, runs);
    const signOnce = runChild('sign', path, 1);
    const sealOnce = runChild('seal', path, 1);
    const loadOnce = runChild('load', path, 1);
    const sha = hasCommand('sha256sum') ? median([0, 1, 2].map(() => timeCommandMs('sha256sum', [path]))) : Number.NaN;
    rows.push([
      String(pages),
      fmt(mib, 2),
      fmt(median(sign.ms)),
      fmt(median(seal.ms)),
      fmt(median(load.ms)),
      fmt(median(sign.ms) / median(load.ms), 2),
      fmt(sha),
      fmt(signOnce.rss, 0),
      fmt(signOnce.rss - signOnce.baseline, 0),
      fmt(sealOnce.rss - sealOnce.baseline, 0),
      fmt(loadOnce.rss - loadOnce.baseline, 0),
      fmt(3 * mib + 150, 0),
    ]);
  }
  printTable(
    'signPdf (visible, ECDSA P-256, B-B) and sealPdf (invisible, RSA-2048): ms p50; peak RSS MB of one run (absolute, and above the ~130 MB process baseline)',
    ['pages', 'MiB', 'sign', 'seal', 'pdf-lib load', 'sign / load', 'sha256sum', 'sign RSS', 'sign Δ', 'seal Δ', 'load-only Δ', 'RSS target'],
    rows,
  );

  const pki = await testPki();
  const onePage = new Uint8Array(readFileSync(await benchPdf(1)));
  const throughput: string[][] = [];
  const seconds = process.argv.includes('--quick') ? 0.3 : 2;
  for (const [label, { signer, keyPem }] of [
    ['ECDSA P-256', pki.signers.p256],
    ['RSA-2048 PKCS#1 v1.5', pki.signers.rsa],
  ] as const) {
    // Reference: node:crypto's synchronous sign of the same file's bytes with the same key, the floor of a signature.
    const nodeKey = createPrivateKey(keyPem);
    let floorCount = 0;
    const floorStart = process.hrtime.bigint();
    while (Number(process.hrtime.bigint() - floorStart) / 1e9 < seconds / 2) {
      nodeSign('sha256', onePage, nodeKey);
      floorCount++;
    }
    const floorPerSecond = floorCount / (Number(process.hrtime.bigint() - floorStart) / 1e9);
    for (const visible of [false, true]) {
      // Warm up JIT and the font cache, then sign for about two seconds.
      for (let i = 0; i < 5; i++) await signPdf(onePage, { signer, signingTime: NOW, placement: visible ? PLACEMENT : undefined });
      let count = 0;
      const start = process.hrtime.bigint();
      const samples: number[] = [];
      while (Number(process.hrtime.bigint() - start) / 1e9 < seconds) {
        const t0 = process.hrtime.bigint();
        await signPdf(onePage, { signer, signingTime: NOW, placement: visible ? PLACEMENT : undefined });
        samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
        count++;
      }
      const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
      samples.sort((a, b) => a - b);
      throughput.push([
        label,
        visible ? 'visible (appearance)' : 'invisible',
        fmt(count / elapsed, 1),
        fmt(median(samples), 2),
        fmt(samples[Math.ceil(samples.length * 0.95) - 1] ?? Number.NaN, 2),
        fmt(floorPerSecond, 0),
      ]);
    }
  }
  printTable('B-B signatures per second on a 1-page document (one process, sequential)', ['key', 'signature', 'per second', 'ms p50', 'ms p95', 'node:crypto sign of the file (same key) per second'], throughput);
}

const childArg = process.argv.find((a) => a.startsWith('--child='));
if (childArg) {
  const file = process.argv.find((a) => a.startsWith('--file='))?.slice(7) ?? '';
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? '3');
  await child(childArg.slice(8) as Mode, file, runs);
} else {
  await main();
}
