/**
 * Every metric the service registers, declared once: src/http/metrics.ts registers them from here and the table of
 * docs/operations.md#what-is-counted is generated from here (`npx tsx scripts/generate-metrics-doc.ts`;
 * test/metrics-doc.test.ts fails when it drifts or when a registered metric is missing here).
 */

/** One metric: its Prometheus name, type, labels and help text, and what the operator table adds. */
export interface MetricDefinition {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly labels: readonly string[];
  /** Prometheus HELP text (the table's meaning starts with it). */
  readonly help: string;
  /** More for the operator table (label values, caveats); Markdown. */
  readonly details?: string;
  /** Read from the database at scrape time, so the same in every process. */
  readonly fromDatabase?: boolean;
}

const define = <K extends string>(metrics: Record<K, MetricDefinition>): Readonly<Record<K, MetricDefinition>> => metrics;

export const METRICS = define({
  httpRequests: {
    name: 'paraph_http_requests_total',
    type: 'counter',
    labels: ['method', 'route', 'status'],
    help: 'HTTP requests answered, by route pattern and status code',
    details: '`route` is the route pattern (`/api/transaction/:transactionId`), never a URL with ids or tokens; `unmatched` for unknown paths',
  },
  httpDuration: { name: 'paraph_http_request_duration_seconds', type: 'histogram', labels: ['method', 'route'], help: 'Time to answer an HTTP request, by route pattern' },
  transactions: {
    name: 'paraph_transactions',
    type: 'gauge',
    labels: ['status', 'name'],
    help: 'Transactions by status, counted in the database (global across processes)',
    details: 'labelled with the code and the name (`30`, `Signed`), cleaned ones included',
    fromDatabase: true,
  },
  outboxPending: {
    name: 'paraph_outbox_pending',
    type: 'gauge',
    labels: ['kind'],
    help: 'Outbox rows not yet delivered or given up, by kind (global across processes)',
    details: 'postbacks, mails and timers',
    fromDatabase: true,
  },
  outboxOldestPending: {
    name: 'paraph_outbox_oldest_pending_age_seconds',
    type: 'gauge',
    labels: ['kind'],
    help: 'Age of the oldest due, undelivered outbox row, by kind, since it first became due (0: none)',
    details: 'retries included',
    fromDatabase: true,
  },
  deliveries: {
    name: 'paraph_outbox_deliveries_total',
    type: 'counter',
    labels: ['kind', 'outcome'],
    help: 'Outbox delivery attempts, by kind and outcome (delivered, retry, failed: given up)',
    details: '`retry` failed and is retried later, `failed` was given up after 72 hours or refused for good',
  },
  postbackLatency: { name: 'paraph_postback_latency_seconds', type: 'histogram', labels: [], help: 'From a postback becoming due to its delivery (retries included)' },
  mails: { name: 'paraph_mails_total', type: 'counter', labels: ['outcome'], help: 'Mail sending attempts, by outcome (sent, failed)' },
  pdfJobs: {
    name: 'paraph_pdf_jobs_total',
    type: 'counter',
    labels: ['kind', 'outcome'],
    help: 'PDF jobs ended, by kind and outcome (ok, rejected: the document was refused, too_complex: past a limit, failed: the PDF process failed)',
    details: 'kinds: `open`, `facts`, `resolve`, `check`, `place`, `rewrite`, `scribble`, `sign`, `seal`, `receipt`',
  },
  pdfRefused: {
    name: 'paraph_pdf_jobs_refused_total',
    type: 'counter',
    labels: ['kind', 'limit'],
    help: 'PDF jobs stopped past their time budget or memory cap',
    details: '`limit` is `time` or `memory`',
  },
  pdfDuration: { name: 'paraph_pdf_job_duration_seconds', type: 'histogram', labels: ['kind'], help: 'Time a PDF job ran in its process' },
  pdfWait: { name: 'paraph_pdf_job_queue_wait_seconds', type: 'histogram', labels: ['kind'], help: 'Time a PDF job waited for memory and a free PDF process' },
  pdfPoolBusy: { name: 'paraph_pdf_pool_busy', type: 'gauge', labels: [], help: 'PDF processes running a job' },
  pdfPoolIdle: { name: 'paraph_pdf_pool_idle', type: 'gauge', labels: [], help: 'PDF processes started and idle' },
  pdfPoolWaiting: { name: 'paraph_pdf_pool_waiting', type: 'gauge', labels: [], help: 'PDF jobs waiting for memory or a free PDF process' },
  pdfPoolMaxBusy: { name: 'paraph_pdf_pool_max_busy', type: 'gauge', labels: [], help: 'Most PDF jobs that run at once' },
  connectionsOpen: { name: 'paraph_connections_open', type: 'gauge', labels: [], help: 'Open client connections' },
  connectionsRefused: {
    name: 'paraph_connections_refused_total',
    type: 'counter',
    labels: [],
    help: 'Connections closed at once because a connection cap was reached',
    details: 'the caps are in [SECURITY.md](../SECURITY.md#settings)',
  },
  connectionsEvicted: { name: 'paraph_connections_evicted_total', type: 'counter', labels: [], help: 'Idle connections closed to make room at the total connection cap' },
  connectionsBodyTimeouts: { name: 'paraph_connections_body_timeouts_total', type: 'counter', labels: [], help: 'Connections closed because a request body did not arrive in time' },
  storeErrors: {
    name: 'paraph_metrics_store_errors_total',
    type: 'counter',
    labels: [],
    help: 'Scrapes whose database counts could not be read (the counts keep their last values)',
  },
});

/** Name, help and labels of a declared metric, as prom-client's constructors take them. */
export function metricOptions(metric: MetricDefinition): { name: string; help: string; labelNames: string[] } {
  return { name: metric.name, help: metric.help, labelNames: [...metric.labels] };
}
