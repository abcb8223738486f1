/**
 * The serving thread's side of span export: a span processor that keeps each finished, sampled span as a plain record
 * (otel-span-records.ts) and sends them in batches to a thread of their own (span-export-worker.ts), which encodes and
 * exports them. Encoding 512 spans as protobuf takes milliseconds, which on the serving thread would stall every
 * request behind it. What the export thread has not taken yet is bounded ({@link MAX_UNTAKEN}): past it, spans are
 * dropped, as OpenTelemetry's batch processor drops past its queue, rather than held without limit.
 */
import { TraceFlags } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from '../worker-entry.js';
import { spanRecordOf, type SpanRecord } from './otel-span-records.js';
import type { FromSpanExport, SpanExportWorkerData, ToSpanExport } from './span-export-protocol.js';
import type { TraceExporterName } from './tracing-settings.js';

/** Spans sent together: few enough that a batch's copy is short, many enough that messages are few. */
const BATCH = 64;
/** How long a span waits for its batch to fill before it is sent anyway. */
const BATCH_WAIT_MS = 200;
/** Spans sent or waiting that the export thread has not taken into its own queue. */
const MAX_UNTAKEN = 4096;
/** How long a flush or shutdown waits for the export thread. */
const FINISH_TIMEOUT_MS = 10_000;

/** A span processor exporting through the span-export thread; `record` takes spans made outside this process. */
export interface OffThreadSpanProcessor extends SpanProcessor {
  record(span: SpanRecord): void;
}

/** Starts the span-export thread with `exporters` and returns the processor feeding it. */
export function startSpanExportThread(exporters: readonly TraceExporterName[]): OffThreadSpanProcessor {
  const workerData: SpanExportWorkerData = { exporters };
  const worker: Worker = startWorkerThread(import.meta.url, './span-export-worker.js', { workerData }, {
    nativeImports: ['@opentelemetry/exporter-trace-otlp-proto', '@opentelemetry/sdk-trace-node', '@opentelemetry/resources'],
  });
  // Span export must never keep the process alive or take it down: a failed thread only stops the export.
  worker.unref();
  let alive = true;
  worker.on('error', (error) => {
    alive = false;
    process.emitWarning(`Tracing: the span-export thread failed (${error.message}); spans are no longer exported, the service goes on.`);
  });
  worker.on('exit', () => {
    alive = false;
    for (const settle of waiting.values()) settle();
    waiting.clear();
  });

  let pending: SpanRecord[] = [];
  let untaken = 0;
  let timer: NodeJS.Timeout | undefined;
  let nextId = 0;
  const waiting = new Map<number, () => void>();

  worker.on('message', (message: FromSpanExport) => {
    if (message.type === 'taken') {
      untaken -= message.count;
      return;
    }
    waiting.get(message.id)?.();
    waiting.delete(message.id);
  });

  const post = (message: ToSpanExport): void => {
    if (alive) worker.postMessage(message);
  };
  const send = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    post({ type: 'spans', spans: pending });
    pending = [];
  };
  const record = (span: SpanRecord): void => {
    if (!alive || untaken >= MAX_UNTAKEN) return;
    untaken++;
    pending.push(span);
    if (pending.length >= BATCH) send();
    else timer ??= setTimeout(send, BATCH_WAIT_MS).unref();
  };
  const finish = (type: 'flush' | 'shutdown'): Promise<void> => {
    send();
    if (!alive) return Promise.resolve();
    const id = nextId++;
    return new Promise<void>((resolve) => {
      const timeout = setTimeout(() => settle(), FINISH_TIMEOUT_MS).unref();
      const settle = (): void => {
        clearTimeout(timeout);
        waiting.delete(id);
        resolve();
      };
      waiting.set(id, settle);
      post({ type, id });
    });
  };

  return {
    record,
    onStart: () => undefined,
    onEnd: (span: ReadableSpan) => {
      if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) record(spanRecordOf(span));
    },
    forceFlush: () => finish('flush'),
    shutdown: async () => {
      await finish('shutdown');
      alive = false;
      await worker.terminate();
    },
  };
}
