/**
 * The service's Prometheus metrics (docs/operations.md#metrics), declared in metric-definitions.ts: one registry per service instance, so that several
 * services in one process (tests, a host mounting two) never mix their series. Counts that several processes share
 * (transactions by status, the outbox backlog) are read from the store at scrape time, so on PostgreSQL every process
 * reports the same global numbers; the rest (requests, PDF jobs, deliveries, connections, the process itself) is this
 * process's own.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { TransactionStatus } from '../domain/transaction.js';
import { METRICS, metricOptions, type MetricDefinition } from './metric-definitions.js';
import { observePdfJobs, pdfPoolState, type PdfJobReport } from '../service/pdf-jobs/pdf-work.js';
import type { ServiceObserver } from '../service/observability/service-observer.js';
import type { ServiceContext } from '../service/context.js';
import type { ConnectionCounters } from './connection-limits.js';

type OperationalCounts = Awaited<ReturnType<ServiceContext['store']['countOperational']>>;
type OutboxKind = Parameters<ServiceObserver['deliveryAttempt']>[0];

/** What the metrics read at scrape time. */
export interface MetricsSources {
  readonly store: Pick<ServiceContext['store'], 'countOperational'>;
  readonly clock: () => Date;
}

const STATUS_NAMES = new Map<number, string>(Object.entries(TransactionStatus).map(([name, code]) => [code, name]));
const OUTBOX_KINDS: readonly OutboxKind[] = ['postback', 'mail', 'timer'];
/** Requests: from a cached GET (ms) to a seal of a large document (tens of seconds). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Postbacks: immediate (ms) to retried for hours. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14_400, 86_400];

/** The registry of one service and the hooks that feed it. */
export class ParaphMetrics {
  readonly registry = new Registry();
  /** What the use cases and workers report to (ServiceContext.observer). */
  readonly observer: ServiceObserver;
  readonly #stopPdf: () => void;
  #connections: ConnectionCounters | undefined;

  readonly #httpRequests = new Counter({ ...metricOptions(METRICS.httpRequests), registers: [this.registry] });
  readonly #httpDuration = new Histogram({ ...metricOptions(METRICS.httpDuration), buckets: HTTP_BUCKETS, registers: [this.registry] });
  readonly #pdfJobs = new Counter({ ...metricOptions(METRICS.pdfJobs), registers: [this.registry] });
  readonly #pdfRefused = new Counter({ ...metricOptions(METRICS.pdfRefused), registers: [this.registry] });
  readonly #pdfDuration = new Histogram({ ...metricOptions(METRICS.pdfDuration), buckets: JOB_BUCKETS, registers: [this.registry] });
  readonly #pdfWait = new Histogram({ ...metricOptions(METRICS.pdfWait), buckets: JOB_BUCKETS, registers: [this.registry] });
  readonly #deliveries = new Counter({ ...metricOptions(METRICS.deliveries), registers: [this.registry] });
  readonly #postbackLatency = new Histogram({ ...metricOptions(METRICS.postbackLatency), buckets: LATENCY_BUCKETS, registers: [this.registry] });
  readonly #mails = new Counter({ ...metricOptions(METRICS.mails), registers: [this.registry] });
  readonly #storeErrors = new Counter({ ...metricOptions(METRICS.storeErrors), registers: [this.registry] });
  #counts: Promise<OperationalCounts | undefined> | undefined;

  #processMetrics = false;

  constructor(private readonly sources: MetricsSources) {
    const metrics = this;
    new Gauge({
      ...metricOptions(METRICS.transactions),
      registers: [this.registry],
      async collect() {
        const counts = await metrics.#scrapeCounts();
        if (counts === undefined) return;
        for (const [code, name] of STATUS_NAMES) this.set({ status: String(code), name }, counts.transactionsByStatus.get(code) ?? 0);
      },
    });
    new Gauge({
      ...metricOptions(METRICS.outboxPending),
      registers: [this.registry],
      async collect() {
        const counts = await metrics.#scrapeCounts();
        if (counts === undefined) return;
        for (const kind of OUTBOX_KINDS) this.set({ kind }, counts.outbox.find((row) => row.kind === kind)?.pending ?? 0);
      },
    });
    new Gauge({
      ...metricOptions(METRICS.outboxOldestPending),
      registers: [this.registry],
      async collect() {
        const counts = await metrics.#scrapeCounts();
        if (counts === undefined) return;
        const now = metrics.sources.clock().getTime();
        for (const kind of OUTBOX_KINDS) {
          const oldest = counts.outbox.find((row) => row.kind === kind)?.oldestDueAt;
          this.set({ kind }, oldest === undefined ? 0 : Math.max(0, (now - oldest.getTime()) / 1000));
        }
      },
    });
    const pool = (metric: MetricDefinition, read: (state: ReturnType<typeof pdfPoolState>) => number): void => {
      new Gauge({ ...metricOptions(metric), registers: [this.registry], collect() { this.set(read(pdfPoolState())); } });
    };
    pool(METRICS.pdfPoolBusy, (s) => s.busy);
    pool(METRICS.pdfPoolIdle, (s) => s.idle);
    pool(METRICS.pdfPoolWaiting, (s) => s.waiting);
    pool(METRICS.pdfPoolMaxBusy, (s) => s.maxBusy);
    new Gauge({
      ...metricOptions(METRICS.connectionsOpen),
      registers: [this.registry],
      collect() {
        if (metrics.#connections) this.set(metrics.#connections.open);
      },
    });
    const fromCounters = (metric: MetricDefinition, read: (c: ConnectionCounters) => number): void => {
      let seen = 0;
      new Counter({
        ...metricOptions(metric),
        registers: [this.registry],
        collect() {
          if (metrics.#connections === undefined) return;
          const now = read(metrics.#connections);
          if (now > seen) this.inc(now - seen);
          seen = now;
        },
      });
    };
    fromCounters(METRICS.connectionsRefused, (c) => c.refused);
    fromCounters(METRICS.connectionsEvicted, (c) => c.evicted);
    fromCounters(METRICS.connectionsBodyTimeouts, (c) => c.bodyTimeouts);

    this.#stopPdf = observePdfJobs((report) => this.#pdfJob(report));
    this.observer = {
      deliveryAttempt: (kind, outcome, latencyMs) => {
        this.#deliveries.inc({ kind, outcome });
        if (kind === 'postback' && latencyMs !== undefined) this.#postbackLatency.observe(latencyMs / 1000);
        if (kind === 'mail') this.#mails.inc({ outcome: outcome === 'delivered' ? 'sent' : 'failed' });
      },
    };
  }

  /** Counts every request `app` answers (call before its routes are registered). */
  observeRequests(app: FastifyInstance): void {
    app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
      // The route's pattern, never the URL: ids and tokens must not become label values.
      const route = request.routeOptions.url ?? 'unmatched';
      const method = request.method;
      this.#httpRequests.inc({ method, route, status: String(reply.statusCode) });
      this.#httpDuration.observe({ method, route }, reply.elapsedTime / 1000);
    });
  }

  /** Reports the open and refused connections of the server the limits were applied to. */
  observeConnections(counters: ConnectionCounters): void {
    this.#connections = counters;
  }

  /**
   * Adds prom-client's process metrics (memory, CPU, event-loop lag, GC, handles) to this registry; the service does
   * it when it serves the metrics, so services nobody scrapes (tests) watch no event loop. Idempotent.
   */
  enableProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    collectDefaultMetrics({ register: this.registry });
  }

  /** The exposition text and its content type. */
  async expose(): Promise<{ contentType: string; body: string }> {
    this.enableProcessMetrics();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** Stops listening to the process-wide PDF pool. */
  close(): void {
    this.#stopPdf();
  }

  #pdfJob(report: PdfJobReport): void {
    this.#pdfJobs.inc({ kind: report.kind, outcome: report.outcome });
    if (report.limit) this.#pdfRefused.inc({ kind: report.kind, limit: report.limit });
    this.#pdfDuration.observe({ kind: report.kind }, report.runMs / 1000);
    this.#pdfWait.observe({ kind: report.kind }, report.waitMs / 1000);
  }

  /** One database read per scrape, shared by the gauges that need it. */
  #scrapeCounts(): Promise<OperationalCounts | undefined> {
    this.#counts ??= this.sources.store
      .countOperational(this.sources.clock())
      .catch(() => {
        this.#storeErrors.inc();
        return undefined;
      })
      .finally(() => setImmediate(() => (this.#counts = undefined)));
    return this.#counts;
  }
}

/**
 * Whether `authorization` carries the metrics bearer token (compared in constant time over hashes, so neither the
 * token's length nor its content leaks through timing).
 */
export function metricsAuthorized(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(authorization ?? '');
  if (!match) return false;
  const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]!.trim()), digest(token));
}
