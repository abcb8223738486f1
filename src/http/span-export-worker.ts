/**
 * The span-export thread (span-export-thread.ts starts it): turns the span records the serving thread sends into the
 * SDK's spans and exports them in batches (OTLP/HTTP protobuf, configured by the `OTEL_EXPORTER_OTLP_*` variables, or
 * the console), so that encoding and sending spans never runs on the thread that serves requests.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { parentPort, workerData } from 'node:worker_threads';
import { readableSpanOf } from './otel-span-records.js';
import type { FromSpanExport, SpanExportWorkerData, ToSpanExport } from './span-export-protocol.js';

const port = parentPort;
if (port === null) throw new Error('span-export-worker.ts runs in a worker thread (span-export-thread.ts starts it).');
const { exporters } = workerData as SpanExportWorkerData;

const resource = resourceFromAttributes({ 'service.name': 'paraph' }).merge(detectResources({ detectors: [envDetector] }));
const scope = { name: 'paraph' };
const processors: SpanProcessor[] = exporters.map((name) => new BatchSpanProcessor(name === 'otlp' ? new OTLPTraceExporter() : new ConsoleSpanExporter()));

const reply = (message: FromSpanExport): void => port.postMessage(message);

port.on('message', (message: ToSpanExport) => {
  if (message.type === 'spans') {
    for (const record of message.spans) {
      const span = readableSpanOf(record, resource, scope);
      for (const processor of processors) processor.onEnd(span);
    }
    reply({ type: 'taken', count: message.spans.length });
    return;
  }
  const finish = message.type === 'flush' ? processors.map((p) => p.forceFlush()) : processors.map((p) => p.shutdown());
  void Promise.allSettled(finish).then(() => reply({ type: 'done', id: message.id }));
});
