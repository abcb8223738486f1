/**
 * The OpenTelemetry side of tracing (docs/operations.md#tracing), loaded by server.ts only when tracing-settings.ts
 * says tracing is on: a tracer provider exporting in batches (OTLP/HTTP protobuf, configured by the `OTEL_EXPORTER_OTLP_*`
 * variables, or the console), W3C trace context, a span per HTTP request (otel-request-spans.ts, continuing an
 * incoming `traceparent`), and the service's own spans (src/service/tracing.ts), including those the PDF processes
 * send back.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type HrTime, type SpanContext } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance } from 'fastify';
import { installTracer, type RemoteSpan, type ServiceTracer, type SpanAttributes } from '../service/tracing.js';
import { addRequestSpans } from './otel-request-spans.js';
import type { TraceExporterName } from './tracing-settings.js';

/** Tracing of a running server. */
export interface ServerTracing {
  /** Adds the request spans to a fastify app (its root, before its routes). */
  readonly requestSpans: (app: FastifyInstance) => void;
  /** The trace and span id of the active span, for log lines. */
  logFields(): { trace_id?: string; span_id?: string };
  /** Exports what is left and stops; the service's spans stop with it. */
  shutdown(): Promise<void>;
}

const SCOPE = { name: 'paraph' };

/** Starts the tracer provider with `exporters` and installs the service's tracer. */
export function startTracing(exporters: readonly TraceExporterName[]): ServerTracing {
  const resource = resourceFromAttributes({ 'service.name': 'paraph' }).merge(detectResources({ detectors: [envDetector] }));
  const processors: SpanProcessor[] = exporters.map((name) => new BatchSpanProcessor(name === 'otlp' ? new OTLPTraceExporter() : new ConsoleSpanExporter()));
  const provider = new NodeTracerProvider({ resource, spanProcessors: processors });
  // The global provider, AsyncLocalStorage context and W3C propagators, which the API uses.
  provider.register();
  const tracer = provider.getTracer(SCOPE.name);

  const serviceTracer: ServiceTracer = {
    inSpan: (name, attributes, work, parent) => {
      const parentContext = parent === undefined ? context.active() : propagation.extract(ROOT_CONTEXT, { traceparent: parent });
      return tracer.startActiveSpan(name, { attributes: { ...attributes } }, parentContext, async (span) => {
        try {
          return await work();
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    traceparent: () => {
      const span = trace.getActiveSpan();
      if (span === undefined) return undefined;
      const { traceId, spanId, traceFlags } = span.spanContext();
      if (!trace.isSpanContextValid(span.spanContext())) return undefined;
      return `00-${traceId}-${spanId}-${(traceFlags & TraceFlags.SAMPLED) === 0 ? '00' : '01'}`;
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
    logFields: () => {
      const span = trace.getActiveSpan();
      if (span === undefined) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
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
