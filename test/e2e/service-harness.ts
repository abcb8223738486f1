/**
 * Test harness of the transaction service: starts the real server (SQLite store in a temporary data directory,
 * ECDSA keys for speed, no worker unless asked, a controllable clock) on a free port of 127.0.0.1, and a small
 * HTTP client that sends the headers a Signhost client sends.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { generatePdf, type GenPage } from '../helpers/pdf-gen.js';

/** The credentials every test service is started with. */
export const USER_TOKEN = 'test-user-token-0123456789';
export const APP_KEY = 'test-app-key-0123456789';
export const AUTH_HEADERS = { authorization: `APIKey ${USER_TOKEN}`, application: `APPKey ${APP_KEY}` } as const;

/** A clock the test moves. */
export class TestClock {
  #now: number;
  constructor(start = '2026-11-21T10:00:00.000Z') {
    this.#now = Date.parse(start);
  }
  readonly now = (): Date => new Date(this.#now);
  advance(ms: number): void {
    this.#now += ms;
  }
}

/** A free TCP port on 127.0.0.1 (so the public URL can name it before the server starts). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Options of {@link startTestService}. */
export interface TestServiceOptions {
  dataDir?: string;
  port?: number;
  clock?: TestClock;
  env?: Record<string, string>;
  worker?: boolean;
  /** A logger for the app (default: none). */
  logger?: import('../../src/http/app.js').AppDeps['logger'];
}

/** A running test service plus its data directory and clock. */
export interface TestService {
  server: RunningServer;
  url: string;
  dataDir: string;
  port: number;
  clock: TestClock;
  /** Stops the server (the data directory stays, for a restart). */
  stop(): Promise<void>;
  /** Stops it and removes the data directory. */
  dispose(): Promise<void>;
}

/** Makes a fresh data directory. */
export async function tempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'paraph-service-'));
}

/** Starts the service (a new data directory unless given). */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? (await tempDataDir());
  const port = options.port ?? (await freePort());
  const clock = options.clock ?? new TestClock();
  const config = loadConfig({
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      PARAPH_DATA_DIR: dataDir,
      PARAPH_USER_TOKEN: USER_TOKEN,
      PARAPH_APP_KEY: APP_KEY,
      PARAPH_FILE_REPLACE_GUARD_MS: '0',
      PARAPH_ORGANIZATION: 'Paraph Test Org',
      ...options.env,
    },
  });
  const server = await startServer(config, { clock: clock.now, keyKind: 'ecdsa-p256', logger: options.logger ?? false, worker: options.worker ?? false });
  const stop = () => server.close();
  return {
    server,
    url: server.url,
    dataDir,
    port,
    clock,
    stop,
    dispose: async () => {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A response read completely. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
  /** Parsed JSON, when the body is JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/** Sends a request with the account headers (unless `auth: false`). */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { json?: unknown; body?: Uint8Array | string; headers?: Record<string, string>; auth?: boolean } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...(options.auth === false ? {} : AUTH_HEADERS), ...options.headers };
  let body: string | Uint8Array | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  } else if (options.body !== undefined) {
    body = options.body;
  }
  const response = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = Buffer.from(bytes).toString('utf8');
  let json: unknown;
  if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') json = JSON.parse(text);
  return { status: response.status, headers: response.headers, bytes, text, json };
}

/** A small PDF with the given texts on pages of A4 size (one page per entry). */
export async function makePdf(pages: readonly (readonly string[])[]): Promise<Uint8Array> {
  const gen: GenPage[] = pages.map((lines) => ({
    width: 595,
    height: 842,
    rotation: 0,
    texts: lines.map((anchor, i) => ({ anchor, left: 72, baseline: 100 + i * 60, size: 12, font: 'Helvetica' as const, style: 'plain' as const })),
  }));
  return (await generatePdf(gen)).bytes;
}

/** `SHA-256=<base64>` of `bytes`. */
export async function digestHeader(bytes: Uint8Array, algorithm: 'SHA-256' | 'SHA-512' = 'SHA-256'): Promise<string> {
  const { createHash } = await import('node:crypto');
  return `${algorithm}=${createHash(algorithm === 'SHA-256' ? 'sha256' : 'sha512').update(bytes).digest('base64')}`;
}
