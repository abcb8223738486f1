/**
 * The trace context of an HTTP request, handed to the use cases explicitly: with tracing on, otel-request-spans.ts
 * records the traceparent of each request's span here, and the routes give the use cases a `ServiceContext` carrying
 * it (so PDF jobs and store commits become children of the request span). Loads no tracing library.
 */
import type { FastifyRequest } from 'fastify';
import { withTrace, type ServiceContext } from '../service/context.js';

const traceparents = new WeakMap<FastifyRequest, string>();

/** Records the W3C traceparent of `request`'s span. */
export function setRequestTraceparent(request: FastifyRequest, traceparent: string): void {
  traceparents.set(request, traceparent);
}

/** The W3C traceparent of `request`'s span, when it has one. */
export function requestTraceparent(request: FastifyRequest): string | undefined {
  return traceparents.get(request);
}

/** `ctx` for the use cases `request` calls: carrying the request's trace context when it is traced. */
export function contextOf(ctx: ServiceContext, request: FastifyRequest): ServiceContext {
  return withTrace(ctx, traceparents.get(request));
}
