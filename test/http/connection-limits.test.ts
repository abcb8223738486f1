/**
 * The connection limits on a plain Node HTTP server on 127.0.0.1: a refused request is closed rather than drained,
 * a body gets the JSON budget whatever it declares or however it is chunked unless a route grants more, IPv6
 * clients count by /64, and at the total cap a new connection takes the slot of the oldest idle or stalled one while
 * work in progress keeps its slot. Loops and waits are bounded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { applyConnectionLimits, clientKey, grantBodyBudget, type ConnectionCounters, type ConnectionLimits } from '../../src/http/connection-limits.js';

const LIMITS: ConnectionLimits = {
  headersTimeoutMs: 60_000,
  bodyTimeoutMs: 60_000,
  minUploadBytesPerSecond: 65_536,
  keepAliveTimeoutMs: 5000,
  maxRequestsPerConnection: 100,
  maxConnections: 1000,
  maxConnectionsPerAddress: 1000,
  maxBodyBytes: 50 * 1024 * 1024,
};

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

async function serve(limits: Partial<ConnectionLimits>, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ port: number; counters: ConnectionCounters }> {
  const server = createServer(handler);
  const counters = applyConnectionLimits(server, { ...LIMITS, ...limits });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, counters };
}

/** A raw connection that records what it received and whether the server closed it. */
interface Raw {
  readonly socket: Socket;
  received(): string;
  closed(): boolean;
  /** Waits (at most `ms`) for the close; true when it came. */
  waitClosed(ms: number): Promise<boolean>;
}

async function raw(port: number, localAddress = '127.0.0.1', head?: string): Promise<Raw> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  sockets.push(socket);
  let text = '';
  let isClosed = false;
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => undefined);
  socket.once('close', () => (isClosed = true));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  if (head !== undefined) socket.write(head);
  return {
    socket,
    received: () => text,
    closed: () => isClosed,
    waitClosed: async (ms) => {
      const deadline = Date.now() + ms;
      while (!isClosed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      return isClosed;
    },
  };
}

/** Sends one byte every `everyMs` until the socket closes or `count` bytes went out. */
function trickle(socket: Socket, everyMs: number, count: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded || sent++ >= count) return clearInterval(timer);
    socket.write('x');
  }, everyMs);
}

async function get(port: number, path = '/'): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  await response.arrayBuffer();
  return response.status;
}

describe('refused requests', () => {
  it('answers a refusal sent before the body was read, then closes the connection while the client keeps sending', async () => {
    const { port, counters } = await serve({}, (_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"Message":"denied"}');
    });
    const client = await raw(port, '127.0.0.1', 'PUT /api/transaction/x/file/a HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\nContent-Length: 52428800\r\n\r\n%PDF');
    trickle(client.socket, 100, 600);
    // The declared 50 MB would get minutes to arrive; the refusal closes it after the short linger.
    expect(await client.waitClosed(15_000)).toBe(true);
    expect(client.received()).toMatch(/^HTTP\/1\.1 401/);
    expect(counters.closedUnread).toBe(1);
  });

  it('keeps a connection whose request was answered after its body was read', async () => {
    const { port } = await serve({}, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    const client = await raw(port, '127.0.0.1', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}');
    const deadline = Date.now() + 5000;
    while (!client.received().includes('ok') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    client.socket.write('GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
    while ((client.received().match(/HTTP\/1\.1 200/g) ?? []).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect((client.received().match(/HTTP\/1\.1 200/g) ?? []).length).toBe(2);
    expect(client.closed()).toBe(false);
  });
});

describe('body budgets', () => {
  const reader = (req: IncomingMessage, res: ServerResponse): void => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  };

  it('gives a chunked body the JSON budget, not the largest upload’s', async () => {
    const { port, counters } = await serve({ bodyTimeoutMs: 500 }, reader);
    const client = await raw(port, '127.0.0.1', 'POST /api/signer/x/sign HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n');
    expect(await client.waitClosed(15_000)).toBe(true);
    expect(counters.bodyTimeouts).toBe(1);
  });

  it('gives a body declaring 50 MB the JSON budget unless the route grants more', async () => {
    const { port, counters } = await serve({ bodyTimeoutMs: 500 }, reader);
    const client = await raw(port, '127.0.0.1', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 52428800\r\n\r\nx');
    trickle(client.socket, 100, 600);
    expect(await client.waitClosed(15_000)).toBe(true);
    expect(counters.bodyTimeouts).toBe(1);
  });

  it('lets a granted upload take the time its size allows at the slowest accepted rate', async () => {
    const { port, counters } = await serve({ bodyTimeoutMs: 300, minUploadBytesPerSecond: 1024 }, (req, res) => {
      grantBodyBudget(req, 1024 * 1024 + 600 * 1024);
      reader(req, res);
    });
    const client = await raw(port, '127.0.0.1', 'PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n');
    // Twelve bytes over ~1.2 s: four times the ungranted budget.
    trickle(client.socket, 100, 12);
    const deadline = Date.now() + 15_000;
    while (!client.received().includes('ok') && !client.closed() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(client.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(counters.bodyTimeouts).toBe(0);
  });
});

describe('clients', () => {
  it('counts IPv4 (also dual-stack) by address and IPv6 by /64, however the address is written', () => {
    expect(clientKey('127.0.0.2')).toBe('127.0.0.2');
    expect(clientKey('::ffff:127.0.0.2')).toBe('127.0.0.2');
    expect(clientKey('2001:db8:1:2::1')).toBe(clientKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
    expect(clientKey('fe80::1%eth0')).toBe(clientKey('fe80::2'));
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    const group = fc.integer({ min: 0, max: 0xffff });
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), fc.array(group, { minLength: 4, maxLength: 4 }), (groups, host) => {
        const full = groups.map((g) => g.toString(16).padStart(4, '0')).join(':');
        const sameNetwork = [...groups.slice(0, 4), ...host].map((g) => g.toString(16)).join(':');
        expect(clientKey(full)).toBe(clientKey(compress(sameNetwork)));
        expect(clientKey(full)).toBe(`${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`);
      }),
    );
  });

  it('closes connections past the per-client cap at once', async () => {
    const { port, counters } = await serve({ maxConnectionsPerAddress: 3 }, (_req, res) => res.end());
    const held: Raw[] = [];
    for (let i = 0; i < 5; i++) held.push(await raw(port, '127.0.0.9'));
    const closed = await Promise.all(held.map((c) => c.waitClosed(2000)));
    expect(closed.filter(Boolean)).toHaveLength(2);
    expect(counters.refused).toBe(2);
  });
});

describe('the total cap', () => {
  it('gives an honest client the slot of the oldest stalled connection; work in progress keeps its slot', async () => {
    let finishSlow: () => void = () => undefined;
    const slowDone = new Promise<void>((r) => (finishSlow = r));
    const { port, counters } = await serve({ maxConnections: 20 }, (req, res) => {
      req.resume();
      if (req.url === '/slow') void slowDone.then(() => res.writeHead(200).end('slow done'));
      else req.on('end', () => res.writeHead(200).end('ok'));
    });
    // A request the service is working on, then the cap filled with stalled clients from other addresses.
    const working = await raw(port, '127.0.0.1', 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const stalled: Raw[] = [];
    for (let i = 0; i < 40; i++) {
      const kind = i % 3;
      const head = kind === 0 ? undefined : kind === 1 ? 'GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ' : 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{';
      stalled.push(await raw(port, `127.0.0.${2 + (i % 5)}`, head));
    }
    for (let i = 0; i < 5; i++) expect(await get(port)).toBe(200);
    expect(counters.evicted).toBeGreaterThanOrEqual(21);
    expect(counters.refused).toBe(0);
    finishSlow();
    const deadline = Date.now() + 5000;
    while (!working.received().includes('slow done') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(working.received()).toContain('slow done');
    expect(stalled.filter((s) => s.closed()).length).toBeGreaterThanOrEqual(21);
  });

  it('refuses a new connection only when every slot is work in progress', async () => {
    let release: () => void = () => undefined;
    const done = new Promise<void>((r) => (release = r));
    const { port, counters } = await serve({ maxConnections: 3 }, (_req, res) => void done.then(() => res.writeHead(200).end('done')));
    const working = [];
    for (let i = 0; i < 3; i++) working.push(await raw(port, '127.0.0.1', 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    await new Promise((r) => setTimeout(r, 100));
    const late = await raw(port, '127.0.0.2');
    expect(await late.waitClosed(5000)).toBe(true);
    expect(counters.refused).toBe(1);
    release();
    const deadline = Date.now() + 5000;
    while (working.some((w) => !w.received().includes('done')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(working.every((w) => w.received().includes('done'))).toBe(true);
  });
});

/** `address` with its longest run of zero groups written as `::`. */
function compress(address: string): string {
  const groups = address.split(':');
  let best = { at: -1, length: 0 };
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === '0') j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j;
  }
  if (best.length < 2) return address;
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
}
