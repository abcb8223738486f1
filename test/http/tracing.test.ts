/**
 * Traces (docs/operations.md#tracing): `paraph serve` configured only by OTEL_* variables exports over OTLP/HTTP to a
 * receiver the test starts; a seal-only flow sent with a W3C `traceparent` yields one tree of spans under that trace:
 * the request spans, the PDF job and the span its PDF process made, the store commits, and the postback delivery,
 * whose HTTP request carries a `traceparent` of the same trace. Without OTEL_* configuration the server loads no
 * OpenTelemetry SDK and nothing carries a trace context.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { rm } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { activeTracer } from '../../src/service/observability/tracing.js';
import { ValidationError } from '../../src/errors.js';
import { tracingExporters, tracingSampler } from '../../src/http/tracing-settings.js';
import { call, makePdf, spawnServe, startTestService } from '../helpers/service-harness.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { TSX_LOADER } from '../helpers/tsx.js';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** A postback receiver that keeps the headers of each postback. */
async function postbackReceiver(): Promise<{ url: string; received: IncomingHttpHeaders[] }> {
  const received: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(request.headers);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/postback`, received };
}

/** A seal-only transaction created, given a document and started, every request sent with `traceparent`. */
async function sealOnlyFlow(base: string, postbackUrl: string): Promise<void> {
  const headers = { traceparent: TRACEPARENT };
  const created = await call(base, 'POST', '/api/transaction', { json: { Seal: true, PostbackUrl: postbackUrl }, headers });
  expect(created.status, created.text).toBe(200);
  const id = created.json.Id as string;
  const pdf = await makePdf([['Traced document']]);
  const uploaded = await call(base, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { body: pdf, headers: { ...headers, 'content-type': 'application/pdf' } });
  expect(uploaded.status, uploaded.text).toBe(201);
  expect((await call(base, 'PUT', `/api/transaction/${id}/start`, { headers })).status).toBe(204);
}

async function until(what: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

describe('tracing with OTEL_* configured (paraph serve)', () => {
  let receiver: OtlpReceiver;
  let postbacks: Awaited<ReturnType<typeof postbackReceiver>>;
  let output = '';

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    postbacks = await postbackReceiver();
    const serve = await spawnServe({
      env: {
        PARAPH_POSTBACK_SECRET: 'tracing-test-postback-secret-0123456789',
        PARAPH_POSTBACK_ALLOW_HTTP: 'true',
        PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.0/8',
        PARAPH_LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'paraph-tracing-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
    cleanups.push(() => serve.dispose());
    await sealOnlyFlow(serve.url, postbacks.url);
    expect((await fetch(`${serve.url}/health/live`, { headers: { traceparent: TRACEPARENT } })).status).toBe(200);
    await until(() => postbacks.received.length > 0);
    // SIGTERM: the server shuts down and exports what is left.
    expect(await serve.stop()).toBe(0);
    output = serve.output();
  }, 120_000);

  /** The spans of the caller's trace. */
  const traced = (): ReceivedSpan[] => receiver.spans.filter((s) => s.traceId === TRACE_ID);

  it('exports one tree under the incoming trace: requests, the PDF job and its process span, store commits', () => {
    const spans = traced();
    expect(spans.length, output).toBeGreaterThan(0);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    // Every span reaches the caller's span through parents that were exported.
    for (const span of spans) {
      let at: ReceivedSpan | undefined = span;
      const seen = new Set<string>();
      while (at !== undefined && at.parentSpanId !== CALLER_SPAN) {
        expect(seen.has(at.spanId)).toBe(false);
        seen.add(at.spanId);
        at = byId.get(at.parentSpanId);
      }
      expect(at, `${span.name} is not under the caller's span`).toBeDefined();
    }
    const names = spans.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['POST /api/transaction', 'PUT /api/transaction/:transactionId/file/:fileId', 'PUT /api/transaction/:transactionId/start', 'store.commit']));
    for (const span of spans) expect(span.serviceName).toBe('paraph-tracing-test');
    // Probes are not traced.
    expect(names.filter((name) => name.includes('/health'))).toEqual([]);

    // Request spans: server kind, with method, route, path and status (semantic conventions' names).
    const start = spans.find((s) => s.name === 'PUT /api/transaction/:transactionId/start')!;
    expect(start.kind).toBe(2);
    expect(start.attributes).toMatchObject({ 'http.request.method': 'PUT', 'http.route': '/api/transaction/:transactionId/start', 'http.response.status_code': 204 });
    expect(start.attributes['url.path']).toMatch(/^\/api\/transaction\/[^/?]+\/start$/);

    // The upload's PDF jobs run after its body was read, still inside its span.
    const upload = spans.find((s) => s.name === 'PUT /api/transaction/:transactionId/file/:fileId')!;
    expect(spans.filter((s) => s.parentSpanId === upload.spanId && s.name.startsWith('pdf.job ')).length, names.join(', ')).toBeGreaterThan(0);

    // The PDF process's span is the child of the serving process's job span, which is inside a request span.
    const work = spans.find((s) => s.name.startsWith('pdf.work '));
    expect(work, names.join(', ')).toBeDefined();
    const job = byId.get(work!.parentSpanId);
    expect(job?.name).toBe(work!.name.replace('pdf.work', 'pdf.job'));
    expect(work!.attributes['process.pid']).not.toBe(undefined);
    const requestPids = new Set(spans.filter((s) => s.name.startsWith('PUT ') || s.name.startsWith('POST ')).map((s) => s.attributes['process.pid']));
    expect(requestPids.has(work!.attributes['process.pid']!)).toBe(false);
  });

  it('the postback delivery continues the trace under the commit that enqueued it; its request carries a traceparent of it', () => {
    const delivery = traced().find((s) => s.name === 'outbox.deliver postback');
    expect(delivery, traced().map((s) => s.name).join(', ')).toBeDefined();
    const commit = traced().find((s) => s.spanId === delivery!.parentSpanId);
    expect(commit?.name).toBe('store.commit');
    expect(traced().find((s) => s.spanId === commit!.parentSpanId)?.name).toBe('PUT /api/transaction/:transactionId/start');
    expect(delivery!.statusCode).not.toBe(2);
    const sent = postbacks.received.map((h) => h.traceparent);
    expect(sent).toContain(`00-${TRACE_ID}-${delivery!.spanId}-01`);
  });

  it('log lines of a traced request carry its trace id', () => {
    const lines = output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { trace_id?: string; msg?: string });
    // Fastify writes "incoming request" before any hook; the lines after it, up to "request completed", carry it.
    const completed = lines.filter((line) => line.msg === 'request completed' && line.trace_id === TRACE_ID);
    expect(completed.length, output).toBe(3);
  });
});

describe('tracing without OTEL_* configuration', () => {
  it('loads no OpenTelemetry SDK: a fresh process serving a request resolves none of its packages', () => {
    const script = `
      import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
      import { register } from 'node:module';
      import { join } from 'node:path';
      import { tmpdir } from 'node:os';
      const log = join(tmpdir(), 'paraph-resolved-' + process.pid + '.log');
      writeFileSync(log, '');
      register('data:text/javascript,' + encodeURIComponent(\`
        import { appendFileSync } from 'node:fs';
        let log;
        export function initialize(data) { log = data.log; }
        export async function resolve(specifier, context, next) {
          const resolved = await next(specifier, context);
          appendFileSync(log, resolved.url + '\\\\n');
          return resolved;
        }\`), { data: { log } });
      const { startServer } = await import(${JSON.stringify(pathToFileURL(fileURLToPath(new URL('../../src/server.ts', import.meta.url))).href)});
      const { loadConfig } = await import(${JSON.stringify(pathToFileURL(fileURLToPath(new URL('../../src/config.ts', import.meta.url))).href)});
      const dataDir = process.argv[1];
      const server = await startServer(loadConfig({ env: { HOST: '127.0.0.1', PORT: '0', PARAPH_DATA_DIR: dataDir } }), { logger: false, worker: false });
      const health = await fetch(server.url + '/health', { headers: { traceparent: '${TRACEPARENT}' } });
      await server.close();
      const { createRequire } = await import('node:module');
      const files = [...readFileSync(log, 'utf8').split('\\n'), ...Object.keys(createRequire(import.meta.url).cache)];
      console.log(JSON.stringify({ health: health.status, otel: [...new Set(files.filter((f) => /node_modules\\/@(opentelemetry|fastify\\/otel)/.test(f)).map((f) => f.replace(/.*node_modules\\//, '').split('/').slice(0, 2).join('/')))] }));
    `;
    const dataDir = spawnSync('mktemp', ['-d'], { encoding: 'utf8' }).stdout.trim();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
    const run = spawnSync(process.execPath, ['--import', TSX_LOADER, '--input-type=module', '-e', script, dataDir], { encoding: 'utf8', env });
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { health?: number; otel?: string[] };
    expect(result.health, run.stderr).toBe(200);
    // prom-client (the metrics) may bring the API package; no SDK, exporter or instrumentation.
    expect(result.otel?.filter((name) => name !== '@opentelemetry/api')).toEqual([]);
  }, 60_000);

  it('exports nothing and sends no traceparent with OTEL_TRACES_EXPORTER=none, even with an endpoint set', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    vi.stubEnv('OTEL_TRACES_EXPORTER', 'none');
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
    cleanups.push(async () => vi.unstubAllEnvs());
    const postbacks = await postbackReceiver();
    const service = await startTestService({ worker: true });
    cleanups.push(() => service.dispose());
    expect(activeTracer()).toBeUndefined();
    await sealOnlyFlow(service.url, postbacks.url);
    await until(() => postbacks.received.length > 0);
    expect(postbacks.received.length).toBeGreaterThan(0);
    expect(postbacks.received.map((h) => h.traceparent)).toEqual(postbacks.received.map(() => undefined));
    expect(receiver.requests()).toBe(0);
  }, 60_000);
});

describe('which OTEL_* settings turn tracing on', () => {
  it('is off without an exporter or endpoint, and when disabled or set to none', () => {
    expect(tracingExporters({})).toBeUndefined();
    expect(tracingExporters({ OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
    expect(tracingExporters({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingExporters({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });

  it('is on with an OTLP endpoint or a named exporter', () => {
    expect(tracingExporters({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual(['otlp']);
    expect(tracingExporters({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toEqual(['otlp']);
    expect(tracingExporters({ OTEL_TRACES_EXPORTER: 'otlp, console' })).toEqual(['otlp', 'console']);
    expect(tracingExporters({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toEqual(['otlp']);
  });

  it('refuses exporters and protocols it cannot start, saying what to set', () => {
    expect(() => tracingExporters({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(ValidationError);
    expect(() => tracingExporters({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
    expect(() => tracingExporters({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/http\/protobuf/);
    expect(() => tracingExporters({ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel-collector:4318' })).toThrow(/http:\/\/ or https:\/\/ URL/);
    expect(() => tracingExporters({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
    expect(tracingExporters({ OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toEqual(['console']);
  });
});

describe('how OTEL_TRACES_SAMPLER samples', () => {
  it('samples every trace and follows a caller by default; takes the standard samplers and a ratio', () => {
    expect(tracingSampler({})).toEqual({ followCaller: true, ratio: 1 });
    expect(tracingSampler({ OTEL_TRACES_SAMPLER: 'always_off' })).toEqual({ followCaller: false, ratio: 0 });
    expect(tracingSampler({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toEqual({ followCaller: true, ratio: 0 });
    expect(tracingSampler({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toEqual({ followCaller: false, ratio: 0.25 });
    expect(tracingSampler({ OTEL_TRACES_SAMPLER: 'ParentBased_TraceIdRatio', OTEL_TRACES_SAMPLER_ARG: ' 0.1 ' })).toEqual({ followCaller: true, ratio: 0.1 });
    expect(tracingSampler({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' })).toEqual({ followCaller: true, ratio: 1 });
  });

  it('refuses a sampler it does not know and a ratio outside 0..1, saying what to set', () => {
    expect(() => tracingSampler({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
    expect(() => tracingSampler({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(/parentbased_traceidratio/);
    expect(() => tracingSampler({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '10%' })).toThrow(/number from 0 to 1/);
    expect(() => tracingSampler({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(ValidationError);
  });
});
