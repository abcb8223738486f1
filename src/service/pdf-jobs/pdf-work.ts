/**
 * Every PDF the service reads, read in child processes: opening and normalizing an upload, resolving its placements
 * with the text index, checking them, writing its fields at start, decoding a scribble, a signer's fields, signatures
 * and seal, each seal, and the receipt (rendered and sealed). A signing job asks this process for each signature value and time-stamp
 * (`PdfJobParties`): the keys never leave it. A crafted PDF (a huge page tree, deep structures, millions of tiny
 * objects) can take seconds and gigabytes in pdf-lib or pdf.js. Here that happens in a separate Node process with its own V8 heap cap
 * (`--max-old-space-size`), a resident-memory watchdog and a time budget of `baseMs + perPageMs × pages`. Past any of
 * them the job is refused with `PDF_TOO_COMPLEX` and the process is ended (the next job gets a new one); a heap
 * out-of-memory abort ends only that process, never the serving one (a worker thread's `resourceLimits` cannot
 * promise that: V8 may abort the whole process when a thread's heap runs out).
 *
 * Processes are kept in a small pool (unref'd when idle; all but one ended after 10 idle seconds): starting one and
 * loading pdf-lib in it costs ~0.3 s, far more than a job on a usual document. At most `MAX_BUSY` jobs run at once;
 * more wait for a process (their budget starts when they get one).
 */
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { ParaphError, PdfParseError, PlacementError, ValidationError } from '../../errors.js';
import { pdfJobAdmission } from '../../pdf/memory-admission.js';
import type { Signer, Timestamper } from '../../pades/types.js';
import { errorAsData, type PdfChildMessage, type PdfHostMessage, type PdfJob, type PdfJobCall, type PdfJobError, type PdfJobMessage, type PdfJobReply, type PdfJobResults } from './pdf-work-protocol.js';
import { activeTracer, traced } from '../observability/tracing.js';
import { workerProcessEntry } from '../../worker-entry.js';

/** Memory and time of one job. */
export interface PdfWorkLimits {
  /** Old-generation heap of a PDF process, MB (`--max-old-space-size`). */
  readonly maxHeapMb: number;
  /**
   * Resident memory of a PDF process, MB (heap, buffers, PDFium's WebAssembly memory when a file is repaired), checked
   * every 100 ms (Linux; 500 ms elsewhere); default `2 × maxHeapMb + 1024`.
   */
  readonly maxRssMb?: number;
  /** Time a job may take, ms, plus `perPageMs` per page when the page count is known before it starts. */
  readonly baseMs: number;
  readonly perPageMs: number;
}

/** What only the serving process holds, lent to a signing job one call at a time (the keys never leave it). */
export interface PdfJobParties {
  readonly signer?: Signer;
  readonly seal?: Signer;
  readonly timestamper?: Timestamper;
}

/** How a job is run besides its limits. */
export interface PdfJobOptions {
  /** The document's page count, when known: it scales the time budget. */
  readonly pageCount?: number;
  /** Ends the job (and its process) when aborted; the job is refused with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Keys and the time-stamper a signing job's calls are answered with. */
  readonly parties?: PdfJobParties;
  /** With tracing on, the traceparent of the work the job serves (`ServiceContext.trace`): its span's parent. */
  readonly trace?: string | undefined;
}

export const DEFAULT_PDF_WORK_LIMITS: PdfWorkLimits = { maxHeapMb: 512, baseMs: 30_000, perPageMs: 20 };

const MAX_BUSY = Math.max(2, Math.min(4, availableParallelism()));
const MAX_IDLE = 2;
const IDLE_MS = 10_000;
/** How often the resident memory of a busy process is read (`ps` elsewhere than Linux costs more). */
const WATCH_MS = process.platform === 'linux' ? 100 : 500;
const run = promisify(execFile);
/** The end of a PDF process's stderr kept to tell a heap out-of-memory abort from another failure. */
const STDERR_TAIL = 4096;

interface Slot {
  readonly child: ChildProcess;
  readonly heapMb: number;
  ready: boolean;
  /** Counts the times it went idle, so an old idle timer does not end it after it was reused. */
  released: number;
  /** The end of what the process wrote to stderr. */
  stderr: string;
  /** The job it runs, if any. */
  job?: Running;
}

interface Running {
  readonly id: number;
  start(): void;
  reply(reply: PdfJobReply): void;
  /** The job asks the host for a signature value or a time-stamp. */
  call(call: PdfJobCall): void;
  /** The process ended (or could not start) while running the job. */
  fail(why: { error?: Error; code?: number | null; signal?: NodeJS.Signals | null }): void;
}

const idle: Slot[] = [];
let busy = 0;
const waiting: Array<() => void> = [];
let lastId = 0;

/** How a PDF job ended: done, refused by the document's own error, refused past a limit, or the process failed. */
export type PdfJobOutcome = 'ok' | 'rejected' | 'too_complex' | 'failed';
/** Which limit refused a job (`too_complex`): its time budget or its memory (heap cap or resident memory). */
export type PdfJobLimit = 'time' | 'memory';

/** One finished PDF job, for metrics. Times in ms: waiting for admission and a process, then running. */
export interface PdfJobReport {
  readonly kind: PdfJob['kind'];
  readonly outcome: PdfJobOutcome;
  readonly limit?: PdfJobLimit;
  readonly waitMs: number;
  readonly runMs: number;
}

const reporters = new Set<(report: PdfJobReport) => void>();
const refusedBy = new WeakMap<Error, PdfJobLimit>();

/**
 * Calls `report` after every PDF job of this process (the pool is one per process, shared by every service in it);
 * returns the function that stops it.
 */
export function observePdfJobs(report: (report: PdfJobReport) => void): () => void {
  reporters.add(report);
  return () => reporters.delete(report);
}

/** The pool now: jobs running, processes idle, jobs waiting for one, and the most that run at once. */
export function pdfPoolState(): { busy: number; idle: number; waiting: number; maxBusy: number } {
  return { busy, idle: idle.length, waiting: waiting.length + pdfJobAdmission.load.waiting, maxBusy: MAX_BUSY };
}

function report(kind: PdfJob['kind'], error: unknown, queuedAt: number, startedAt: number): void {
  if (reporters.size === 0) return;
  const now = performance.now();
  const limit = error instanceof Error ? refusedBy.get(error) : undefined;
  const outcome: PdfJobOutcome =
    error === undefined
      ? 'ok'
      : limit !== undefined || (error instanceof ParaphError && error.code === 'PDF_TOO_COMPLEX')
        ? 'too_complex'
        : error instanceof ParaphError && error.code === 'PDF_WORKER_FAILED'
          ? 'failed'
          : 'rejected';
  const entry: PdfJobReport = { kind, outcome, ...(limit ? { limit } : {}), waitMs: startedAt - queuedAt, runMs: now - startedAt };
  for (const reporter of reporters) {
    try {
      reporter(entry);
    } catch {
      // A metrics sink must not fail a job.
    }
  }
}

/**
 * Runs `job` in a PDF process within `limits`; `options.pageCount`, when known, scales the time budget (a number
 * instead of options is the page count).
 *
 * @throws PdfParseError `PDF_TOO_COMPLEX` past the heap cap, the memory cap or the time budget; the job's own typed
 *   errors as the library throws them; ParaphError `PDF_WORKER_FAILED` (internal) when the process cannot run.
 */
export function runPdfJob<K extends PdfJob['kind']>(
  job: Extract<PdfJob, { kind: K }>,
  limits: PdfWorkLimits = DEFAULT_PDF_WORK_LIMITS,
  options: PdfJobOptions | number = {},
): Promise<PdfJobResults[K]> {
  const { pageCount = 0, signal, parties = {}, trace } = typeof options === 'number' ? { pageCount: options } : options;
  // The span here covers the wait for admission and a process; the process adds its own span of the work.
  return traced(
    `pdf.job ${job.kind}`,
    { 'paraph.pdf_job.kind': job.kind, 'paraph.pdf_job.bytes': 'bytes' in job ? job.bytes.byteLength : 0 },
    (span) => runAdmitted(job, limits, pageCount, signal, parties, span),
    trace,
  );
}

async function runAdmitted<K extends PdfJob['kind']>(
  job: Extract<PdfJob, { kind: K }>,
  limits: PdfWorkLimits,
  pageCount: number,
  signal: AbortSignal | undefined,
  parties: PdfJobParties,
  traceparent: string | undefined,
): Promise<PdfJobResults[K]> {
  const queuedAt = performance.now();
  // Admitted by memory (its process's heap cap reserved, memory-admission.ts), then by count.
  const done = await pdfJobAdmission.admit(limits.maxHeapMb * 1024 * 1024);
  try {
    if (busy >= MAX_BUSY) await new Promise<void>((resolve) => waiting.push(resolve));
    busy++;
    const startedAt = performance.now();
    try {
      signal?.throwIfAborted();
      const result = (await runInProcess(job, limits, pageCount, signal, parties, traceparent)) as PdfJobResults[K];
      report(job.kind, undefined, queuedAt, startedAt);
      return result;
    } catch (error) {
      report(job.kind, error, queuedAt, startedAt);
      throw error;
    } finally {
      busy--;
      waiting.shift()?.();
    }
  } finally {
    done();
  }
}

function runInProcess(
  job: PdfJob,
  limits: PdfWorkLimits,
  pageCount: number,
  signal: AbortSignal | undefined,
  parties: PdfJobParties,
  traceparent: string | undefined,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let slot: Slot;
    try {
      slot = acquire(limits.maxHeapMb);
    } catch (error) {
      reject(new ParaphError('PDF_WORKER_FAILED', `Could not start a PDF process: ${String(error)}`, { origin: 'internal', cause: error }));
      return;
    }
    const budgetMs = limits.baseMs + limits.perPageMs * pageCount;
    const maxRssMb = limits.maxRssMb ?? 2 * limits.maxHeapMb + 1024;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let watch: ReturnType<typeof setInterval> | undefined;
    let settled = false;
    const onAbort = (): void => {
      if (settle(false)) reject(signal?.reason);
    };
    const settle = (keep: boolean): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      clearInterval(watch);
      signal?.removeEventListener('abort', onAbort);
      slot.job = undefined;
      if (keep) release(slot);
      else end(slot);
      return true;
    };
    const running: Running = {
      id: ++lastId,
      // The budget runs from when the process is ready: starting Node and loading pdf-lib is not the document's fault.
      start: () => {
        timer = setTimeout(() => {
          if (settle(false)) reject(tooComplex(`processing it took more than ${seconds(budgetMs)}`, 'time'));
        }, budgetMs);
        watch = setInterval(() => {
          void residentMb(slot.child.pid).then((rss) => {
            if (rss !== undefined && rss > maxRssMb && settle(false)) reject(tooComplex(`it needs more than ${maxRssMb} MB of memory`, 'memory'));
          });
        }, WATCH_MS);
        const message: PdfJobMessage = { id: running.id, job, ...(traceparent !== undefined ? { traceparent } : {}) };
        slot.child.send(message satisfies PdfHostMessage, (error) => {
          if (error && settle(false)) reject(workerFailed(`the job could not be handed over (${error.message})`, error));
        });
      },
      call: (call) => {
        void answerCall(call, parties).then((answer) => {
          if (!settled) slot.child.send({ id: running.id, answer } satisfies PdfHostMessage);
        });
      },
      reply: (reply) => {
        if (reply.id !== running.id || !settle(true)) return;
        if (reply.span !== undefined) activeTracer()?.recordRemoteSpan(reply.span);
        if (reply.ok) resolve(reply.result);
        else reject(revive(reply.error));
      },
      fail: ({ error, code, signal }) => {
        if (!settle(false)) return;
        if (outOfMemory(slot.stderr)) reject(tooComplex(`it needs more than ${slot.heapMb} MB of memory`, 'memory'));
        else if (error) reject(workerFailed(error.message, error));
        else reject(workerFailed(`the process stopped (${signal ? `signal ${signal}` : `exit code ${String(code)}`})${lastLine(slot.stderr)}`));
      },
    };
    slot.job = running;
    signal?.addEventListener('abort', onAbort, { once: true });
    if (slot.ready) running.start();
  });
}

/** A running job's call answered with the key or the time-stamper it names; a failure goes back as its error. */
async function answerCall(call: PdfJobCall, parties: PdfJobParties): Promise<{ n: number; ok: true; value: Uint8Array } | { n: number; ok: false; error: PdfJobError }> {
  try {
    if (call.op === 'timestamp') {
      if (!parties.timestamper) throw new Error('the job asked for a time-stamp but none was lent to it');
      return { n: call.n, ok: true, value: await parties.timestamper(call.data, call.hash) };
    }
    const signer = parties[call.party];
    if (!signer) throw new Error(`the job asked for a ${call.party} signature but no such key was lent to it`);
    return { n: call.n, ok: true, value: await signer.sign(call.data, call.hash) };
  } catch (error) {
    return { n: call.n, ok: false, error: errorAsData(error) };
  }
}

function acquire(heapMb: number): Slot {
  for (let i = idle.length - 1; i >= 0; i--) {
    const slot = idle[i]!;
    if (slot.heapMb !== heapMb) continue;
    idle.splice(i, 1);
    hold(slot, true);
    return slot;
  }
  return spawn(heapMb);
}

function release(slot: Slot): void {
  if (idle.length >= MAX_IDLE) {
    end(slot);
    return;
  }
  hold(slot, false);
  idle.push(slot);
  const generation = ++slot.released;
  setTimeout(() => {
    const at = idle.indexOf(slot);
    if (slot.released !== generation || at === -1 || idle.length === 1) return;
    idle.splice(at, 1);
    end(slot);
  }, IDLE_MS).unref();
}

/** An idle process must not keep the serving process alive; a busy one must. */
function hold(slot: Slot, busy: boolean): void {
  // The stderr pipe is a socket (net.Socket has ref/unref), typed as a plain Readable.
  const handles: Array<{ ref(): unknown; unref(): unknown } | null | undefined> = [slot.child, slot.child.channel, slot.child.stderr as Socket | null];
  for (const handle of handles) {
    if (busy) handle?.ref();
    else handle?.unref();
  }
}

function end(slot: Slot): void {
  const at = idle.indexOf(slot);
  if (at !== -1) idle.splice(at, 1);
  if (slot.child.exitCode === null && slot.child.signalCode === null) slot.child.kill('SIGKILL');
}

function spawn(heapMb: number): Slot {
  const spec = workerProcessEntry(import.meta.url, './pdf-work-worker.js');
  const child = fork(spec.entry, [], {
    // The host's flags (--input-type, --eval, inspector, loaders) are not meant for this process and can break it.
    execArgv: [...spec.execArgv, `--max-old-space-size=${heapMb}`, `--max-semi-space-size=${Math.min(16, Math.max(4, Math.round(heapMb / 32)))}`],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // The process reads hostile documents: it gets none of the service's secrets (master key, SMTP, database URLs).
    env: pdfProcessEnvironment(process.env),
  });
  const slot: Slot = { child, heapMb, ready: false, released: 0, stderr: '' };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    slot.stderr = (slot.stderr + chunk).slice(-STDERR_TAIL);
  });
  child.on('message', (message: PdfChildMessage) => {
    if ('ready' in message) {
      slot.ready = true;
      slot.job?.start();
    } else if ('call' in message) {
      if (message.id === slot.job?.id) slot.job.call(message.call);
    } else slot.job?.reply(message);
  });
  child.on('error', (error) => {
    end(slot);
    slot.job?.fail({ error });
  });
  // 'close' comes after stderr is read to its end, so that the abort message (if any) is there to judge.
  child.on('close', (code, signal) => {
    end(slot);
    slot.job?.fail({ code, signal });
  });
  return slot;
}

/** Resident memory of process `pid`, MB (Linux `/proc`, elsewhere `ps`); undefined once it is gone. */
async function residentMb(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const kb =
      process.platform === 'linux'
        ? /^VmRSS:\s+(\d+)\s+kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1]
        : (await run('ps', ['-o', 'rss=', '-p', String(pid)], { timeout: 1000 })).stdout.trim();
    return kb === undefined || kb === '' ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** V8's last words when a heap runs out. */
function outOfMemory(stderr: string): boolean {
  return /heap out of memory|Reached heap limit|Allocation failed|Ineffective mark-compacts near heap limit/.test(stderr);
}

function lastLine(stderr: string): string {
  const line = stderr.trim().split('\n').pop()?.trim();
  return line ? `: ${line.slice(0, 300)}` : '';
}

function tooComplex(why: string, limit: PdfJobLimit): PdfParseError {
  const error = new PdfParseError('PDF_TOO_COMPLEX', `The PDF is too complex to process (${why}): simplify the document, e.g. print it to a new PDF, and upload it again.`);
  refusedBy.set(error, limit);
  return error;
}

function workerFailed(why: string, cause?: unknown): ParaphError {
  return new ParaphError('PDF_WORKER_FAILED', `The PDF process failed: ${why}`, { origin: 'internal', ...(cause !== undefined ? { cause } : {}) });
}

/** The typed error the PDF process serialized. */
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
      return workerFailed(error.message);
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** The environment a PDF process needs: where programs and temporary files are, the locale, Node's compile cache. */
function pdfProcessEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept = ['PATH', 'HOME', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LC_ALL', 'TZ', 'NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE'];
  return Object.fromEntries(kept.filter((key) => env[key] !== undefined).map((key) => [key, env[key]]));
}

