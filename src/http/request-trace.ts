/**
 * The trace context of an HTTP request, handed to the use cases explicitly: with tracing on, otel-request-spans.ts
 * records the traceparent of each request's span on the request, and the routes give the use cases a
 * `ServiceContext` carrying it (so PDF jobs and store commits become children of the request span). Loads no
 * tracing library.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { withTrace, type ServiceContext } from '../service/context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** With tracing on, the W3C traceparent of the request's span (request-trace.ts). */
    paraphTraceparent: string | undefined;
  }
}

/**
 * Gives every request of `app` the traceparent field, tracing on or off. A field set in the request's constructor
 * keeps requests one shape; a WeakMap keyed by requests made every minor garbage collection walk its entries.
 */
export function addRequestTraceField(app: FastifyInstance): void {
  app.decorateRequest('paraphTraceparent', undefined);
}

/** Records the W3C traceparent of `request`'s span. */
export function setRequestTraceparent(request: FastifyRequest, traceparent: string): void {
  request.paraphTraceparent = traceparent;
}

/** The W3C traceparent of `request`'s span, when it has one. */
export function requestTraceparent(request: FastifyRequest): string | undefined {
  return request.paraphTraceparent;
}

/** `ctx` for the use cases `request` calls: carrying the request's trace context when it is traced. */
export function contextOf(ctx: ServiceContext, request: FastifyRequest): ServiceContext {
  return withTrace(ctx, request.paraphTraceparent);
}
