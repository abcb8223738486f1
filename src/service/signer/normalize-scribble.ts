/**
 * Runs {@link normalizeScribblePng} on a thread of its own, never the serving thread: one short-lived worker per
 * scribble under a V8 heap cap and a time limit, at most {@link SCRIBBLE_THREADS} at a time (others wait their
 * turn). The buffers it allocates outside the heap are bounded by the scribble's checked header (at most
 * {@link SCRIBBLE_LIMITS} pixels), so the cap and the header bound the whole decode. A thread that runs out of
 * memory or time is stopped and the scribble refused; the process goes on.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { ServiceError } from '../service-error.js';
import { readPngHeader, SCRIBBLE_LIMITS, type NormalizedScribble } from './scribble-image.js';
import type { ScribbleReply } from './scribble-worker.js';

/** Scribbles decoded at the same time. */
export const SCRIBBLE_THREADS = 2;
/** The decoding thread's limits: a 2-million-pixel scribble needs about 8 MB of pixels outside the heap and little heap. */
export const SCRIBBLE_WORKER_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8, codeRangeSizeMb: 16, stackSizeMb: 4 };
const SCRIBBLE_TIMEOUT_MS = 10_000;

let running = 0;
const waiting: (() => void)[] = [];

async function turn(): Promise<() => void> {
  if (running >= SCRIBBLE_THREADS) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  return () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
}

/**
 * Checks the scribble's header here (it costs nothing and refuses a bomb before any thread starts), then decodes and
 * re-encodes it on a capped thread.
 *
 * @throws ServiceError `SCRIBBLE_INVALID` (400) saying what is wrong, or when decoding it needs more memory or time
 *   than a drawn signature can.
 */
export async function normalizeScribble(png: Uint8Array, limits: ResourceLimits = SCRIBBLE_WORKER_LIMITS): Promise<NormalizedScribble> {
  readPngHeader(png);
  const release = await turn();
  try {
    return await decodeInWorker(png, limits);
  } finally {
    release();
  }
}

function decodeInWorker(png: Uint8Array, limits: ResourceLimits): Promise<NormalizedScribble> {
  return new Promise((resolve, reject) => {
    const spec = workerSpec();
    const worker = new Worker(spec.entry, { eval: spec.evaluate, execArgv: [], resourceLimits: limits, workerData: { png } });
    let settled = false;
    const settle = (error: unknown, image?: NormalizedScribble): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (image) resolve(image);
      else reject(error);
    };
    const tooMuch = (what: string): ServiceError =>
      new ServiceError('SCRIBBLE_INVALID', `Image: decoding the drawn signature needs more ${what} than a drawing of at most ${SCRIBBLE_LIMITS.maxWidth}×${SCRIBBLE_LIMITS.maxHeight} pixels; send a plain PNG image.`);
    const timer = setTimeout(() => settle(tooMuch('time')), SCRIBBLE_TIMEOUT_MS);
    worker.on('message', (reply: ScribbleReply) => {
      if (reply.ok) settle(undefined, { png: new Uint8Array(reply.png), width: reply.width, height: reply.height });
      else settle(new ServiceError('SCRIBBLE_INVALID', reply.message));
    });
    worker.on('error', (error) => {
      if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') settle(tooMuch('memory'));
      else settle(error);
    });
    worker.on('exit', (code) => settle(new Error(`The scribble decoding thread stopped (exit code ${code}).`)));
  });
}

/** The compiled worker next to this file; under tsx/vitest (`.ts`) a bootstrap that registers tsx's loader first. */
function workerSpec(): { entry: URL | string; evaluate: boolean } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { entry: new URL('./scribble-worker.js', here), evaluate: false };
  const require = createRequire(here);
  const tsx = JSON.stringify(new URL('./dist/esm/api/index.mjs', pathToFileURL(require.resolve('tsx/package.json'))).href);
  const worker = JSON.stringify(new URL('./scribble-worker.ts', here).href);
  return { entry: `import(${tsx}).then((m) => { m.register(); return import(${worker}); });`, evaluate: true };
}
