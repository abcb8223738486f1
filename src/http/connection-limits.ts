/**
 * Server-level limits against slow and greedy clients (SECURITY.md "Connections"): headers, body and idle timeouts,
 * keep-alive limits, and caps on open connections in total and per client (an IPv4 address, an IPv6 /64).
 *
 * - Every request body gets `bodyTimeoutMs`, whatever length it declares or however it is chunked; only a route that
 *   has authenticated its caller and expects a large body (a PDF upload, FileMetaData) grants more with
 *   {@link grantBodyBudget}: `size / minUploadBytesPerSecond` beyond the first MiB. Past its deadline the connection
 *   is destroyed.
 * - A request answered before its body was read (401, 404, 413, 415, …) is closed, not drained: the answer is sent,
 *   the connection half-closed, and what the client still sends is discarded for at most {@link LINGER_MS}.
 * - At the total cap a new connection takes the slot of the oldest one that is doing nothing the service values
 *   (still sending its request head, idle between requests, sending an unauthenticated body, or slow to read an
 *   answer that is complete) rather than being refused; a connection whose request the service is working on, or an
 *   authenticated upload, is never evicted. Only when every slot is such work is the new connection refused.
 *
 * Everything is applied to the raw `http.Server` before it listens, in one call.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isIPv6, type Socket } from 'node:net';

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

/** Bodies up to this size get `bodyTimeoutMs`; larger granted ones get more at the minimum upload rate. */
const BASE_BODY_BYTES = 1024 * 1024;
/** A connection that is neither reading nor writing for this long is closed (long signing work answers well within it). */
const IDLE_SOCKET_MS = 5 * 60_000;
/** After answering a request whose body was not read, what the client still sends is discarded for this long. */
const LINGER_MS = 2000;

/** Time allowed to receive a body of `bytes` (undefined: unknown length, the largest allowed body). */
function bodyBudgetMs(limits: ConnectionLimits, bytes: number | undefined): number {
  const size = Math.min(bytes ?? limits.maxBodyBytes, limits.maxBodyBytes);
  return limits.bodyTimeoutMs + Math.ceil((Math.max(0, size - BASE_BODY_BYTES) / limits.minUploadBytesPerSecond) * 1000);
}

/** What {@link applyConnectionLimits} counts, for logs and tests. */
export interface ConnectionCounters {
  /** Connections closed at once because a cap was reached (per client, or in total with nothing to evict). */
  readonly refused: number;
  /** Connections closed to make room for a new one at the total cap. */
  readonly evicted: number;
  /** Connections closed because a body did not arrive within its budget. */
  readonly bodyTimeouts: number;
  /** Connections closed after an answer that was sent before the request's body was read. */
  readonly closedUnread: number;
  /** Connections open now. */
  readonly open: number;
}

/** One open connection. */
interface Tracked {
  readonly socket: Socket;
  /** The request being received or answered, if any. */
  request?: IncomingMessage;
  response?: ServerResponse;
  /** The request's body deadline was raised by an authenticated route. */
  granted: boolean;
  /** It has had a request answered. */
  served: boolean;
}

/** The body deadline of a request in progress, for {@link grantBodyBudget}. */
interface BodyDeadline {
  readonly limits: ConnectionLimits;
  readonly startedAt: number;
  readonly tracked: Tracked;
  readonly expire: () => void;
  timer: ReturnType<typeof setTimeout>;
}

const deadlines = new WeakMap<IncomingMessage, BodyDeadline>();

/**
 * Gives `request` the body budget of `bytes` (undefined: the largest allowed body) and protects its connection from
 * eviction: for routes that have authenticated the caller and accept large bodies. Does nothing for a request whose
 * body is complete or that no {@link applyConnectionLimits} server received (a host application's own server).
 */
export function grantBodyBudget(request: IncomingMessage, bytes: number | undefined): void {
  const deadline = deadlines.get(request);
  if (deadline === undefined || request.complete) return;
  deadline.tracked.granted = true;
  clearTimeout(deadline.timer);
  const left = deadline.startedAt + bodyBudgetMs(deadline.limits, bytes) - Date.now();
  deadline.timer = setTimeout(deadline.expire, Math.max(0, left));
  deadline.timer.unref();
}

/**
 * Applies the limits to `server` (call before `listen`). Returns live counters.
 *
 * @example
 * applyConnectionLimits(app.server, { ...limits, maxBodyBytes: config.maxFileBytes });
 * await app.listen({ host, port });
 */
export function applyConnectionLimits(server: Server, limits: ConnectionLimits): ConnectionCounters {
  const counters = {
    refused: 0,
    evicted: 0,
    bodyTimeouts: 0,
    closedUnread: 0,
    get open(): number {
      return open.size;
    },
  };
  server.headersTimeout = limits.headersTimeoutMs;
  // Node's whole-request timeout is a safety net behind the per-body deadline below.
  server.requestTimeout = limits.headersTimeoutMs + bodyBudgetMs(limits, undefined);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = limits.maxRequestsPerConnection;
  server.setTimeout(IDLE_SOCKET_MS);
  // Node checks headersTimeout/requestTimeout on this interval (default 30 s: a stalled header would live that long).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(250, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4)));

  // In the order they were opened: the first evictable one found is the oldest.
  const open = new Map<Socket, Tracked>();
  const perClient = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const client = clientKey(socket.remoteAddress);
    const count = perClient.get(client) ?? 0;
    if (count >= limits.maxConnectionsPerAddress) {
      counters.refused++;
      socket.destroy();
      return;
    }
    if (open.size >= limits.maxConnections) {
      const victim = evictable(open);
      if (victim === undefined) {
        counters.refused++;
        socket.destroy();
        return;
      }
      counters.evicted++;
      open.delete(victim.socket);
      victim.socket.destroy();
    }
    open.set(socket, { socket, granted: false, served: false });
    perClient.set(client, count + 1);
    socket.once('close', () => {
      open.delete(socket);
      const left = (perClient.get(client) ?? 1) - 1;
      if (left <= 0) perClient.delete(client);
      else perClient.set(client, left);
    });
  });

  // Before the application's own listener, so that a route can grant a budget at once.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const tracked = open.get(socket);
    if (tracked) {
      tracked.request = request;
      tracked.response = response;
      tracked.granted = false;
    }
    response.once('close', () => {
      if (tracked?.request === request) {
        tracked.request = undefined;
        tracked.response = undefined;
        tracked.granted = false;
        tracked.served = true;
      }
    });
    // Answered before its body was read: close rather than let Node drain what the client declared.
    response.once('finish', () => {
      if (request.complete || socket.destroyed) return;
      counters.closedUnread++;
      request.resume();
      socket.end();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    });
    if (!hasBody(request)) return;
    const expire = (): void => {
      counters.bodyTimeouts++;
      socket.destroy();
    };
    const deadline: BodyDeadline = { limits, startedAt: Date.now(), tracked: tracked ?? { socket, granted: false, served: false }, expire, timer: setTimeout(expire, limits.bodyTimeoutMs) };
    deadline.timer.unref();
    deadlines.set(request, deadline);
    const clear = (): void => clearTimeout(deadline.timer);
    request.once('end', clear);
    request.once('close', clear);
  });
  return counters;
}

/**
 * The connection to close for a new one at the total cap: the oldest of those that waste a slot first (still sending
 * a request head having never completed one, then an unauthenticated body, then reading an answer the service has
 * finished), else the oldest idle keep-alive connection. Undefined when every connection is work in progress.
 */
function evictable(open: ReadonlyMap<Socket, Tracked>): Tracked | undefined {
  let best: Tracked | undefined;
  let bestRank = Infinity;
  for (const tracked of open.values()) {
    const rank = evictionRank(tracked);
    if (rank === 0) return tracked;
    if (rank < bestRank) {
      best = tracked;
      bestRank = rank;
    }
  }
  return best;
}

/** 0 (evict first) to 3, or Infinity: never. */
function evictionRank(t: Tracked): number {
  const { request, response } = t;
  if (request === undefined || response === undefined) return t.served ? 3 : 0;
  if (!request.complete) return t.granted ? Infinity : 1;
  if (response.writableEnded) return 2;
  return Infinity;
}

function hasBody(request: IncomingMessage): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = request.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * The client a connection counts against: its IPv4 address (also when seen through a dual-stack socket), or the /64
 * network of its IPv6 address (one subscriber line or host gets a whole /64; counting single addresses would let it
 * open connections without limit).
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  const bare = address.split('%')[0] as string;
  if (!isIPv6(bare)) return address;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (lowercase hex, no leading zeros). */
function ipv6Groups(address: string): string[] {
  const groupsOf = (part: string): string[] => {
    if (part === '') return [];
    return part.split(':').flatMap((g) => {
      if (!g.includes('.')) return [g];
      const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  };
  const [head = '', tail] = address.split('::');
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const zeros = Array.from({ length: 8 - front.length - back.length }, () => '0');
  return [...front, ...zeros, ...back].map((g) => parseInt(g, 16).toString(16));
}
