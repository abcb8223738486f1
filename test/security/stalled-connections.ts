/**
 * Hostile clients of the test/security suite on loopback: stalled connections from other loopback source addresses
 * (127.0.0.2 and up, so per-address caps do not hit the test's own requests from 127.0.0.1). Every loop is bounded.
 */
import { connect, type Socket } from 'node:net';

/** What a stalled client does after connecting. */
export type StallKind = 'headers' | 'body' | 'silent' | 'refusedUpload';

/** A set of stalled connections and what happened to them. */
export interface StalledConnections {
  readonly sockets: readonly Socket[];
  /** How many the server has closed so far. */
  closedByServer(): number;
  /** Waits (at most `ms`) until at least `count` were closed; returns how many were. */
  waitClosed(count: number, ms: number): Promise<number>;
  destroy(): void;
}

const STALL_WAVE = 100;
const STALL_WAVE_PAUSE_MS = 150;

/**
 * Opens `count` connections to `port` spread over `addresses` loopback source addresses (127.0.0.2, 127.0.0.3, …)
 * and stalls each: `headers` sends an unfinished request head, `body` an unauthenticated POST to
 * `/api/signer/x/sign` announcing 1 MB and sending one byte, `silent` nothing at all, `refusedUpload` an
 * unauthenticated PDF upload announcing 50 MB and then one byte a second (it gets 401) until the server closes it.
 */
export async function holdStalledConnections(port: number, count: number, addresses: number, kinds: readonly StallKind[]): Promise<StalledConnections> {
  const sockets: Socket[] = [];
  let closed = 0;
  const open = (i: number): Promise<void> => {
    const localAddress = `127.0.0.${2 + (i % addresses)}`;
    const kind = kinds[i % kinds.length] as StallKind;
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    socket.on('error', () => undefined);
    // Read (and drop) what the server sends, or its close would go unnoticed behind unread data.
    socket.resume();
    socket.once('close', () => closed++);
    sockets.push(socket);
    return new Promise<void>((resolve) => {
      socket.once('connect', () => {
        if (kind === 'headers') socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
        if (kind === 'body') socket.write('POST /api/signer/x/sign HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{');
        if (kind === 'refusedUpload') {
          socket.write('PUT /api/transaction/x/file/a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/pdf\r\nContent-Length: 52428800\r\n\r\n%PDF');
          const timer = setInterval(() => (socket.destroyed || socket.writableEnded ? clearInterval(timer) : socket.write('x')), 1000);
          timer.unref();
        }
        resolve();
      });
      socket.once('close', () => resolve());
    });
  };
  // In waves with a pause between them: a client's connect completes in the kernel before the server accepts, and
  // 2,000 at once overflow a busy server's listen backlog (511) — the overflow is never accepted, so no server timeout
  // could ever close it (CI saw 32 such sockets).
  for (let start = 0; start < count; start += STALL_WAVE) {
    const wave: Promise<void>[] = [];
    for (let i = start; i < Math.min(count, start + STALL_WAVE); i++) wave.push(open(i));
    await Promise.all(wave);
    await new Promise((r) => setTimeout(r, STALL_WAVE_PAUSE_MS));
  }
  return {
    sockets,
    closedByServer: () => closed,
    waitClosed: async (target, ms) => {
      const deadline = Date.now() + ms;
      while (closed < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      return closed;
    },
    destroy: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}
