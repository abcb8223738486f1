/**
 * The OpenTelemetry side of tracing (docs/operations.md#tracing), loaded by server.ts only when tracing-settings.ts
 * says tracing is on: a tracer provider whose finished spans go to a thread of their own that exports them in
 * batches (span-export-thread.ts; OTLP/HTTP protobuf, configured by the `OTEL_EXPORTER_OTLP_*` variables, or the
 * console), W3C trace context, a span per HTTP request (otel-request-spans.ts, continuing an incoming `traceparent`),
 * and the service's own spans (src/service/observability/tracing.ts), including those the PDF processes send back.
 */
import { propagation, ROOT_CONTEXT, SpanStatusCode } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, NodeTracerProvider, ParentBasedSampler, RandomIdGenerator, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance } from 'fastify';
import { installTracer, type ServiceTracer } from '../service/observability/tracing.js';
import { addRequestSpans, traceparentOf } from './otel-request-spans.js';
import { spanRecordOfRemote } from './otel-span-records.js';
import { startSpanExportThread } from './span-export-thread.js';
import type { TraceExporterName, TraceSampling } from './tracing-settings.js';

/** Tracing of a running server. */
export interface ServerTracing {
  /** Adds the request spans to a fastify app (its root, before its routes). */
  readonly requestSpans: (app: FastifyInstance) => void;
  /** Exports what is left and stops; the service's spans stop with it. */
  shutdown(): Promise<void>;
}

/** Starts the tracer provider with `exporters` and installs the service's tracer. */
export function startTracing(exporters: readonly TraceExporterName[], sampling: TraceSampling): ServerTracing {
  const exportThread = startSpanExportThread(exporters);
  const sampler = samplerOf(sampling);
  const provider = new NodeTracerProvider({ sampler, spanProcessors: [exportThread] });
  // The global provider and W3C propagators. No context manager: the trace context is handed on explicitly
  // (src/service/observability/tracing.ts), as an AsyncLocalStorage context through every promise costs far more than a span.
  provider.register({ contextManager: null });
  const tracer = provider.getTracer('paraph');

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
      const record = spanRecordOfRemote(span);
      if (record !== undefined) exportThread.record(record);
    },
  };
  installTracer(serviceTracer);

  return {
    requestSpans: (app) => addRequestSpans(app, { sampler, ids: new RandomIdGenerator(), record: exportThread.record }),
    shutdown: async () => {
      installTracer(undefined);
      await provider.shutdown();
    },
  };
}

/** OpenTelemetry's sampler for `sampling`. */
function samplerOf(sampling: TraceSampling): Sampler {
  const root = sampling.ratio >= 1 ? new AlwaysOnSampler() : sampling.ratio <= 0 ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(sampling.ratio);
  return sampling.followCaller ? new ParentBasedSampler({ root }) : root;
}
