/**
 * The jobs of a PostgreSQL-backed service (docs/design/storage.md#jobs) on graphile-worker: every outbox row is a job
 * from the moment its commit lands (a trigger of migration 4 adds it in the same transaction), and a recurring job runs
 * the timers (expiry, reminders, cleaning, stale signing holds and sealing after the last signer) and the garbage
 * collection. Whichever process locks a job runs it; a postback URL's job has its own named queue, so one process at
 * a time delivers that URL's rows, in order. A process that dies keeps its jobs locked: every process writes a
 * heartbeat, and the survivors hand the jobs of a process silent for `nodeTimeoutMs` back (graphile-worker's
 * `forceUnlockWorkers`), so they run again elsewhere — at least once, with the same delivery id.
 *
 * graphile-worker was chosen over pg-boss because pg-boss 11 needs Node 22 (paraph supports 20), and because jobs can be
 * added by SQL inside paraph's own transactions.
 */
import { EventEmitter } from 'node:events';
import type { JobHelpers, Runner, Task, WorkerEvents, WorkerUtils } from 'graphile-worker';
import type pg from 'pg';
import type { ServiceContext } from '../service/context.js';
import { addOutboxJob, collectEmptyOutboxQueues, JobNodes, OutboxKeyRows } from '../store/postgres-job-tables.js';
import { openPool } from '../store/postgres-store.js';
import { DEFAULT_NODE_TIMEOUT_MS } from './backoff.js';
import { deliverAndJudge, settleDeliveries, type DeliveryDeps } from './outbox-delivery.js';
import { runTimerTick } from './timer-worker.js';

/** Options of {@link PostgresJobRunner}. */
export interface PostgresJobRunnerOptions extends DeliveryDeps {
  readonly databaseUrl: string;
  /** How often the timers run (PARAPH_WORKER_INTERVAL_MS). */
  readonly timerIntervalMs: number;
  /** Jobs this process runs at once (default 8). */
  readonly concurrency?: number;
  /** A process whose heartbeat is older than this is taken for dead and its jobs run elsewhere (default 60 s). */
  readonly nodeTimeoutMs?: number;
  /** Blobs unreferenced for longer than this are deleted (default one hour). */
  readonly garbageAgeMs?: number;
}

const OUTBOX_TASK = 'paraph_outbox';
const TIMERS_TASK = 'paraph_timers';
const TIMERS_KEY = 'paraph:timers';
/** Rows one job delivers before it makes room for other keys. */
const ROWS_PER_JOB = 50;
const QUEUE_GC_EVERY_TICKS = 3600;

/** The job runner of one process. */
export class PostgresJobRunner {
  #runner: Runner | undefined;
  #utils: WorkerUtils | undefined;
  #pool: pg.Pool | undefined;
  #poolId: string | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #starting: Promise<void> | undefined;
  #stopped = true;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: PostgresJobRunnerOptions,
  ) {}

  /** True between a successful start and stop. */
  get running(): boolean {
    return !this.#stopped && this.#runner !== undefined;
  }

  /** Starts running jobs; a failure to start is logged and leaves `running` false. */
  start(): Promise<void> {
    if (!this.#stopped) return this.#starting ?? Promise.resolve();
    this.#stopped = false;
    this.#starting = this.#start().catch(async (error: unknown) => {
      this.options.log.error({ err: error }, 'the job runner could not start');
      this.#stopped = true;
      await this.#release();
    });
    return this.#starting;
  }

  /** Stops fetching jobs, waits for the running ones and hands nothing locked to the next process. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#starting;
    await this.#release();
  }

  async #release(): Promise<void> {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    const runner = this.#runner;
    this.#runner = undefined;
    await runner?.stop().catch((error: unknown) => this.options.log.error({ err: error }, 'stopping the job runner failed'));
    if (this.#pool && this.#poolId) await new JobNodes(this.#pool).leave(this.#poolId).catch(() => undefined);
    await Promise.resolve(this.#utils?.release()).catch(() => undefined);
    this.#utils = undefined;
    await this.#pool?.end().catch(() => undefined);
    this.#pool = undefined;
  }

  async #start(): Promise<void> {
    const { Logger, makeWorkerUtils, run } = await import('graphile-worker');
    const concurrency = this.options.concurrency ?? 8;
    // Job runs hold no connection while they deliver; fetching and completing need a few.
    const pool = (this.#pool = openPool(this.options.databaseUrl, concurrency + 2));
    const logger = new Logger(() => (level, message, meta) => {
      if (level === 'error' || level === 'warning') this.options.log.error({ graphileWorker: meta ?? {} }, message);
    });
    this.#utils = await makeWorkerUtils({ pgPool: pool, logger });
    const events = new EventEmitter() as WorkerEvents;
    events.on('pool:create', ({ workerPool }) => {
      this.#poolId = workerPool.id;
    });
    const outbox: Task = (payload, helpers) => this.#runOutboxKey(payload, helpers);
    const timers: Task = (payload, helpers) => this.#runTimers(payload, helpers);
    this.#runner = await run({
      pgPool: pool,
      concurrency,
      noHandleSignals: true,
      pollInterval: Math.min(1000, this.options.timerIntervalMs),
      logger,
      events,
      taskList: { [OUTBOX_TASK]: outbox, [TIMERS_TASK]: timers },
    });
    // One timers job for all processes; one that is already scheduled keeps its time.
    await this.#runner.addJob(TIMERS_TASK, { tick: 0 }, { jobKey: TIMERS_KEY, queueName: TIMERS_KEY, jobKeyMode: 'preserve_run_at' });
    await this.#watchNodes();
  }

  /** Heartbeats this process and hands back the jobs of processes that stopped beating. */
  async #watchNodes(): Promise<void> {
    const pool = this.#pool;
    const poolId = this.#poolId;
    if (pool === undefined || poolId === undefined) return;
    const nodes = new JobNodes(pool);
    const timeoutMs = this.options.nodeTimeoutMs ?? DEFAULT_NODE_TIMEOUT_MS;
    const round = async (): Promise<void> => {
      await nodes.beat(poolId);
      const dead = [...(await nodes.takeDead(timeoutMs)), ...(await nodes.unknownLockHolders(timeoutMs))];
      if (dead.length > 0 && this.#utils) {
        await this.#utils.forceUnlockWorkers(dead);
        this.options.log.info({ pools: dead }, 'jobs of stopped processes handed back');
      }
    };
    await round();
    this.#heartbeat = setInterval(() => {
      round().catch((error: unknown) => this.options.log.error({ err: error }, 'job heartbeat failed'));
    }, Math.max(100, Math.floor(timeoutMs / 4)));
    this.#heartbeat.unref();
  }

  /** Delivers the due rows of one outbox key in order; a row to retry later puts the key's job back until then. */
  async #runOutboxKey(payload: unknown, helpers: JobHelpers): Promise<void> {
    const key = typeof payload === 'object' && payload !== null && 'key' in payload && typeof payload.key === 'string' ? payload.key : undefined;
    if (key === undefined) return;
    const rows = new OutboxKeyRows(this.#livePool());
    for (let delivered = 0; delivered < ROWS_PER_JOB && !helpers.abortSignal.aborted; delivered++) {
      const head = await rows.head(key);
      if (head === undefined) return;
      if (head.dueAt.getTime() > this.ctx.clock().getTime()) return this.#requeue(helpers, key, head.dueAt);
      const message = await rows.beginAttempt(head.id);
      if (message === undefined) continue;
      // graphile-worker aborts the signal when a stopping process's grace time is over: the postback in flight ends
      // as a failed attempt and the key's job is handed back, to run on a process that stays.
      const settled = await deliverAndJudge(this.ctx, this.options, message, helpers.abortSignal);
      await settleDeliveries(this.ctx, this.options, [settled]);
      if (settled.settlement.retryAt !== undefined) return this.#requeue(helpers, key, settled.settlement.retryAt);
    }
    await this.#requeue(helpers, key, this.ctx.clock());
  }

  /** Runs the key's job again at `at` of the service clock (the wait, not the date, is what graphile-worker gets). */
  async #requeue(helpers: JobHelpers, key: string, at: Date): Promise<void> {
    const runAt = new Date(Date.now() + Math.max(0, at.getTime() - this.ctx.clock().getTime()));
    await helpers.withPgClient((client) => addOutboxJob(client, key, runAt, 'replace'));
  }

  async #runTimers(payload: unknown, helpers: JobHelpers): Promise<void> {
    const tick = typeof payload === 'object' && payload !== null && 'tick' in payload && typeof payload.tick === 'number' ? payload.tick : 0;
    // The next run is scheduled first: a failing round must not stop the timers.
    await helpers.addJob(TIMERS_TASK, { tick: tick + 1 }, {
      jobKey: TIMERS_KEY,
      queueName: TIMERS_KEY,
      runAt: new Date(Date.now() + this.options.timerIntervalMs),
      jobKeyMode: 'replace',
    });
    await runTimerTick(this.ctx, this.options, tick);
    // Each postback URL leaves a named queue behind in graphile-worker; empty ones are removed now and then.
    if (tick % QUEUE_GC_EVERY_TICKS === 0) await collectEmptyOutboxQueues(this.#livePool());
  }

  #livePool(): pg.Pool {
    if (this.#pool === undefined) throw new Error('the job runner is stopped');
    return this.#pool;
  }
}
