/**
 * One server span per HTTP request (docs/operations.md#tracing), from one `onRequest` hook, ended from the response's
 * 'close' event, which comes after the response was sent and also when the connection closed before (the client went
 * away, or the request timed out); an `onError` hook keeps the error of a failed request for the span's status. The
 * span continues an incoming W3C `traceparent`; its own traceparent is recorded for the routes (request-trace.ts),
 * which hand it to the use cases, so that the service's spans (PDF jobs, store commits, the outbox rows they enqueue)
 * are its children. No async context is entered.
 *
 * The span is decided with OpenTelemetry's sampler and ids, but not made as an SDK span object: a request span is
 * only ids and a start time until the response is done, and then one plain record (otel-span-records.ts) that the
 * export thread turns into the SDK's span. An SDK span per request, with its processors and self-metrics, cost the
 * serving thread several times more. A request the sampler drops gets only its traceparent, handed on so its children
 * are dropped too. Registered by otel-tracing.ts only when tracing is on; with tracing off no hook exists.
 */
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type SpanContext, type SpanStatus } from '@opentelemetry/api';
import { SamplingDecision, type IdGenerator, type Sampler } from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SpanAttributes } from '../service/observability/tracing.js';
import { hrTime, type SpanRecord } from './otel-span-records.js';
import { setRequestTraceparent } from './request-trace.js';
import { redactSignToken } from './signer.routes.js';

/** Where request spans are decided and where the finished ones go. */
export interface RequestSpanSink {
  readonly sampler: Sampler;
  readonly ids: IdGenerator;
  record(span: SpanRecord): void;
}

/** Probes and scrapes come every few seconds and tell nothing a trace would. */
function untraced(url: string): boolean {
  return url.startsWith('/health') || url.startsWith('/metrics');
}

/** The W3C traceparent of a span (sampled or not: its children follow its decision), undefined when it is invalid. */
export function traceparentOf(span: SpanContext): string | undefined {
  if (!trace.isSpanContextValid(span)) return undefined;
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & TraceFlags.SAMPLED) === 0 ? '00' : '01'}`;
}

/** A sampled request's span until its response is done. */
interface OpenRequestSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  /** Wall-clock start, epoch ms; the duration comes from the monotonic clock, as OpenTelemetry's SDK takes them. */
  readonly startMs: number;
  readonly startedAt: number;
}

/** Adds the request-span hooks to `app` (its root, before the routes, so every route has them). */
export function addRequestSpans(app: FastifyInstance, sink: RequestSpanSink): void {
  /** The message of the error a sampled request failed with, for its span's status (few: only failed requests). */
  const errors = new WeakMap<FastifyRequest, string>();

  const end = (span: OpenRequestSpan, request: FastifyRequest, reply: FastifyReply): void => {
    const route = request.routeOptions.url;
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    const attributes: Record<string, string | number> = {
      'http.request.method': request.method,
      // The sign, show and receipt URLs carry the signer's token, a credential.
      'url.path': redactSignToken(path),
    };
    if (route !== undefined) attributes['http.route'] = route;
    let status: SpanStatus = { code: SpanStatusCode.UNSET };
    if (!reply.raw.writableEnded) {
      status = { code: SpanStatusCode.ERROR, message: 'the connection closed before the response was sent (client gone or request timed out)' };
    } else {
      const code = reply.raw.statusCode;
      attributes['http.response.status_code'] = code;
      if (code >= 500) status = { code: SpanStatusCode.ERROR, message: errors.get(request) ?? `HTTP ${code}` };
    }
    sink.record({
      traceId: span.traceId,
      spanId: span.spanId,
      ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
      // Named after its route: the configurable samplers (always, ratio, parent-based) do not look at names.
      name: route === undefined ? request.method : `${request.method} ${route}`,
      kind: SpanKind.SERVER,
      startTime: hrTime(span.startMs),
      endTime: hrTime(span.startMs + (performance.now() - span.startedAt)),
      attributes: attributes satisfies SpanAttributes,
      status,
    });
  };

  app.addHook('onRequest', (request, reply, done) => {
    if (untraced(request.url)) {
      done();
      return;
    }
    // Most requests carry no trace context: a new trace needs no extraction (and paraph reads no baggage).
    const parentContext = request.headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, request.headers);
    const caller = trace.getSpanContext(parentContext);
    const parent = caller !== undefined && trace.isSpanContextValid(caller) ? caller : undefined;
    const traceId = parent?.traceId ?? sink.ids.generateTraceId();
    const spanId = sink.ids.generateSpanId();
    const sampled = sink.sampler.shouldSample(parentContext, traceId, request.method, SpanKind.SERVER, {}, []).decision === SamplingDecision.RECORD_AND_SAMPLED;
    setRequestTraceparent(request, `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`);
    if (sampled) {
      const span: OpenRequestSpan = { traceId, spanId, parentSpanId: parent?.spanId, startMs: Date.now(), startedAt: performance.now() };
      // The request's log lines (fastify's "request completed" among them) carry its trace.
      const log = request.log.child({ trace_id: traceId, span_id: spanId });
      request.log = log;
      reply.log = log;
      reply.raw.once('close', () => end(span, request, reply));
    }
    done();
  });

  app.addHook('onError', (request, _reply, error, done) => {
    errors.set(request, error.message);
    done();
  });
}
