/**
 * One benchmark of a paraph operation on a caller's own file (`paraph bench`): `place` (FileMetaData
 * placement, text extraction included), `sign` (an invisible B-B PAdES signature with a throw-away ECDSA P-256 key)
 * or `verify` (`verifyPdf`), run N times in this process, reported as min/median/max ms, ms per page and peak RSS.
 * `npm run bench` measures through the same function, so the published numbers (docs/benchmarks.md) and a user's
 * numbers mean the same.
 */
import { webcrypto } from 'node:crypto';
import { loadPdf } from '../pdf/load-pdf.js';
import { placeFieldsFromMetadata } from '../pdf/place-fields-from-metadata.js';
import { createRootCertificate, issueCertificate } from '../pades/keys/ca.js';
import { createSoftwareSigner, generateKeyPair } from '../pades/keys/software.js';
import { signPdf } from '../pades/sign-pdf.js';
import type { Signer } from '../pades/types.js';
import { verifyPdf } from '../pades/verify.js';
import { peakRssMb, summarize, timeMs } from './measure.js';

/** The operations `paraph bench` can measure. */
export type BenchOperationName = 'place' | 'sign' | 'verify';

/** Every {@link BenchOperationName}. */
export const BENCH_OPERATIONS: readonly BenchOperationName[] = ['place', 'sign', 'verify'];

/** Options of {@link benchOperation}. */
export interface BenchOperationOptions {
  readonly operation: BenchOperationName;
  /** The PDF to work on (not modified). */
  readonly pdf: Uint8Array;
  /** FileMetaData (parsed JSON) for `place`. */
  readonly metadata?: unknown;
  /** Trust roots (DER or PEM) for `verify`; none by default (chains are then reported untrusted, as cheaply as trusted). */
  readonly trustRoots?: readonly (Uint8Array | string)[];
  /** How many times to run (default 5). */
  readonly runs?: number;
  /** Untimed runs first (default 1: loads the text engine and warms the JIT, which a long-running service has done). */
  readonly warmup?: number;
  /** Signing time and certificate validity for `sign`; verification time for `verify`. */
  readonly now: Date;
  /** Called after each run with the runs done so far and the time since the first started. */
  readonly onProgress?: (done: number, total: number, elapsedMs: number) => void;
}

/** What {@link benchOperation} measured. */
export interface BenchResult {
  readonly operation: BenchOperationName;
  /** Size of the input in bytes. */
  readonly bytes: number;
  readonly pages: number;
  readonly runs: number;
  /** Untimed warm-up runs before them. */
  readonly warmup: number;
  /** Every run's wall time in ms, in run order. */
  readonly timesMs: readonly number[];
  readonly minMs: number;
  readonly medianMs: number;
  readonly maxMs: number;
  /** Median ms divided by the page count. */
  readonly msPerPage: number;
  /** Peak resident set size of the process after the runs, MB. */
  readonly peakRssMb: number;
  /** Peak RSS before the input was worked on (modules loaded, key made; before the warm-up), MB. */
  readonly baselineRssMb: number;
}

/** Up to this many pages, `place` extracts text in the calling thread (as `paraph place` does). */
const SMALL_DOCUMENT_PAGES = 50;

/** Default number of runs. */
export const DEFAULT_RUNS = 5;

/**
 * Runs `operation` on `pdf` `runs` times and summarizes the timings.
 *
 * @throws PdfParseError when `pdf` is not a usable PDF; ValidationError for bad metadata or runs; whatever the
 *   operation throws (e.g. PlacementError when a Location cannot be resolved).
 * @example
 * const result = await benchOperation({ operation: 'verify', pdf, runs: 5, now: new Date() });
 * console.log(`${result.medianMs} ms, ${result.msPerPage} ms/page`);
 */
export async function benchOperation(options: BenchOperationOptions): Promise<BenchResult> {
  const runs = options.runs ?? DEFAULT_RUNS;
  if (!Number.isSafeInteger(runs) || runs < 1) throw new RangeError(`runs must be a whole number of at least 1 (got ${runs})`);
  const pages = (await loadPdf(options.pdf)).getPageCount();
  const run = await prepare(options, pages);
  const baselineRssMb = peakRssMb();
  const warmup = options.warmup ?? 1;
  if (!Number.isSafeInteger(warmup) || warmup < 0) throw new RangeError(`warmup must be a whole number of at least 0 (got ${warmup})`);
  for (let i = 0; i < warmup; i++) await run();
  const timesMs: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) {
    timesMs.push(await timeMs(run));
    options.onProgress?.(i + 1, runs, Number(process.hrtime.bigint() - start) / 1e6);
  }
  const { min, median, max } = summarize(timesMs);
  return {
    operation: options.operation,
    bytes: options.pdf.length,
    pages,
    runs,
    warmup,
    timesMs,
    minMs: min,
    medianMs: median,
    maxMs: max,
    msPerPage: median / pages,
    peakRssMb: peakRssMb(),
    baselineRssMb,
  };
}

/** Everything that is set-up rather than the operation (key generation, certificates) happens here, untimed. */
async function prepare(options: BenchOperationOptions, pages: number): Promise<() => Promise<unknown>> {
  const { pdf, now } = options;
  switch (options.operation) {
    case 'place': {
      if (options.metadata === undefined) throw new RangeError('place needs FileMetaData (the metadata option)');
      const metadata = options.metadata;
      // As `paraph place` does: small documents are extracted in this thread (worker start-up would dominate).
      const workers = pages <= SMALL_DOCUMENT_PAGES ? { workers: 0 } : {};
      return () => placeFieldsFromMetadata(pdf, metadata, workers);
    }
    case 'sign': {
      const signer = await throwAwaySigner(now);
      return () => signPdf(pdf, { signer, signingTime: now });
    }
    case 'verify': {
      const trustRoots = options.trustRoots ?? [];
      return () => verifyPdf(pdf, { trustRoots, now });
    }
  }
}

/** An ECDSA P-256 signer certified by a fresh root, valid a day either side of `now`. */
async function throwAwaySigner(now: Date): Promise<Signer> {
  const day = 24 * 60 * 60 * 1000;
  const validity = { notBefore: new Date(now.getTime() - day), notAfter: new Date(now.getTime() + day) };
  const rootKeys = await generateKeyPair('ecdsa-p256');
  const root = await createRootCertificate({ ...validity, serialNumber: 1n, subject: { commonName: 'paraph bench root' }, keyPair: rootKeys });
  const keys = await generateKeyPair('ecdsa-p256');
  const certificate = await issueCertificate({
    ...validity,
    serialNumber: 2n,
    profile: 'signer',
    subject: { commonName: 'paraph bench signer' },
    publicKey: keys.publicKey,
    issuer: { certificate: root, privateKey: rootKeys.privateKey },
  });
  return createSoftwareSigner({ privateKey: keys.privateKey as webcrypto.CryptoKey, certificateChain: [certificate, root] });
}
