/**
 * The request spans (src/http/otel-request-spans.ts) on a fastify app, kept in memory: one server span per request
 * with method, route, path (sign tokens hidden), status code; an incoming `traceparent` continued; the request's
 * traceparent handed to the handler (for the use cases' spans), also after a request body was read; 5xx marked failed,
 * 4xx not; a request whose client goes away ends its span failed; probes and scrapes untraced; a request the sampler
 * drops exports nothing and hands on an unsampled traceparent.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, TraceIdRatioBasedSampler, InMemorySpanExporter, NodeTracerProvider, ParentBasedSampler, RandomIdGenerator, SimpleSpanProcessor, type ReadableSpan, type Sampler } from '@opentelemetry/sdk-trace-node';
import { request } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addRequestSpans, type RequestSpanSink } from '../../src/http/otel-request-spans.js';
import { readableSpanOf } from '../../src/http/otel-span-records.js';
import { requestTraceparent } from '../../src/http/request-trace.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** Request spans decided by `sampler`, finished into `exporter` as the export thread would hand them on. */
function sinkInto(exporter: InMemorySpanExporter, sampler: Sampler): RequestSpanSink {
  const resource = resourceFromAttributes({ 'service.name': 'test' });
  return { sampler, ids: new RandomIdGenerator(), record: (span) => exporter.export([readableSpanOf(span, resource, { name: 'test' })], () => undefined) };
}
const CALLER_SPAN = '00f067aa0ba902b7';

describe('request spans', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('test');
  let app: FastifyInstance;
  /** The traceparent each handler call was handed, by the `seen` header the test sends. */
  const seenInHandler = new Map<string, string | undefined>();
  const child = async (traceparent: string | undefined): Promise<void> => {
    // A span the service would make for the request (a PDF job, a commit), from the traceparent it is handed.
    const span = tracer.startSpan('child', {}, propagation.extract(ROOT_CONTEXT, traceparent === undefined ? {} : { traceparent }));
    await new Promise((resolve) => setImmediate(resolve));
    span.end();
  };
  let releaseSlow: () => void = () => undefined;
  const slowStarted: Array<() => void> = [];

  beforeAll(async () => {
    provider.register({ contextManager: null });
    app = Fastify();
    addRequestSpans(app, sinkInto(exporter, new ParentBasedSampler({ root: new AlwaysOnSampler() })));
    app.get('/api/transaction/:transactionId', async (request) => {
      seenInHandler.set(String(request.headers.seen), requestTraceparent(request));
      await child(requestTraceparent(request));
      return { ok: true };
    });
    app.post('/api/transaction', async (request) => {
      seenInHandler.set(String(request.headers.seen), requestTraceparent(request));
      await child(requestTraceparent(request));
      return request.body;
    });
    app.get('/slow', async () => {
      await new Promise<void>((resolve) => {
        releaseSlow = resolve;
        slowStarted.shift()?.();
      });
      return { late: true };
    });
    app.get('/api/signer/:token', async () => ({ ok: true }));
    app.get('/boom', async () => {
      throw new Error('the store is gone');
    });
    app.get('/health/live', async () => ({ ok: true }));
    app.get('/metrics', async () => 'metrics');
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  const server = (): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);

  it('makes one server span per request with method, route, path and status, continuing the caller’s traceparent', async () => {
    const before = Date.now();
    const response = await app.inject({ method: 'GET', url: '/api/transaction/abc?x=1', headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, seen: 'get' } });
    const after = Date.now();
    expect(response.statusCode).toBe(200);
    const [span] = server();
    // Wall-clock times (epoch), the end after the start.
    const ms = ([seconds, nanos]: readonly [number, number]): number => seconds * 1000 + nanos / 1e6;
    expect(ms(span!.startTime)).toBeGreaterThanOrEqual(before);
    expect(ms(span!.endTime)).toBeGreaterThanOrEqual(ms(span!.startTime));
    expect(ms(span!.endTime)).toBeLessThanOrEqual(after + 1);
    expect(server()).toHaveLength(1);
    expect(span!.name).toBe('GET /api/transaction/:transactionId');
    expect(span!.spanContext().traceId).toBe(TRACE_ID);
    expect(span!.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(span!.attributes).toEqual({
      'http.request.method': 'GET',
      'http.route': '/api/transaction/:transactionId',
      'url.path': '/api/transaction/abc',
      'http.response.status_code': 200,
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(seenInHandler.get('get')).toBe(`00-${TRACE_ID}-${span!.spanContext().spanId}-01`);
    const childSpan = exporter.getFinishedSpans().find((s) => s.name === 'child');
    expect(childSpan?.parentSpanContext?.spanId).toBe(span!.spanContext().spanId);
  });

  it('hands the handler the request’s traceparent after reading a request body that arrives in parts over a socket', async () => {
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const body = await new Promise<string>((resolve, reject) => {
      const sent = request(`${address}/api/transaction`, { method: 'POST', headers: { 'content-type': 'application/json', seen: 'post' } }, (response) => {
        let text = '';
        response.on('data', (d: Buffer) => (text += d.toString()));
        response.on('end', () => resolve(text));
      });
      sent.on('error', reject);
      sent.write('{"Seal":');
      setTimeout(() => sent.end('true}'), 50);
    });
    expect(JSON.parse(body)).toEqual({ Seal: true });
    const [span] = server();
    expect(span!.name).toBe('POST /api/transaction');
    expect(span!.parentSpanContext).toBeUndefined();
    expect(seenInHandler.get('post')).toBe(`00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01`);
    const childSpan = exporter.getFinishedSpans().find((s) => s.name === 'child');
    expect(childSpan?.spanContext().traceId).toBe(span!.spanContext().traceId);
    expect(childSpan?.parentSpanContext?.spanId).toBe(span!.spanContext().spanId);
  });

  it('hides a signer token in url.path', async () => {
    await app.inject({ method: 'GET', url: '/api/signer/secret-token-value' });
    expect(server()[0]!.attributes['url.path']).toBe('/api/signer/[token]');
  });

  it('marks a 5xx answer failed with the error, a 4xx not; an unknown route has the method as name', async () => {
    expect((await app.inject({ method: 'GET', url: '/boom' })).statusCode).toBe(500);
    expect((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
    const [boom, nowhere] = server();
    expect(boom!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the store is gone' });
    expect(boom!.attributes['http.response.status_code']).toBe(500);
    expect(nowhere!.name).toBe('GET');
    expect(nowhere!.attributes['http.route']).toBeUndefined();
    expect(nowhere!.attributes['http.response.status_code']).toBe(404);
    expect(nowhere!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('ends the span failed when the client goes away before the response', async () => {
    const { port } = app.server.address() as { port: number };
    const address = `http://127.0.0.1:${port}`;
    const started = new Promise<void>((resolve) => slowStarted.push(resolve));
    const sent = request(`${address}/slow`);
    sent.on('error', () => undefined);
    sent.end();
    await started;
    sent.destroy();
    while (server().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    releaseSlow();
    const [span] = server();
    expect(span!.name).toBe('GET /slow');
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.status.message).toMatch(/connection closed before the response/);
    expect(span!.attributes['http.response.status_code']).toBeUndefined();
  });

  it('does not trace probes and scrapes', async () => {
    expect((await app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('request spans the sampler drops', () => {
  it('exports nothing, and hands on the caller’s trace unsampled so the request’s children are dropped too', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.register({ contextManager: null });
    const app = Fastify();
    addRequestSpans(app, sinkInto(exporter, new ParentBasedSampler({ root: new AlwaysOffSampler() })));
    let seen: string | undefined;
    app.get('/api/transaction/:transactionId', async (request) => {
      seen = requestTraceparent(request);
      return { ok: true };
    });
    try {
      const response = await app.inject({ method: 'GET', url: '/api/transaction/abc', headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-00` } });
      expect(response.statusCode).toBe(200);
      expect(seen).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`));
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      await app.close();
      await provider.shutdown();
      trace.disable();
      context.disable();
    }
  });
});

describe('request spans sampled by ratio', () => {
  it('exports exactly the requests whose traceparent it marked sampled, and only some of them', async () => {
    const exporter = new InMemorySpanExporter();
    const app = Fastify();
    addRequestSpans(app, sinkInto(exporter, new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.5) })));
    const handed: string[] = [];
    app.get('/api/transaction/:transactionId', async (request) => {
      handed.push(requestTraceparent(request) ?? '');
      return { ok: true };
    });
    try {
      for (let i = 0; i < 200; i++) expect((await app.inject({ method: 'GET', url: `/api/transaction/t${i}` })).statusCode).toBe(200);
      const sampled = handed.filter((traceparent) => traceparent.endsWith('-01'));
      expect(handed.every((traceparent) => /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/.test(traceparent))).toBe(true);
      expect(sampled.length).toBeGreaterThan(0);
      expect(sampled.length).toBeLessThan(200);
      const exported = exporter.getFinishedSpans().map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
      expect(exported.sort()).toEqual([...sampled].sort());
    } finally {
      await app.close();
    }
  });
});
