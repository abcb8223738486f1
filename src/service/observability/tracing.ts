/**
 * Tracing as the service sees it: spans around its own steps (PDF jobs, store commits, outbox deliveries) and the W3C
 * `traceparent` it hands on, without knowing how spans are kept. Nothing is installed unless the server was started
 * with tracing configured (src/http/otel-tracing.ts installs the OpenTelemetry implementation); then every call here
 * is a plain pass-through, so this module loads nothing and costs nothing when tracing is off.
 *
 * No span is "active" in an async context: the trace context travels explicitly, as a W3C `traceparent`, in
 * `ServiceContext.trace` (set per request by the HTTP layer) and from a span to the work it wraps. Propagating a
 * context through every promise of every request (AsyncLocalStorage) cost a fifth of the GET throughput.
 */

/** Attribute values of a span. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/**
 * A finished span made outside this process (a PDF process, pdf-work-worker.ts), as plain data. Times are Unix epoch
 * milliseconds (fractional); ids are lowercase hex (W3C trace context).
 */
export interface RemoteSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: SpanAttributes;
  /** Set when the work failed: its error message. */
  readonly error?: string;
}

/** What the service asks of a tracer. */
export interface ServiceTracer {
  /**
   * Runs `work` in a new span, a child of `parent` (a W3C traceparent) when given, else the root of a new trace;
   * `work` gets the new span's traceparent, for what it starts or hands on. A thrown error marks the span failed and
   * propagates unchanged.
   */
  inSpan<T>(name: string, attributes: SpanAttributes, work: (traceparent: string | undefined) => Promise<T>, parent?: string): Promise<T>;
  /** Exports a span another process made as a child of one of ours. */
  recordRemoteSpan(span: RemoteSpan): void;
}

let installed: ServiceTracer | undefined;

/** Installs the process's tracer (undefined removes it). One per process, as OpenTelemetry's own registration is. */
export function installTracer(tracer: ServiceTracer | undefined): void {
  installed = tracer;
}

/** The process's tracer, when tracing is on. */
export function activeTracer(): ServiceTracer | undefined {
  return installed;
}

/**
 * `work` in a span, a child of `parent` (a W3C traceparent), when tracing is on; `work` gets the span's traceparent.
 * With tracing off just `work(undefined)`.
 */
export function traced<T>(name: string, attributes: SpanAttributes, work: (traceparent: string | undefined) => Promise<T>, parent?: string): Promise<T> {
  return installed === undefined ? work(undefined) : installed.inSpan(name, attributes, work, parent);
}
