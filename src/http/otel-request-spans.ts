/**
 * One server span per HTTP request (docs/operations.md#tracing), made with the OpenTelemetry API from one `onRequest`
 * hook and ended from the response's 'close' event, which comes after the response was sent and also when the
 * connection closed before (the client went away, or the request timed out); an `onError` hook keeps the error of a
 * failed request for the span's status. The span continues an incoming W3C `traceparent`; its own traceparent is
 * recorded for the routes (request-trace.ts), which hand it to the use cases, so that the service's spans (PDF jobs,
 * store commits, the outbox rows they enqueue) are its children. No async context is entered. A request the sampler
 * drops gets a non-recording span and nothing else: no attributes, no listener, only its traceparent handed on so its
 * children are dropped too. Registered by otel-tracing.ts only when tracing is on; with tracing off no hook exists.
 */
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { setRequestTraceparent } from './request-trace.js';
import { redactSignToken } from './signer.routes.js';

/** Probes and scrapes come every few seconds and tell nothing a trace would. */
function untraced(url: string): boolean {
  return url.startsWith('/health') || url.startsWith('/metrics');
}

/** The W3C traceparent of a span (sampled or not: its children follow its decision), undefined when it is invalid. */
export function traceparentOf(span: SpanContext): string | undefined {
  if (!trace.isSpanContextValid(span)) return undefined;
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & TraceFlags.SAMPLED) === 0 ? '00' : '01'}`;
}

/** Adds the request-span hooks to `app` (its root, before the routes, so every route has them). */
export function addRequestSpans(app: FastifyInstance, tracer: Tracer): void {
  /** The message of the error a recorded request failed with, for its span's status (few: only failed requests). */
  const errors = new WeakMap<FastifyRequest, string>();

  const end = (span: Span, request: FastifyRequest, reply: FastifyReply): void => {
    if (!reply.raw.writableEnded) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the response was sent (client gone or request timed out)' });
    } else {
      const status = reply.raw.statusCode;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: errors.get(request) ?? `HTTP ${status}` });
    }
    span.end();
  };

  app.addHook('onRequest', (request, reply, done) => {
    if (untraced(request.url)) {
      done();
      return;
    }
    // Most requests carry no trace context: a new trace needs no extraction (and paraph reads no baggage).
    const parent = request.headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(request.method, { kind: SpanKind.SERVER }, parent);
    const spanContext = span.spanContext();
    const traceparent = traceparentOf(spanContext);
    if (traceparent !== undefined) setRequestTraceparent(request, traceparent);
    if (span.isRecording()) {
      // Named after its route only when recorded: fastify builds `routeOptions` anew on every read, and the
      // configurable samplers (always, ratio, parent-based) do not look at names.
      const route = request.routeOptions.url;
      if (route !== undefined) span.updateName(`${request.method} ${route}`);
      const query = request.url.indexOf('?');
      const path = query === -1 ? request.url : request.url.slice(0, query);
      span.setAttributes({
        'http.request.method': request.method,
        // The sign, show and receipt URLs carry the signer's token, a credential.
        'url.path': redactSignToken(path),
        ...(route === undefined ? {} : { 'http.route': route }),
      });
      // The request's log lines (fastify's "request completed" among them) carry its trace.
      const log = request.log.child({ trace_id: spanContext.traceId, span_id: spanContext.spanId });
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
