/**
 * The OpenTelemetry side of tracing (docs/operations.md#tracing), loaded by server.ts only when tracing-settings.ts
 * says tracing is on: a tracer provider exporting in batches (OTLP/HTTP protobuf, configured by the `OTEL_EXPORTER_OTLP_*`
 * variables, or the console), W3C trace context, a span per HTTP request (otel-request-spans.ts, continuing an
 * incoming `traceparent`), and the service's own spans (src/service/observability/tracing.ts), including those the PDF processes
 * send back.
 */
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, type HrTime, type SpanContext } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance } from 'fastify';
import { installTracer, type RemoteSpan, type ServiceTracer, type SpanAttributes } from '../service/observability/tracing.js';
import { addRequestSpans, traceparentOf } from './otel-request-spans.js';
import type { TraceExporterName } from './tracing-settings.js';

/** Tracing of a running server. */
export interface ServerTracing {
  /** Adds the request spans to a fastify app (its root, before its routes). */
  readonly requestSpans: (app: FastifyInstance) => void;
  /** Exports what is left and stops; the service's spans stop with it. */
  shutdown(): Promise<void>;
}

const SCOPE = { name: 'paraph' };

/** Starts the tracer provider with `exporters` and installs the service's tracer. */
export function startTracing(exporters: readonly TraceExporterName[]): ServerTracing {
  const resource = resourceFromAttributes({ 'service.name': 'paraph' }).merge(detectResources({ detectors: [envDetector] }));
  const processors: SpanProcessor[] = exporters.map((name) => new BatchSpanProcessor(name === 'otlp' ? new OTLPTraceExporter() : new ConsoleSpanExporter()));
  const provider = new NodeTracerProvider({ resource, spanProcessors: processors });
  // The global provider and W3C propagators. No context manager: the trace context is handed on explicitly
  // (src/service/observability/tracing.ts), as an AsyncLocalStorage context through every promise costs far more than a span.
  provider.register({ contextManager: null });
  const tracer = provider.getTracer(SCOPE.name);

  const serviceTracer: ServiceTracer = {
    inSpan: async (name, attributes, work, parent) => {
      const parentContext = parent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, { traceparent: parent });
      const span = tracer.startSpan(name, { attributes: { ...attributes } }, parentContext);
      try {
        return await work(traceparentOf(span.spanContext()));
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        throw error;
      } finally {
        span.end();
      }
    },
    recordRemoteSpan: (span) => {
      const readable = remoteReadableSpan(span, resource);
      if (readable === undefined) return;
      for (const processor of processors) processor.onEnd(readable);
    },
  };
  installTracer(serviceTracer);

  return {
    requestSpans: (app) => addRequestSpans(app, tracer),
    shutdown: async () => {
      installTracer(undefined);
      await provider.shutdown();
    },
  };
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** A span a PDF process made, in the form the exporters take; undefined when its ids are malformed. */
function remoteReadableSpan(span: RemoteSpan, resource: ReadableSpan['resource']): ReadableSpan | undefined {
  if (!TRACE_ID.test(span.traceId) || !SPAN_ID.test(span.spanId) || !SPAN_ID.test(span.parentSpanId)) return undefined;
  const own: SpanContext = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED };
  const attributes: Record<string, SpanAttributes[string]> = { ...span.attributes };
  return {
    name: span.name,
    kind: SpanKind.INTERNAL,
    spanContext: () => own,
    parentSpanContext: { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED },
    startTime: hrTime(span.startMs),
    endTime: hrTime(span.endMs),
    duration: hrTime(Math.max(0, span.endMs - span.startMs)),
    status: span.error === undefined ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: span.error },
    attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6))];
}
