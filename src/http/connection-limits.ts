/**
 * Server-level limits against slow and greedy clients (SECURITY.md "Connections"): headers,
 * body and idle timeouts, keep-alive limits, and caps on open connections in total and per client address. Node's
 * own `requestTimeout` is server-wide, so a request body gets its own deadline here: `bodyTimeoutMs` for up to
 * 1 MiB plus `size / minUploadBytesPerSecond` beyond it (a PDF upload of the size limit gets the most), after which
 * the connection is destroyed. Everything is applied to the raw `http.Server` before it listens, in one call.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/** The limits {@link applyConnectionLimits} enforces (from `SecuritySettings` plus the upload size limit). */
export interface ConnectionLimits {
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly minUploadBytesPerSecond: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxRequestsPerConnection: number;
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  /** The largest body the service accepts (the PDF size limit). */
  readonly maxBodyBytes: number;
}

/** Bodies up to this size get `bodyTimeoutMs`; larger ones get more at the minimum upload rate. */
const BASE_BODY_BYTES = 1024 * 1024;
/** A connection that is neither reading nor writing for this long is closed (long signing work answers well within it). */
const IDLE_SOCKET_MS = 5 * 60_000;

/** Time allowed to receive a body of `bytes` (undefined: unknown length, the largest allowed body). */
export function bodyBudgetMs(limits: ConnectionLimits, bytes: number | undefined): number {
  const size = Math.min(bytes ?? limits.maxBodyBytes, limits.maxBodyBytes);
  return limits.bodyTimeoutMs + Math.ceil((Math.max(0, size - BASE_BODY_BYTES) / limits.minUploadBytesPerSecond) * 1000);
}

/** What {@link applyConnectionLimits} counts, for logs and tests. */
export interface ConnectionCounters {
  /** Connections closed at once because a cap was reached. */
  readonly refused: number;
  /** Connections closed because a body did not arrive within its budget. */
  readonly bodyTimeouts: number;
}

/**
 * Applies the limits to `server` (call before `listen`). Returns live counters.
 *
 * @example
 * applyConnectionLimits(app.server, { ...limits, maxBodyBytes: config.maxFileBytes });
 * await app.listen({ host, port });
 */
export function applyConnectionLimits(server: Server, limits: ConnectionLimits): ConnectionCounters {
  const counters = { refused: 0, bodyTimeouts: 0 };
  server.headersTimeout = limits.headersTimeoutMs;
  // Node's whole-request timeout is a safety net behind the per-body deadline below.
  server.requestTimeout = limits.headersTimeoutMs + bodyBudgetMs(limits, undefined);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = limits.maxRequestsPerConnection;
  server.setTimeout(IDLE_SOCKET_MS);
  // Node checks headersTimeout/requestTimeout on this interval (default 30 s: a stalled header would live that long).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(250, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4)));
  server.maxConnections = limits.maxConnections;
  server.on('drop', () => counters.refused++);

  const perAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = clientAddress(socket);
    const open = perAddress.get(address) ?? 0;
    if (open >= limits.maxConnectionsPerAddress) {
      counters.refused++;
      socket.destroy();
      return;
    }
    perAddress.set(address, open + 1);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left <= 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });

  server.on('request', (request: IncomingMessage) => {
    if (!hasBody(request)) return;
    const length = request.headers['content-length'];
    const declared = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
    const timer = setTimeout(() => {
      counters.bodyTimeouts++;
      request.socket.destroy();
    }, bodyBudgetMs(limits, declared));
    timer.unref();
    const clear = () => clearTimeout(timer);
    request.once('end', clear);
    request.once('close', clear);
  });
  return counters;
}

function hasBody(request: IncomingMessage): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = request.headers['content-length'];
  return length !== undefined && length !== '0';
}

// An IPv4 client seen through a dual-stack socket is the same client as its plain IPv4 address.
function clientAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
