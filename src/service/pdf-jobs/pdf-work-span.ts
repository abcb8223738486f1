/**
 * The span of one job in a PDF process (pdf-work-worker.ts), made there as plain data and sent back with the reply;
 * the serving process exports it (src/service/observability/tracing.ts). The PDF process loads no tracing library and opens no
 * connection: it reads hostile documents, may be killed at any moment past a limit, and gets none of the service's
 * settings.
 */
import { randomBytes } from 'node:crypto';
import type { RemoteSpan, SpanAttributes } from '../observability/tracing.js';

/** A started span of the PDF process; `end` returns it finished. */
export interface PdfProcessSpan {
  end(error?: unknown): RemoteSpan;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * Starts a span as a child of `traceparent`; undefined when there is none, it is malformed, or its trace is not
 * sampled.
 */
export function startPdfProcessSpan(traceparent: string | undefined, name: string, attributes: SpanAttributes): PdfProcessSpan | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (match === null || (Number.parseInt(match[3]!, 16) & 1) === 0) return undefined;
  const [, traceId, parentSpanId] = match as unknown as [string, string, string];
  const spanId = randomBytes(8).toString('hex');
  const startMs = epochMs();
  return {
    end: (error) => ({
      traceId,
      spanId,
      parentSpanId,
      name,
      startMs,
      endMs: epochMs(),
      attributes,
      ...(error !== undefined ? { error: error instanceof Error ? error.message : String(error) } : {}),
    }),
  };
}

function epochMs(): number {
  return performance.timeOrigin + performance.now();
}
