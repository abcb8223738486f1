/** The messages between the serving thread and the span-export thread (span-export-thread.ts, span-export-worker.ts). */
import type { SpanRecord } from './otel-span-records.js';
import type { TraceExporterName } from './tracing-settings.js';

/** What the span-export thread is started with. */
export interface SpanExportWorkerData {
  readonly exporters: readonly TraceExporterName[];
}

/** To the span-export thread: spans to export; or a request to export everything queued (and, for `shutdown`, stop). */
export type ToSpanExport =
  | { readonly type: 'spans'; readonly spans: readonly SpanRecord[] }
  | { readonly type: 'flush' | 'shutdown'; readonly id: number };

/** From the span-export thread: a batch taken into its queue; a flush or shutdown finished. */
export type FromSpanExport = { readonly type: 'taken'; readonly count: number } | { readonly type: 'done'; readonly id: number };
