/**
 * The shared harness of the test/security suite: a real `paraph serve` process on 127.0.0.1 with a
 * temporary data directory and the settings a test gives (environment variables, as an operator would), its
 * resident memory, and hostile clients on loopback: stalled connections from other loopback source addresses
 * (127.0.0.2 and up, so per-address caps do not hit the test's own requests from 127.0.0.1). Every loop is bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { APP_KEY, USER_TOKEN, call, freePort, tempDataDir, type ApiResponse } from '../e2e/service-harness.js';
import { TSX_LOADER } from '../helpers/tsx.js';

export { APP_KEY, USER_TOKEN, call,  makePdf,  type ApiResponse } from '../e2e/service-harness.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

/** A running `paraph serve`. */
export interface ServeProcess {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Its resident set size in bytes (Linux /proc). */
  rssBytes(): Promise<number>;
  /** An API call with the test account's headers (unless `auth: false`). */
  call(method: string, path: string, options?: Parameters<typeof call>[3]): Promise<ApiResponse>;
  /** SIGTERM and wait; returns the exit code. */
  stop(): Promise<number | null>;
  /** Stops it and removes the data directory. */
  dispose(): Promise<void>;
}

/** Options of {@link startServe}. */
export interface StartServeOptions {
  /** Extra environment (`PARAPH_*`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Reuse a data directory (a restart); default: a new one. */
  readonly dataDir?: string;
  /** Without the bootstrap account variables (zero-config start). */
  readonly noAccount?: boolean;
}

/**
 * Starts `paraph serve` and waits (at most 90 s) until /health answers 200.
 *
 * @example
 * const serve = await startServe({ env: { PARAPH_MAX_CONNECTIONS_PER_ADDRESS: '20' } });
 * try { expect((await serve.call('GET', '/health')).status).toBe(200); } finally { await serve.dispose(); }
 */
export async function startServe(options: StartServeOptions = {}): Promise<ServeProcess> {
  const dataDir = options.dataDir ?? (await tempDataDir());
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI, 'serve'], {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      PARAPH_DATA_DIR: dataDir,
      PARAPH_LOG_LEVEL: 'warn',
      ...(options.noAccount ? {} : { PARAPH_USER_TOKEN: USER_TOKEN, PARAPH_APP_KEY: APP_KEY }),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`paraph serve exited with ${child.exitCode}: ${out}`);
    try {
      if ((await fetch(`${url}/health`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`paraph serve did not become healthy: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return {
    url,
    port,
    dataDir,
    child,
    output: () => out,
    rssBytes: async () => {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    call: (method, path, callOptions) => call(url, method, path, callOptions),
    stop,
    dispose: async () => {
      await stop();
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

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
