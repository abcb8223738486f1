/**
 * The service's pdf-lib steps off the serving thread: opening and normalizing an upload, checking
 * its placements, writing its fields at start. A crafted PDF (a huge page tree, deep structures, big object streams)
 * can take seconds and hundreds of MB in pdf-lib; here it takes them in a worker thread with a heap cap and a time
 * budget of `baseMs + perPageMs × pages`. Past either the job is refused with `PDF_TOO_COMPLEX` and the thread is
 * ended (the next job gets a new one), while the serving thread keeps answering.
 *
 * Threads are kept in a small pool (unref'd when idle; all but one ended after 10 idle seconds): starting a thread and
 * loading pdf-lib in it costs ~0.4 s, far more than a job on a usual document. At most `MAX_BUSY` jobs run at once;
 * more wait for a thread (their budget starts when they get one).
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ParaphError, PdfParseError, PlacementError, ValidationError } from '../errors.js';
import type { PdfJob, PdfJobError, PdfJobReply, PdfJobResults } from './pdf-work-protocol.js';

/** Heap and time of one job. */
export interface PdfWorkLimits {
  /** Old-generation heap of a worker thread, MB. */
  readonly maxHeapMb: number;
  /** Time a job may take, ms, plus `perPageMs` per page when the page count is known before it starts. */
  readonly baseMs: number;
  readonly perPageMs: number;
}

export const DEFAULT_PDF_WORK_LIMITS: PdfWorkLimits = { maxHeapMb: 512, baseMs: 30_000, perPageMs: 20 };

const MAX_BUSY = Math.max(2, Math.min(4, availableParallelism()));
const MAX_IDLE = 2;
const IDLE_MS = 10_000;

interface Slot {
  readonly worker: Worker;
  readonly heapMb: number;
  ready: boolean;
  /** Counts the times it went idle, so an old idle timer does not end it after it was reused. */
  released: number;
  /** The job it runs, if any. */
  job?: Running;
}

interface Running {
  readonly id: number;
  start(): void;
  reply(reply: PdfJobReply): void;
  fail(error: unknown): void;
}

const idle: Slot[] = [];
let busy = 0;
const waiting: Array<() => void> = [];
let lastId = 0;

/**
 * Runs `job` in a worker thread within `limits`; `pageCount`, when known, scales the time budget.
 *
 * @throws PdfParseError `PDF_TOO_COMPLEX` past the heap cap or the time budget; the job's own typed errors as the
 *   library throws them; ParaphError `PDF_WORKER_FAILED` (internal) when the thread cannot run.
 */
export async function runPdfJob<K extends PdfJob['kind']>(
  job: Extract<PdfJob, { kind: K }>,
  limits: PdfWorkLimits = DEFAULT_PDF_WORK_LIMITS,
  pageCount = 0,
): Promise<PdfJobResults[K]> {
  if (busy >= MAX_BUSY) await new Promise<void>((resolve) => waiting.push(resolve));
  busy++;
  try {
    return (await runOnThread(job, limits, pageCount)) as PdfJobResults[K];
  } finally {
    busy--;
    waiting.shift()?.();
  }
}

function runOnThread(job: PdfJob, limits: PdfWorkLimits, pageCount: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let slot: Slot;
    try {
      slot = acquire(limits.maxHeapMb);
    } catch (error) {
      reject(new ParaphError('PDF_WORKER_FAILED', `Could not start a PDF worker thread: ${String(error)}`, { origin: 'internal', cause: error }));
      return;
    }
    const budgetMs = limits.baseMs + limits.perPageMs * pageCount;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const settle = (keep: boolean): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      slot.job = undefined;
      if (keep) release(slot);
      else void slot.worker.terminate();
      return true;
    };
    const running: Running = {
      id: ++lastId,
      // The budget runs from when the thread is ready: loading pdf-lib in a new thread is not the document's fault.
      start: () => {
        timer = setTimeout(() => {
          if (settle(false)) reject(tooComplex(`processing it took more than ${seconds(budgetMs)}`));
        }, budgetMs);
        slot.worker.postMessage({ id: running.id, job });
      },
      reply: (reply) => {
        if (reply.id !== running.id || !settle(true)) return;
        if (reply.ok) resolve(reply.result);
        else reject(revive(reply.error));
      },
      fail: (error) => {
        if (!settle(false)) return;
        if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') reject(tooComplex(`it needs more than ${slot.heapMb} MB of memory`));
        else reject(new ParaphError('PDF_WORKER_FAILED', `The PDF worker thread failed: ${String((error as Error).message ?? error)}`, { origin: 'internal', cause: error }));
      },
    };
    slot.job = running;
    if (slot.ready) running.start();
  });
}

function acquire(heapMb: number): Slot {
  for (let i = idle.length - 1; i >= 0; i--) {
    const slot = idle[i]!;
    if (slot.heapMb !== heapMb) continue;
    idle.splice(i, 1);
    slot.worker.ref();
    return slot;
  }
  return spawn(heapMb);
}

function release(slot: Slot): void {
  if (idle.length >= MAX_IDLE) {
    void slot.worker.terminate();
    return;
  }
  slot.worker.unref();
  idle.push(slot);
  const generation = ++slot.released;
  setTimeout(() => {
    const at = idle.indexOf(slot);
    if (slot.released !== generation || at === -1 || idle.length === 1) return;
    idle.splice(at, 1);
    void slot.worker.terminate();
  }, IDLE_MS).unref();
}

function spawn(heapMb: number): Slot {
  const spec = workerSpec();
  const worker = new Worker(spec.entry, {
    eval: spec.evaluate,
    // The host's flags (--input-type, --eval, loaders) are not meant for this thread and can break it.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(32, Math.max(8, heapMb / 16)) },
  });
  const slot: Slot = { worker, heapMb, ready: false, released: 0 };
  const drop = (): void => {
    const at = idle.indexOf(slot);
    if (at !== -1) idle.splice(at, 1);
  };
  worker.on('message', (message: PdfJobReply | { ready: true }) => {
    if ('ready' in message) {
      slot.ready = true;
      slot.job?.start();
    } else slot.job?.reply(message);
  });
  worker.on('error', (error) => {
    drop();
    slot.job?.fail(error);
  });
  worker.on('exit', (code) => {
    drop();
    slot.job?.fail(new Error(`the thread stopped (exit code ${code})`));
  });
  return slot;
}

function tooComplex(why: string): PdfParseError {
  return new PdfParseError('PDF_TOO_COMPLEX', `The PDF is too complex to process (${why}): simplify the document, e.g. print it to a new PDF, and upload it again.`);
}

/** The typed error the worker serialized. */
function revive(error: PdfJobError): ParaphError {
  switch (error.kind) {
    case 'validation':
      return new ValidationError(error.issues, error.code);
    case 'placement':
      return new PlacementError(error.code, error.message, { origin: error.origin });
    case 'parse':
      return new PdfParseError(error.code, error.message, { origin: error.origin });
    case 'paraph':
      return new ParaphError(error.code, error.message, { origin: error.origin });
    case 'internal':
      return new ParaphError('PDF_WORKER_FAILED', `The PDF worker thread failed: ${error.message}`, { origin: 'internal' });
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** The compiled worker next to this file; under tsx/vitest (`.ts`) a bootstrap that registers tsx's loader first. */
function workerSpec(): { entry: URL | string; evaluate: boolean } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { entry: new URL('./pdf-work-worker.js', here), evaluate: false };
  const require = createRequire(here);
  const tsx = JSON.stringify(new URL('./dist/esm/api/index.mjs', pathToFileURL(require.resolve('tsx/package.json'))).href);
  const worker = JSON.stringify(new URL('./pdf-work-worker.ts', here).href);
  return { entry: `import(${tsx}).then((m) => { m.register(); return import(${worker}); });`, evaluate: true };
}
