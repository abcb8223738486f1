/**
 * Finished spans as plain data, the form in which they cross from the serving thread to the span-export thread
 * (span-export-thread.ts): ids, name, kind, times, attributes and status, nothing the SDK would have to rebuild or a
 * structured clone could not carry. Events and links are not kept: paraph's spans have none.
 */
import { SpanKind, SpanStatusCode, TraceFlags, type HrTime, type SpanContext, type SpanStatus } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import type { RemoteSpan, SpanAttributes } from '../service/observability/tracing.js';

/** A finished, sampled span. Ids are lowercase hex (W3C trace context). */
export interface SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  /** Absent for the root of a trace. */
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: SpanKind;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly attributes: SpanAttributes;
  readonly status: SpanStatus;
}

/** The record of a span this process made. */
export function spanRecordOf(span: ReadableSpan): SpanRecord {
  const context = span.spanContext();
  const parent = span.parentSpanContext?.spanId;
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    ...(parent === undefined ? {} : { parentSpanId: parent }),
    name: span.name,
    kind: span.kind,
    startTime: span.startTime,
    endTime: span.endTime,
    attributes: span.attributes as SpanAttributes,
    status: span.status,
  };
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** The record of a span a PDF process made (its times in epoch milliseconds); undefined when its ids are malformed. */
export function spanRecordOfRemote(span: RemoteSpan): SpanRecord | undefined {
  if (!TRACE_ID.test(span.traceId) || !SPAN_ID.test(span.spanId) || !SPAN_ID.test(span.parentSpanId)) return undefined;
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    kind: SpanKind.INTERNAL,
    startTime: hrTime(span.startMs),
    endTime: hrTime(Math.max(span.startMs, span.endMs)),
    attributes: { ...span.attributes },
    status: span.error === undefined ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: span.error },
  };
}

/** A record in the form the SDK's span processors and exporters take. */
export function readableSpanOf(record: SpanRecord, resource: ReadableSpan['resource'], scope: ReadableSpan['instrumentationScope']): ReadableSpan {
  const own: SpanContext = { traceId: record.traceId, spanId: record.spanId, traceFlags: TraceFlags.SAMPLED };
  return {
    name: record.name,
    kind: record.kind,
    spanContext: () => own,
    ...(record.parentSpanId === undefined ? {} : { parentSpanContext: { traceId: record.traceId, spanId: record.parentSpanId, traceFlags: TraceFlags.SAMPLED } }),
    startTime: record.startTime,
    endTime: record.endTime,
    duration: hrDuration(record.startTime, record.endTime),
    status: record.status,
    attributes: { ...record.attributes },
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** Epoch milliseconds (fractional) as OpenTelemetry's [seconds, nanoseconds]. */
export function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6))];
}

function hrDuration(start: HrTime, end: HrTime): HrTime {
  const nanos = (end[0] - start[0]) * 1e9 + (end[1] - start[1]);
  if (nanos <= 0) return [0, 0];
  return [Math.floor(nanos / 1e9), nanos % 1e9];
}
