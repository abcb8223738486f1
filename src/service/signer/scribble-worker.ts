/**
 * The thread that decodes one scribble (normalize-scribble.ts starts it under a memory cap): reads the PNG from
 * workerData, answers the re-encoded image or the refusal, and ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ServiceError } from '../service-error.js';
import { normalizeScribblePng } from './scribble-image.js';

/** What the thread answers. */
export type ScribbleReply = { ok: true; png: Uint8Array; width: number; height: number } | { ok: false; message: string };

function run(): ScribbleReply {
  try {
    const { png, width, height } = normalizeScribblePng((workerData as { png: Uint8Array }).png);
    return { ok: true, png, width, height };
  } catch (error) {
    if (error instanceof ServiceError) return { ok: false, message: error.message };
    throw error;
  }
}

parentPort?.postMessage(run());
