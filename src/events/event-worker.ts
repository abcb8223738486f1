/**
 * The outbox worker (decisions.md §7, issue 7 "Outbox and worker"): claims due rows with a lease (rows of a crashed
 * worker come back when their lease ends), delivers them concurrently — the store hands out one row per order key
 * at a time, so postbacks to one URL stay in order while other URLs go on —, records every attempt, and retries
 * with backoff and jitter for 72 hours; a row given up on is audited (mails also get activity 999).
 * Delivery is at least once: a row delivered just before a crash is delivered again after the restart.
 */
import type { ServiceContext } from '../service/context.js';
import type { OutboxMessage } from '../store/store.js';
import { nextRetryAt } from './backoff.js';
import type { DeliveryOutcome } from './delivery.js';
import { deliverMail, recordMailFailure, type MailDeps } from './deliver-mail.js';
import { deliverPostback, parsePostbackPayload, recordPostbackFailure } from './deliver-postback.js';

/** Where the worker reports. */
export interface EventWorkerLog {
  info(data: object, message: string): void;
  error(data: object, message: string): void;
}

/** Options of {@link EventWorker}. */
export interface EventWorkerOptions {
  readonly mail: MailDeps;
  readonly log: EventWorkerLog;
  /** Jitter source in [0, 1) (default Math.random; tests pass a fixed one). */
  readonly random?: () => number;
  /** Lease of a claimed row (default 120 s: longer than the 30 s postback timeout plus a slow SMTP server). */
  readonly leaseMs?: number;
  /** Rows claimed per round (default 64). */
  readonly batchSize?: number;
  /** Poll interval when idle (default 250 ms); {@link EventWorker.wake} cuts it short. */
  readonly idleMs?: number;
  readonly postbackTimeoutMs?: number;
}

/** Counts of one round. */
export interface EventRound {
  readonly delivered: number;
  readonly retried: number;
  readonly failed: number;
}

/** The outbox worker of one process. Several processes may run one each against a shared store. */
export class EventWorker {
  #stopped = true;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #wakeRequested = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: EventWorkerOptions,
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

  /** Stops claiming and waits for the deliveries in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** New rows were committed: run a round now rather than after the idle interval. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#running !== undefined) {
      this.#wakeRequested = true;
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#schedule(0);
  }

  /** One round (also for tests): claim due rows, deliver them all, record the outcomes. */
  async runOnce(): Promise<EventRound> {
    const now = this.ctx.clock();
    const claimed = await this.ctx.store.claimDue(now, this.options.batchSize ?? 64, this.options.leaseMs ?? 120_000);
    const outcomes = await Promise.all(claimed.map((message) => this.#handle(message)));
    return {
      delivered: outcomes.filter((o) => o === 'delivered').length,
      retried: outcomes.filter((o) => o === 'retry').length,
      failed: outcomes.filter((o) => o === 'failed').length,
    };
  }

  /** Runs rounds until nothing is due at the clock's now (tests; bounded by `maxRounds`). */
  async drain(maxRounds = 1000): Promise<EventRound> {
    const total = { delivered: 0, retried: 0, failed: 0 };
    for (let i = 0; i < maxRounds; i++) {
      const round = await this.runOnce();
      total.delivered += round.delivered;
      total.retried += round.retried;
      total.failed += round.failed;
      if (round.delivered + round.retried + round.failed === 0) break;
    }
    return total;
  }

  async #deliver(message: OutboxMessage): Promise<DeliveryOutcome> {
    try {
      if (message.kind === 'postback') {
        return await deliverPostback(this.ctx, message, this.options.postbackTimeoutMs !== undefined ? { timeoutMs: this.options.postbackTimeoutMs } : {});
      }
      if (message.kind === 'mail') return await deliverMail(this.ctx, this.options.mail, message);
      return { ok: true, detail: 'timer rows need no delivery' };
    } catch (error) {
      return { ok: false, permanent: false, error: (error as Error).message ?? String(error) };
    }
  }

  async #handle(message: OutboxMessage): Promise<'delivered' | 'retry' | 'failed'> {
    const outcome = await this.#deliver(message);
    const at = this.ctx.clock();
    const store = this.ctx.store;
    const base = { outboxId: message.id, attempt: message.attempts, at, ...(outcome.responseCode !== undefined ? { responseCode: outcome.responseCode } : {}) };
    if (outcome.ok) {
      await store.recordAttempt({ ...base, outcome: 'delivered', ...(outcome.detail !== undefined ? { detail: outcome.detail } : {}) });
      await store.markDone(message.id);
      return 'delivered';
    }
    const retryAt = outcome.permanent ? undefined : nextRetryAt(at, message.firstDueAt, message.attempts, this.options.random ?? Math.random);
    await store.recordAttempt({ ...base, outcome: retryAt ? 'retry' : 'failed', detail: outcome.error });
    await store.markFailed(message.id, outcome.error, retryAt);
    if (retryAt) return 'retry';
    this.options.log.error({ outboxId: message.id, kind: message.kind, error: outcome.error, url: urlOf(message) }, 'outbox row given up');
    try {
      if (message.kind === 'mail') await recordMailFailure(this.ctx, message, outcome.error);
      if (message.kind === 'postback') await recordPostbackFailure(this.ctx, message, outcome.error, outcome.responseCode);
    } catch (error) {
      this.options.log.error({ err: error, outboxId: message.id }, 'recording a given-up row failed');
    }
    return 'failed';
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      let busy = false;
      this.#running = this.runOnce()
        .then(
          (round) => {
            busy = round.delivered + round.retried + round.failed > 0;
          },
          (error: unknown) => this.options.log.error({ err: error }, 'event worker round failed'),
        )
        .finally(() => {
          this.#running = undefined;
          const again = busy || this.#wakeRequested;
          this.#wakeRequested = false;
          this.#schedule(again ? 0 : (this.options.idleMs ?? 250));
        });
    }, delay);
    this.#timer.unref();
  }
}

function urlOf(message: OutboxMessage): string | undefined {
  return message.kind === 'postback' ? parsePostbackPayload(message.payload)?.url : undefined;
}
