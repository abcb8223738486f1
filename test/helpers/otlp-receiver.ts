/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 for tests: takes `POST /v1/traces` with an ExportTraceServiceRequest in
 * protobuf and keeps its spans. The message is read with OpenTelemetry's own protobuf reader (the otlp-transformer
 * package the exporter serializes with) following the field numbers of the OTLP trace protocol
 * (opentelemetry/proto/collector/trace/v1/trace_service.proto and trace/v1/trace.proto).
 */
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { ProtobufReader } from '@opentelemetry/otlp-transformer/build/src/common/protobuf/protobuf-reader.js';

/** A received span; ids in lowercase hex, `parentSpanId` empty for a root. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** Status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  /** The `service.name` of the resource it came with. */
  readonly serviceName: string;
  /** The instrumentation scope's name. */
  readonly scope: string;
}

export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Requests received (also the ones that carried no span). */
  readonly requests: () => number;
  close(): Promise<void>;
}

const WIRE_VARINT = 0;
const WIRE_LENGTH = 2;

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** Calls `field(number, wireType, reader)` for every field of the message in `bytes`; the callback reads or skips it. */
function eachField(bytes: Uint8Array, field: (number: number, wireType: number, reader: ProtobufReader) => void): void {
  const reader = new ProtobufReader(bytes);
  while (!reader.isAtEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    const before = reader.pos;
    field(fieldNumber, wireType, reader);
    if (reader.pos === before) reader.skip(wireType);
  }
}

/** AnyValue: string (1), bool (2), int (3); other kinds are not used by paraph's attributes. */
function anyValue(bytes: Uint8Array): string | number | boolean | undefined {
  let value: string | number | boolean | undefined;
  eachField(bytes, (n, wire, r) => {
    if (n === 1 && wire === WIRE_LENGTH) value = r.readString();
    else if (n === 2 && wire === WIRE_VARINT) value = r.readVarint() !== 0;
    else if (n === 3 && wire === WIRE_VARINT) value = r.readVarint();
  });
  return value;
}

/** KeyValue: key (1), value (2). */
function keyValue(bytes: Uint8Array): [string, string | number | boolean | undefined] {
  let key = '';
  let value: string | number | boolean | undefined;
  eachField(bytes, (n, wire, r) => {
    if (n === 1 && wire === WIRE_LENGTH) key = r.readString();
    else if (n === 2 && wire === WIRE_LENGTH) value = anyValue(r.readBytes());
  });
  return [key, value];
}

function attributesOf(list: Uint8Array[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const bytes of list) {
    const [key, value] = keyValue(bytes);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Span: trace_id (1), span_id (2), parent_span_id (4), name (5), kind (6), attributes (9), status (15: code 3). */
function span(bytes: Uint8Array, serviceName: string, scope: string): ReceivedSpan {
  let traceId = '';
  let spanId = '';
  let parentSpanId = '';
  let name = '';
  let kind = 0;
  let statusCode = 0;
  const attributes: Uint8Array[] = [];
  eachField(bytes, (n, wire, r) => {
    if (wire === WIRE_LENGTH && n === 1) traceId = hex(r.readBytes());
    else if (wire === WIRE_LENGTH && n === 2) spanId = hex(r.readBytes());
    else if (wire === WIRE_LENGTH && n === 4) parentSpanId = hex(r.readBytes());
    else if (wire === WIRE_LENGTH && n === 5) name = r.readString();
    else if (wire === WIRE_VARINT && n === 6) kind = r.readVarint();
    else if (wire === WIRE_LENGTH && n === 9) attributes.push(r.readBytes());
    else if (wire === WIRE_LENGTH && n === 15) {
      eachField(r.readBytes(), (m, w, s) => {
        if (m === 3 && w === WIRE_VARINT) statusCode = s.readVarint();
      });
    }
  });
  return { traceId, spanId, parentSpanId, name, kind, attributes: attributesOf(attributes), statusCode, serviceName, scope };
}

/** ExportTraceServiceRequest: resource_spans (1) → resource (1: attributes 1), scope_spans (2) → scope (1: name 1), spans (2). */
function decodeTraceRequest(bytes: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  eachField(bytes, (n, wire, r) => {
    if (n !== 1 || wire !== WIRE_LENGTH) return;
    let serviceName = '';
    const scopeSpans: Uint8Array[] = [];
    eachField(r.readBytes(), (m, w, s) => {
      if (m === 1 && w === WIRE_LENGTH) {
        const resourceAttributes: Uint8Array[] = [];
        eachField(s.readBytes(), (k, kw, t) => {
          if (k === 1 && kw === WIRE_LENGTH) resourceAttributes.push(t.readBytes());
        });
        serviceName = String(attributesOf(resourceAttributes)['service.name'] ?? '');
      } else if (m === 2 && w === WIRE_LENGTH) scopeSpans.push(s.readBytes());
    });
    for (const bytesOfScope of scopeSpans) {
      let scope = '';
      const spanBytes: Uint8Array[] = [];
      eachField(bytesOfScope, (m, w, s) => {
        if (m === 1 && w === WIRE_LENGTH) {
          eachField(s.readBytes(), (k, kw, t) => {
            if (k === 1 && kw === WIRE_LENGTH) scope = t.readString();
          });
        } else if (m === 2 && w === WIRE_LENGTH) spanBytes.push(s.readBytes());
      });
      for (const one of spanBytes) spans.push(span(one, serviceName, scope));
    }
  });
  return spans;
}

/** Starts a receiver; `respond` false makes it read and drop (a sink for benchmarks). */
export async function startOtlpReceiver(options: { keep?: boolean } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests++;
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      if (options.keep !== false) {
        const body = Buffer.concat(chunks);
        spans.push(...decodeTraceRequest(request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body));
      }
      // An empty ExportTraceServiceResponse: full success.
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
