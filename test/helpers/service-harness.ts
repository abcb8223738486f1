/**
 * The one harness of the tests that need the transaction service, and the only two ways they start it:
 * `startTestService` runs it in this process (from `paraph/testing`, src/testing/start-test-service.ts: a clock the
 * test moves or a real one, extra `PARAPH_*` settings, PostgreSQL, fake identity providers and code senders, the
 * workers on or off), {@link spawnServe} runs a real `paraph serve` process on 127.0.0.1, as an operator would (the
 * same settings and PostgreSQL, a restart on the same data directory and port). {@link runCli} runs the other CLI
 * commands (`paraph migrate`, …). `call` is the suite's loosely typed client, `makePdf` a one-line PDF maker,
 * `captureLog` a logger whose lines the test reads. The fixed time tests set their clock to is TEST_NOW
 * (test/helpers/test-now.ts).
 *
 * Starting the service any other way is left to the tests whose subject is that way: embedding `createService` or the
 * plugin in a host app (test/create-service.test.ts, test/package/), `npm start` from the README
 * (test/readme/readme.test.ts), and a bare process that records which modules it loads (test/http/tracing.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loggerOptions } from '../../src/http/app.js';
import { generatePdf, type GenPage } from '../../src/testing/generate-pdf.js';
import { APP_KEY, USER_TOKEN, createTestClient, freePort, tempDataDir } from '../../src/testing/start-test-service.js';
import { checkServedResponse } from '../contract/served-contract.js';
import { TSX_LOADER } from './tsx.js';

export {
  APP_KEY,
  AUTH_HEADERS,
  digestHeader,
  freePort,
  startTestService,
  tempDataDir,
  TestClock,
  USER_TOKEN,
  type TestService,
  type TestServiceOptions,
} from '../../src/testing/start-test-service.js';

/** A response read completely. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
  /** Parsed JSON, when the body is JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/**
 * Sends a request with the account headers (unless `auth: false`): the published test client, loosely typed. Every
 * response is checked against the OpenAPI document the service at `base` serves (a mismatch fails the test).
 */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { json?: unknown; body?: Uint8Array | string; headers?: Record<string, string>; auth?: boolean } = {},
): Promise<ApiResponse> {
  const response = (await createTestClient(base).request(method, path, options)) as ApiResponse;
  await checkServedResponse(base, { method, path }, response);
  return response;
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

/** A logger for `startTestService({ logger })` that keeps every line it writes, and what tests read from them. */
export interface LogCapture {
  readonly logger: pino.Logger;
  readonly lines: Record<string, unknown>[];
  /** The last SMS code the default SMS sender wrote to the log for `signerId`. */
  smsCode(signerId: string): string | undefined;
}

/** Starts capturing the service's log at `level` (JSON lines, parsed). */
export function captureLog(level = 'info'): LogCapture {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return {
    logger: pino(loggerOptions(level), sink),
    lines,
    smsCode: (signerId) => {
      const line = [...lines].reverse().find((l) => l.outbox === 'sms' && l.signerId === signerId);
      return typeof line?.code === 'string' ? line.code : undefined;
    },
  };
}

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
  /** Resolves with the exit code when the process ends (however it was stopped). */
  readonly exited: Promise<number | null>;
  /** SIGTERM and wait (SIGKILL after `graceMs`, default 20 s); returns the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  /** Stops it and removes the data directory. */
  dispose(): Promise<void>;
}

/** Options of {@link spawnServe}. */
export interface SpawnServeOptions {
  /** Extra environment (`PARAPH_*`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Reuse a data directory (a restart); default: a new one. */
  readonly dataDir?: string;
  /** Listen on this port (a restart on the same address); default: a free one. */
  readonly port?: number;
  /** Without the bootstrap account variables (zero-config start). */
  readonly noAccount?: boolean;
  /** The store is PostgreSQL at `url`, with the master key its secrets are sealed with (base64, 32 bytes). */
  readonly postgres?: { readonly url: string; readonly masterKey: string };
  /** Hears of the child at once, so a caller can kill it in cleanup even when the start never returns. */
  readonly spawned?: (child: ChildProcess) => void;
  /** Arguments after `serve` (e.g. `--config`, a file in the data directory, which is the working directory). */
  readonly args?: readonly string[];
  /** Only PATH, PORT, the log level and `env`: no host, data directory or account (an operator's first start). */
  readonly zeroConfig?: boolean;
  /**
   * What to wait for before returning: /health answering 200 (default), a line of its output matching a pattern, or
   * the process's end (a start that must fail).
   */
  readonly until?: 'health' | RegExp | 'exit';
}

/**
 * Starts `paraph serve` and waits (at most 90 s) until /health answers 200 (or what `until` asks for).
 *
 * @example
 * const serve = await spawnServe({ env: { PARAPH_MAX_CONNECTIONS_PER_ADDRESS: '20' } });
 * try { expect((await serve.call('GET', '/health')).status).toBe(200); } finally { await serve.dispose(); }
 */
export async function spawnServe(options: SpawnServeOptions = {}): Promise<ServeProcess> {
  const dataDir = options.dataDir ?? (await tempDataDir());
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI, 'serve', ...(options.args ?? [])], {
    cwd: dataDir,
    env: options.zeroConfig
      ? { PATH: process.env.PATH ?? '', PORT: String(port), PARAPH_LOG_LEVEL: 'warn', ...options.env }
      : {
          PATH: process.env.PATH ?? '',
          HOST: '127.0.0.1',
          PORT: String(port),
          PARAPH_DATA_DIR: dataDir,
          PARAPH_LOG_LEVEL: 'warn',
          ...(options.noAccount ? {} : { PARAPH_USER_TOKEN: USER_TOKEN, PARAPH_APP_KEY: APP_KEY }),
          ...(options.postgres ? { PARAPH_DATABASE_URL: options.postgres.url, PARAPH_MASTER_KEY: options.postgres.masterKey } : {}),
          ...options.env,
        },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  options.spawned?.(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const until = options.until ?? 'health';
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (until === 'exit') {
      await exited;
      break;
    }
    if (child.exitCode !== null) throw new Error(`paraph serve exited with ${child.exitCode}: ${out}`);
    if (until instanceof RegExp) {
      if (until.test(out)) break;
    } else {
      try {
        if ((await fetch(`${url}/health`)).status === 200) break;
      } catch {
        // not listening yet
      }
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`paraph serve did not become healthy: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const stop = (graceMs?: number): Promise<number | null> => stopChild(child, graceMs).then(() => exited);
  return {
    url,
    port,
    dataDir,
    child,
    exited,
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

/** Stops a child process: SIGTERM, then SIGKILL if it has not ended after `graceMs` (default 20 s). */
export async function stopChild(child: ChildProcess, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const ended = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await ended;
  clearTimeout(timer);
}

/** Runs a `paraph` CLI command (not `serve`: see {@link spawnServe}) to its end with PATH and `env`. */
export async function runCli(args: readonly string[], options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>> } = {}): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI, ...args], {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, out };
}
