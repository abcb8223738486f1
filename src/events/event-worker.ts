/**
 * The outbox worker (docs/design/events.md#outbox): claims due rows with a lease (rows of a crashed
 * worker come back when their lease ends) and delivers them concurrently. The store hands out one row per order key
 * at a time, so postbacks to one URL stay in order; a slow or failing URL holds only its own queue, because the
 * worker claims new rows as soon as any delivery ends instead of waiting for a whole batch. Outcomes are written
 * in batches (attempt record + done / retry at / failed in one store write); retries back off with jitter for 72
 * hours; a row given up on is audited (mails also get activity 999). Delivery is at least once: a row delivered
 * just before a crash is delivered again after the restart.
 */
import type { ServiceContext } from '../service/context.js';
import type { OutboxMessage } from '../store/store.js';
import type { MailDeps } from './deliver-mail.js';
import { DEFAULT_OUTBOX_LEASE_MS } from './backoff.js';
import { deliverAndJudge, settleDeliveries, type DeliveryLog, type Settled } from './outbox-delivery.js';

/** Where the worker reports. */
export type EventWorkerLog = DeliveryLog;

/** Options of {@link EventWorker}. */
export interface EventWorkerOptions {
  readonly mail: MailDeps;
  readonly log: EventWorkerLog;
  /** Jitter source in [0, 1) (default Math.random; tests pass a fixed one). */
  readonly random?: () => number;
  /** Lease of a claimed row (default 120 s: longer than the 30 s postback timeout plus a slow SMTP server). */
  readonly leaseMs?: number;
  /** Deliveries in flight at most (default 64). */
  readonly concurrency?: number;
  /** Poll interval when idle (default 250 ms); {@link EventWorker.wake} cuts it short. */
  readonly idleMs?: number;
  readonly postbackTimeoutMs?: number;
  /** Delay before the first retry (default 30 s, backoff.ts). */
  readonly retryBaseMs?: number;
}

/** Counts of {@link EventWorker.runOnce} / {@link EventWorker.drain}. */
export interface EventRound {
  readonly delivered: number;
  readonly retried: number;
  readonly failed: number;
}

/** The outbox worker of one process. Several processes may run one each against a shared store. */
export class EventWorker {
  #stopped = true;
  #timer: NodeJS.Timeout | undefined;
  #inFlight = 0;
  #pumping: Promise<void> | undefined;
  #pumpAgain = false;
  #queue: Settled[] = [];
  #flushing: Promise<void> | undefined;
  #idle: (() => void)[] = [];

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: EventWorkerOptions,
  ) {}

  /** True between start() and stop(). */
  get running(): boolean {
    return !this.#stopped;
  }

  /** Starts delivering in the background. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    void this.#pump();
  }

  /** Stops claiming and waits for the deliveries in flight to be delivered and recorded. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#pumping;
    while (this.#inFlight > 0 || this.#queue.length > 0 || this.#flushing) {
      await new Promise<void>((resolve) => this.#idle.push(resolve));
    }
  }

  /** New rows were committed: claim now rather than after the idle interval. */
  wake(): void {
    if (!this.#stopped) void this.#pump();
  }

  /** One round for tests (worker not started): claim every due row, deliver them all, record the outcomes. */
  async runOnce(limit = 256): Promise<EventRound> {
    const claimed = await this.ctx.store.claimDue(this.ctx.clock(), limit, this.options.leaseMs ?? DEFAULT_OUTBOX_LEASE_MS);
    const settled = await Promise.all(claimed.map((message) => this.#deliverAndJudge(message)));
    await this.#settle(settled);
    return count(settled);
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

  #pump(): Promise<void> {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return this.#pumping;
    }
    this.#pumping = this.#claimLoop().finally(() => {
      this.#pumping = undefined;
      // A wake that came in as the loop was ending.
      if (this.#pumpAgain && !this.#stopped) void this.#pump();
    });
    return this.#pumping;
  }

  async #claimLoop(): Promise<void> {
    do {
      this.#pumpAgain = false;
      if (this.#stopped) return;
      const room = (this.options.concurrency ?? 64) - this.#inFlight;
      if (room <= 0) return;
      let claimed: OutboxMessage[] = [];
      try {
        claimed = await this.ctx.store.claimDue(this.ctx.clock(), room, this.options.leaseMs ?? DEFAULT_OUTBOX_LEASE_MS);
      } catch (error) {
        this.options.log.error({ err: error }, 'claiming outbox rows failed');
      }
      for (const message of claimed) {
        this.#inFlight++;
        void this.#deliverAndJudge(message).then((settled) => {
          this.#inFlight--;
          this.#queue.push(settled);
          this.#scheduleFlush();
        });
      }
      if (claimed.length === 0 && this.#inFlight === 0) this.#sleep();
    } while (this.#pumpAgain);
  }

  #sleep(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#pump();
    }, this.options.idleMs ?? 250);
    this.#timer.unref();
  }

  #scheduleFlush(): void {
    if (this.#flushing) return;
    this.#flushing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(async () => {
        while (this.#queue.length > 0) {
          const batch = this.#queue.splice(0);
          try {
            await this.#settle(batch);
          } catch (error) {
            // The rows stay leased and come back when the lease ends: delivered again, at least once.
            this.options.log.error({ err: error, rows: batch.length }, 'recording outbox outcomes failed');
          }
        }
      })
      .finally(() => {
        this.#flushing = undefined;
        if (this.#inFlight === 0 && this.#queue.length === 0) for (const resolve of this.#idle.splice(0)) resolve();
        if (!this.#stopped) void this.#pump();
      });
  }

  #deliverAndJudge(message: OutboxMessage): Promise<Settled> {
    return deliverAndJudge(this.ctx, this.options, message);
  }

  #settle(batch: readonly Settled[]): Promise<void> {
    return settleDeliveries(this.ctx, this.options, batch);
  }
}

function count(settled: readonly Settled[]): EventRound {
  const by = (o: string) => settled.filter((s) => s.settlement.attempt.outcome === o).length;
  return { delivered: by('delivered'), retried: by('retry'), failed: by('failed') };
}
