/**
 * One server span per HTTP request (docs/operations.md#tracing), made with the OpenTelemetry API by four fastify hooks
 * and nothing else: no patched `addHook`, no span per hook or handler. The span continues an incoming W3C
 * `traceparent`, is the active context while the route runs (so the service's spans — PDF jobs, store commits, the
 * outbox rows they enqueue — are its children) and ends when the response is sent, timed out or aborted.
 * Registered by otel-tracing.ts only when tracing is on; with tracing off no hook exists.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { redactSignToken } from './signer.routes.js';

interface RequestSpan {
  readonly span: Span;
  readonly context: Context;
  /** The message of an error the request failed with, for the span's status. */
  error?: string;
}

/** Probes and scrapes come every few seconds and tell nothing a trace would. */
function untraced(url: string): boolean {
  return url.startsWith('/health') || url.startsWith('/metrics');
}

/** Adds the request-span hooks to `app` (its root, before the routes, so every route has them). */
export function addRequestSpans(app: FastifyInstance, tracer: Tracer): void {
  const spans = new WeakMap<FastifyRequest, RequestSpan>();

  const end = (request: FastifyRequest, statusCode: number | undefined, failure?: string): void => {
    const entry = spans.get(request);
    if (entry === undefined) return;
    spans.delete(request);
    const { span } = entry;
    if (statusCode !== undefined) span.setAttribute('http.response.status_code', statusCode);
    const error = failure ?? (statusCode !== undefined && statusCode >= 500 ? (entry.error ?? `HTTP ${statusCode}`) : undefined);
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    span.end();
  };

  app.addHook('onRequest', (request, _reply, done) => {
    if (untraced(request.url)) {
      done();
      return;
    }
    const route = request.routeOptions.url;
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          // The sign, show and receipt URLs carry the signer's token, a credential.
          'url.path': redactSignToken(path),
          ...(route === undefined ? {} : { 'http.route': route }),
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    spans.set(request, { span, context: active });
    // What the remaining hooks start synchronously (and the promises they make) runs in the span.
    context.with(active, done);
  });

  // Between onRequest and the handler the body is read from stream events; the span is entered again before the
  // route's own hooks and handler so it stays active whatever context those events carry.
  app.addHook('preHandler', (request, _reply, done) => {
    const entry = spans.get(request);
    if (entry === undefined) done();
    else context.with(entry.context, done);
  });

  app.addHook('onError', (request, _reply, error, done) => {
    const entry = spans.get(request);
    if (entry !== undefined) entry.error = error.message;
    done();
  });

  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });

  app.addHook('onTimeout', (request, _reply, done) => {
    end(request, undefined, 'the request timed out');
    done();
  });

  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined, 'the client closed the connection before the response');
    done();
  });
}
