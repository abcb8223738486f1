/**
 * The service's metrics (docs/operations.md#metrics): a flow of transactions moves the counters and histograms of
 * requests, PDF jobs, outbox deliveries and transactions by status; `/metrics` on the service address needs its bearer
 * token and is absent without one; the separate listener serves it; two services in one process keep their own
 * registries; a real Prometheus scrapes the service and finds the series through its HTTP API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, freePort, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';
import { prometheusTool } from '../helpers/prometheus-tools.js';

const TOKEN = 'metrics-token-0123456789';
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** The value of the sample `name{labels…}` in an exposition text (labels matched as given, in any order). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(url: string, token: string | null = TOKEN): Promise<{ status: number; text: string; type: string | null }> {
  const response = await fetch(url, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') };
}

let service: TestService;
let postbacks = 0;
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      postbacks++;
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/postback`;
  cleanups.push(() => new Promise((resolve) => receiver.close(resolve)));
  service = await startTestService({ worker: true, env: { PARAPH_METRICS_TOKEN: TOKEN, PARAPH_METRICS_LISTEN: '127.0.0.1:0' } });
  cleanups.push(() => service.dispose());
}, 60_000);

/** Seal-only transactions with a postback each, until every postback has arrived. */
async function runFlows(count: number): Promise<void> {
  const pdf = await makePdf([['Metrics test document']]);
  const before = postbacks;
  for (let i = 0; i < count; i++) {
    const created = await call(service.url, 'POST', '/api/transaction', { json: { Seal: true, PostbackUrl: receiverUrl } });
    expect(created.status, created.text).toBe(200);
    const id = created.json.Id as string;
    const uploaded = await call(service.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
    expect(uploaded.status, uploaded.text).toBe(201);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    expect((await call(service.url, 'GET', `/api/transaction/${id}`)).json.Status).toBe(30);
  }
  expect((await call(service.url, 'GET', '/api/transaction/00000000-0000-4000-8000-000000000000')).status).toBe(401);
  const deadline = Date.now() + 30_000;
  while (postbacks < before + count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(postbacks).toBeGreaterThanOrEqual(before + count);
}

describe('metrics', () => {
  it('a flow of seal-only transactions moves the request, PDF job, outbox and transaction series', async () => {
    await runFlows(3);
    // The postbacks were answered; their settlement is written right after.
    let text = '';
    const deadline = Date.now() + 10_000;
    do {
      text = (await scrape(`${service.url}/metrics`)).text;
    } while ((sample(text, 'paraph_outbox_deliveries_total', { kind: 'postback', outcome: 'delivered' }) ?? 0) < 3 && Date.now() < deadline && (await new Promise((r) => setTimeout(r, 50)), true));

    expect(sample(text, 'paraph_http_requests_total', { method: 'POST', route: '/api/transaction', status: '200' })).toBe(3);
    expect(sample(text, 'paraph_http_requests_total', { method: 'PUT', route: '/api/transaction/:transactionId/start', status: '204' })).toBe(3);
    // Route patterns, never ids: the unknown transaction is counted under its pattern.
    expect(sample(text, 'paraph_http_requests_total', { method: 'GET', route: '/api/transaction/:transactionId', status: '401' })).toBe(1);
    expect(text).not.toMatch(/route="[^"]*[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(sample(text, 'paraph_http_request_duration_seconds_count', { method: 'POST', route: '/api/transaction' })).toBe(3);
    expect(sample(text, 'paraph_http_request_duration_seconds_bucket', { method: 'POST', route: '/api/transaction', le: '+Inf' })).toBe(3);

    expect(sample(text, 'paraph_transactions', { status: '30', name: 'Signed' })).toBe(3);
    expect(sample(text, 'paraph_transactions', { status: '5', name: 'WaitingForDocument' })).toBe(0);

    expect(sample(text, 'paraph_pdf_jobs_total', { kind: 'open', outcome: 'ok' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'paraph_pdf_job_duration_seconds_count', { kind: 'open' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'paraph_pdf_job_duration_seconds_sum', { kind: 'open' })).toBeGreaterThan(0);
    expect(sample(text, 'paraph_pdf_job_queue_wait_seconds_count', { kind: 'open' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'paraph_pdf_pool_busy')).toBe(0);
    expect(sample(text, 'paraph_pdf_pool_max_busy')).toBeGreaterThanOrEqual(2);

    expect(sample(text, 'paraph_outbox_deliveries_total', { kind: 'postback', outcome: 'delivered' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'paraph_postback_latency_seconds_count')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'paraph_outbox_pending', { kind: 'postback' })).toBe(0);
    expect(sample(text, 'paraph_outbox_oldest_pending_age_seconds', { kind: 'postback' })).toBe(0);

    expect(sample(text, 'paraph_connections_open')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'paraph_connections_refused_total')).toBe(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('/metrics on the service address needs its bearer token; the separate listener serves it too', async () => {
    expect((await scrape(`${service.url}/metrics`, null)).status).toBe(401);
    expect((await scrape(`${service.url}/metrics`, 'wrong-token')).status).toBe(401);
    const ok = await scrape(`${service.url}/metrics`);
    expect(ok.status).toBe(200);
    expect(ok.type).toContain('text/plain');
    const metricsUrl = service.server.metricsUrl;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await scrape(`${metricsUrl}/metrics`, null)).status).toBe(401);
    const separate = await scrape(`${metricsUrl}/metrics`);
    expect(separate.status).toBe(200);
    expect(sample(separate.text, 'paraph_transactions', { status: '30', name: 'Signed' })).toBe(3);
    expect((await fetch(`${metricsUrl}/health`)).status).toBe(404);
  });

  it('without a token or listener there is no /metrics; each service counts only its own requests', async () => {
    const plain = await startTestService();
    cleanups.push(() => plain.dispose());
    expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
    expect((await call(plain.url, 'POST', '/api/transaction', { json: { Seal: true } })).status).toBe(200);
    const own = await plain.server.service.metrics.expose();
    expect(sample(own.body, 'paraph_http_requests_total', { method: 'POST', route: '/api/transaction', status: '200' })).toBe(1);
    const other = (await scrape(`${service.url}/metrics`)).text;
    expect(sample(other, 'paraph_http_requests_total', { method: 'POST', route: '/api/transaction', status: '200' })).toBe(3);
  }, 60_000);

  it('a real Prometheus scrapes the service and answers queries over the counters and histograms', async () => {
    const binary = prometheusTool('prometheus');
    const dir = await mkdtemp(join(tmpdir(), 'paraph-prom-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const target = new URL(service.server.metricsUrl ?? '').host;
    await writeFile(
      join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'scrape_configs:',
        '  - job_name: paraph',
        '    authorization: { type: Bearer, credentials: ' + TOKEN + ' }',
        `    static_configs: [{ targets: ['${target}'] }]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const child: ChildProcess = spawn(
      binary,
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    cleanups.push(async () => {
      child.kill('SIGKILL');
    });
    const query = async (expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await response.json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
      return body.status === 'success' ? body.data.result : [];
    };
    const deadline = Date.now() + 60_000;
    let up: Awaited<ReturnType<typeof query>> = [];
    while (Date.now() < deadline && child.exitCode === null) {
      up = await query('up{job="paraph"} == 1').catch(() => []);
      if (up.length > 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(up.length, stderr).toBe(1);
    const signed = await query('paraph_transactions{name="Signed"}');
    expect(Number(signed[0]?.value[1])).toBe(3);
    const requests = await query('sum(paraph_http_requests_total{route="/api/transaction",method="POST"})');
    expect(Number(requests[0]?.value[1])).toBeGreaterThanOrEqual(3);
    const p99 = await query('histogram_quantile(0.99, sum by (le) (paraph_pdf_job_duration_seconds_bucket{kind="open"}))');
    expect(Number(p99[0]?.value[1])).toBeGreaterThan(0);
    const delivered = await query('paraph_outbox_deliveries_total{kind="postback",outcome="delivered"}');
    expect(Number(delivered[0]?.value[1])).toBeGreaterThanOrEqual(3);
  }, 90_000);
});
