/**
 * The real transaction service for tests (`paraph/testing`): starts `startServer` with a SQLite store in a
 * temporary data directory, ECDSA keys for speed, no background worker unless asked and a clock the test moves, on a
 * free port of 127.0.0.1, and returns a small HTTP client that sends the account headers a Signhost client sends
 * (docs/design/api.md#authentication).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import type { AppDeps } from '../http/app.js';
import { startServer, type RunningServer, type ServiceOptions } from '../server.js';

/** The user token every test service is started with. */
export const USER_TOKEN = 'test-user-token-0123456789';
/** The application key every test service is started with. */
export const APP_KEY = 'test-app-key-0123456789';
/** The postback secret every test service signs postbacks with (never empty: docs/design/events.md#checksum). */
export const POSTBACK_SECRET = 'test-postback-secret-0123456789';
/** The `Authorization` and `Application` headers of the test account. */
export const AUTH_HEADERS = { authorization: `APIKey ${USER_TOKEN}`, application: `APPKey ${APP_KEY}` } as const;

/** A clock the test moves; hand `clock.now` to anything that takes a clock. */
export class TestClock {
  #now: number;
  /** Starts at `start` (ISO 8601; default 2026-11-21T10:00:00Z). */
  constructor(start = '2026-11-21T10:00:00.000Z') {
    this.#now = Date.parse(start);
  }
  /** The current test time. */
  readonly now = (): Date => new Date(this.#now);
  /** Moves the clock forward by `ms` milliseconds. */
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

/** Makes a fresh temporary data directory. */
export async function tempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'paraph-service-'));
}

/** A response read completely. */
export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
  readonly text: string;
  /** Parsed JSON when the response is JSON, else undefined. */
  readonly json: unknown;
}

/** What {@link TestClient.request} can send: a JSON value, or raw bytes/text with their own headers. */
export interface TestRequestOptions {
  readonly json?: unknown;
  readonly body?: Uint8Array | string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Send the account headers (default true). */
  readonly auth?: boolean;
}

/** HTTP client of a test service; paths are relative to its URL (e.g. `/api/transaction`). */
export interface TestClient {
  readonly baseUrl: string;
  /** The account headers it sends. */
  readonly authHeaders: Readonly<Record<string, string>>;
  /** Sends a request and reads the whole response. */
  request(method: string, path: string, options?: TestRequestOptions): Promise<TestResponse>;
}

/** Options of {@link startTestService}. */
export interface TestServiceOptions {
  /** Data directory to use (default: a new temporary one; give the old one to restart a service). */
  dataDir?: string;
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** The service's clock (default: a TestClock at 2026-11-21T10:00:00Z). */
  clock?: TestClock;
  /** Extra configuration variables (`PARAPH_*`, see `paraph serve --help`); the postback secret defaults to {@link POSTBACK_SECRET}. */
  env?: Record<string, string>;
  /** Run the background worker (timers, outbox). Default false: tests drive it. */
  worker?: boolean;
  /** A logger for the app (default: none). */
  logger?: AppDeps['logger'];
  /** Resolves PostbackUrl host names (default: the system resolver); generated host names answer faster without DNS. */
  resolveHost?: ServiceOptions['resolveHost'];
  /**
   * Where the service reads the time instead of `clock`: the system clock, or one offset from it, for a test whose
   * database or job engine runs in real time (`clock` is then not read by the service).
   */
  now?: () => Date;
  /** Without the test account's credentials (user token, app key, postback secret): a zero-config start. */
  noAccount?: boolean;
  /** The store is PostgreSQL at `url`, with the master key its secrets are sealed with (base64, 32 bytes). */
  postgres?: { readonly url: string; readonly masterKey: string };
  /** Identity providers beside any configured ones (a fake iDIN, for example). */
  identityProviders?: ServiceOptions['identityProviders'];
  /** Code senders replacing the defaults (SMS to the log, e-mail as a mail). */
  verificationSenders?: ServiceOptions['verificationSenders'];
}

/** A running test service. */
export interface TestService {
  readonly server: RunningServer;
  readonly url: string;
  readonly dataDir: string;
  readonly port: number;
  readonly clock: TestClock;
  /** A client with the account headers set. */
  readonly client: TestClient;
  /** Stops the server (the data directory stays, for a restart). */
  stop(): Promise<void>;
  /** Stops it and removes the data directory. */
  dispose(): Promise<void>;
}

/**
 * Starts the real service on 127.0.0.1 with the test account ({@link AUTH_HEADERS}).
 *
 * @example
 * const service = await startTestService();
 * const created = await service.client.request('POST', '/api/transaction', { json: { Seal: true } });
 * await service.dispose();
 */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? (await tempDataDir());
  const port = options.port ?? (await freePort());
  const clock = options.clock ?? new TestClock();
  const config = loadConfig({
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      PARAPH_DATA_DIR: dataDir,
      ...(options.noAccount ? {} : { PARAPH_USER_TOKEN: USER_TOKEN, PARAPH_APP_KEY: APP_KEY, PARAPH_POSTBACK_SECRET: POSTBACK_SECRET }),
      ...(options.postgres ? { PARAPH_DATABASE_URL: options.postgres.url, PARAPH_MASTER_KEY: options.postgres.masterKey } : {}),
      PARAPH_FILE_REPLACE_GUARD_MS: '0',
      PARAPH_ORGANIZATION: 'Paraph Test Org',
      // Development settings (SECURITY.md): postbacks to receivers the test starts on loopback, SMS codes in the log
      // for the test to read, no request quota.
      PARAPH_POSTBACK_ALLOW_HTTP: 'true',
      PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.0/8,::1/128',
      PARAPH_DEV_LOG_VERIFICATION_CODES: 'true',
      PARAPH_ACCOUNT_REQUESTS_PER_MINUTE: '10000000',
      ...options.env,
    },
  });
  const server = await startServer(config, {
    clock: options.now ?? clock.now,
    keyKind: 'ecdsa-p256',
    logger: options.logger ?? false,
    worker: options.worker ?? false,
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    ...(options.identityProviders ? { identityProviders: options.identityProviders } : {}),
    ...(options.verificationSenders ? { verificationSenders: options.verificationSenders } : {}),
  });
  const stop = (): Promise<void> => server.close();
  return {
    server,
    url: server.url,
    dataDir,
    port,
    clock,
    client: createTestClient(server.url),
    stop,
    dispose: async () => {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A client for a paraph service at `baseUrl` sending `authHeaders` (default: the test account's). */
export function createTestClient(baseUrl: string, authHeaders: Readonly<Record<string, string>> = AUTH_HEADERS): TestClient {
  return {
    baseUrl,
    authHeaders,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...(options.auth === false ? {} : authHeaders), ...options.headers };
      let body: string | Uint8Array | undefined;
      if (options.json !== undefined) {
        body = JSON.stringify(options.json);
        headers['content-type'] ??= 'application/json';
      } else if (options.body !== undefined) {
        body = options.body;
      }
      const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
      const bytes = new Uint8Array(await response.arrayBuffer());
      const text = Buffer.from(bytes).toString('utf8');
      let json: unknown;
      if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') json = JSON.parse(text);
      return { status: response.status, headers: response.headers, bytes, text, json };
    },
  };
}

/** The value of a `Digest` request header for `bytes` (`SHA-256=<base64>`, RFC 3230). */
export function digestHeader(bytes: Uint8Array, algorithm: 'SHA-256' | 'SHA-512' = 'SHA-256'): string {
  return `${algorithm}=${createHash(algorithm === 'SHA-256' ? 'sha256' : 'sha512').update(bytes).digest('base64')}`;
}
