/**
 * The in-process worker of the embedded service (its running is what `/health` reports, docs/design/storage.md#health):
 * every `intervalMs` it runs the due timers (expiry, cleaning, stale signing holds) and, now and then, removes blobs no
 * transaction references (failed uploads, cleaned documents). Postbacks and mails are delivered by the outbox
 * worker, not here. One tick at a time; `stop()` waits for the running tick.
 */
import { collectUnreferencedBlobs } from '../service/collect-garbage.js';
import type { ServiceContext } from '../service/context.js';
import { runDueTimers, type TimerRun } from './run-timers.js';

/** Where the worker reports. */
export interface WorkerLog {
  info(data: object, message: string): void;
  error(data: object, message: string): void;
}

/** Options of {@link TimerWorker}. */
export interface TimerWorkerOptions {
  readonly intervalMs: number;
  /** Blobs unreferenced for longer than this are deleted (default one hour). */
  readonly garbageAgeMs?: number;
  /** Garbage is collected every this many ticks (default 60). */
  readonly garbageEveryTicks?: number;
  readonly log: WorkerLog;
}

/**
 * Tick number `tick` of a timer loop (this worker's, or the PostgreSQL job runner's recurring job): the due timers,
 * logged, and every `garbageEveryTicks`-th tick (the first included) the blobs no transaction references.
 */
export async function runTimerTick(
  ctx: ServiceContext,
  options: Pick<TimerWorkerOptions, 'log' | 'garbageAgeMs' | 'garbageEveryTicks'>,
  tick: number,
): Promise<TimerRun> {
  const run = await runDueTimers(ctx);
  for (const failure of run.failures) {
    options.log.error({ err: failure.error, transactionId: failure.timer.transactionId, timer: failure.timer.kind }, 'timer failed');
  }
  if (run.expired + run.cleaned + run.released > 0) {
    options.log.info({ expired: run.expired, cleaned: run.cleaned, released: run.released }, 'timers ran');
  }
  if (tick % (options.garbageEveryTicks ?? 60) === 0) {
    // Blob ages are file times on the disk, so the wall clock (not the injected one) judges them.
    const olderThan = new Date(Date.now() - (options.garbageAgeMs ?? 3_600_000));
    const removed = await collectUnreferencedBlobs(ctx, olderThan);
    if (removed > 0) options.log.info({ removed }, 'unreferenced blobs removed');
  }
  return run;
}

/** Runs the timers periodically. */
export class TimerWorker {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #ticks = 0;
  #stopped = true;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: TimerWorkerOptions,
  ) {}

  /** True between start() and stop(). */
  get running(): boolean {
    return !this.#stopped;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops scheduling and waits for a tick in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One tick, also callable by tests: timers, then garbage every few ticks. */
  tick(): Promise<TimerRun> {
    return runTimerTick(this.ctx, this.options, this.#ticks++);
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.tick()
        .then(
          () => undefined,
          (error: unknown) => this.options.log.error({ err: error }, 'worker tick failed'),
        )
        .finally(() => {
          this.#running = undefined;
          this.#schedule(this.options.intervalMs);
        });
    }, delay);
    this.#timer.unref();
  }
}
