/**
 * Admission of PDF jobs by memory, not only by count. Each job states the memory it may come to need (its
 * reservation: the heap cap of its thread, or a share of the process cap for text extraction, whose inflated streams
 * live outside any heap). A job starts when nothing else runs, or when the process's resident memory plus the
 * reservations of the jobs running plus its own stay within the cap; otherwise it waits, first come first served,
 * until a job ends or memory falls. So a burst of documents that each drive memory up cannot start together and push
 * the process far past the cap that each one's watchdog enforces alone.
 */
import { resolveIndexLimits, type IndexLimits } from './text-index/limits.js';

/** What a {@link MemoryAdmission} needs. */
export interface MemoryAdmissionOptions {
  /** The process memory (bytes) the jobs together should stay within; read at each decision. */
  readonly capBytes: () => number;
  /** The process's resident memory in bytes (default: `process.memoryUsage.rss()`). */
  readonly rssBytes?: () => number;
  /** While jobs wait, memory is looked at again this often (ms; default 100): it falls without any job ending. */
  readonly recheckMs?: number;
}

interface Waiting {
  readonly reserve: number;
  readonly admit: () => void;
}

/** Admits jobs while memory allows; see the module comment. */
export class MemoryAdmission {
  private readonly waiting: Waiting[] = [];
  private reserved = 0;
  private running = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: MemoryAdmissionOptions) {}

  /** Jobs running now, and jobs waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Waits until a job reserving `reserveBytes` may start; resolves to the function that ends it (call it exactly
   * once, also when the job fails).
   *
   * @throws the signal's reason when `signal` aborts while waiting.
   */
  admit(reserveBytes: number, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      let onAbort: (() => void) | undefined;
      const entry: Waiting = {
        reserve: reserveBytes,
        admit: () => {
          if (onAbort) signal?.removeEventListener('abort', onAbort);
          this.running++;
          this.reserved += reserveBytes;
          let ended = false;
          resolve(() => {
            if (ended) return;
            ended = true;
            this.running--;
            this.reserved -= reserveBytes;
            this.pump();
          });
        },
      };
      if (signal) {
        onAbort = () => {
          const at = this.waiting.indexOf(entry);
          if (at === -1) return;
          this.waiting.splice(at, 1);
          this.pump();
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }
      this.waiting.push(entry);
      this.pump();
    });
  }

  /** Starts the waiting jobs that fit, in order; keeps looking while some wait. */
  private pump(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0] as Waiting;
      if (this.running > 0 && this.rss() + this.reserved + next.reserve > this.options.capBytes()) break;
      this.waiting.shift();
      next.admit();
    }
    if (this.waiting.length > 0 && this.timer === undefined) {
      this.timer = setInterval(() => this.pump(), this.options.recheckMs ?? 100);
      this.timer.unref();
    } else if (this.waiting.length === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private rss(): number {
    return (this.options.rssBytes ?? (() => process.memoryUsage.rss()))();
  }
}

const MB = 1024 * 1024;

/**
 * The process's admission of PDF jobs (text extraction, the service's pdf-lib steps), within the text limits'
 * `maxRssMb` (text-index/limits.ts: the process defaults the service sets from its configuration).
 */
export const pdfJobAdmission = new MemoryAdmission({ capBytes: () => resolveIndexLimits(undefined).maxRssMb * MB });

/** What a text extraction reserves: a quarter of the process cap (768 MB by default), as its memory is not all heap. */
export function extractionReserveBytes(limits: Pick<IndexLimits, 'maxRssMb'>): number {
  return Math.floor((limits.maxRssMb * MB) / 4);
}
