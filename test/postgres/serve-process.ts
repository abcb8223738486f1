/**
 * `paraph migrate` and `paraph serve` as child processes (through tsx, from src/cli.ts) for the multi-process
 * PostgreSQL tests: a served process is returned once its /health answers 200, and stopped with SIGTERM (SIGKILL
 * after a grace period).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/service-harness.js';
import { TSX_LOADER } from '../helpers/tsx.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

/** A running `paraph serve`. */
export interface ServeProcess {
  readonly child: ChildProcess;
  readonly base: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
}

/**
 * The environment of a `paraph serve` on port `port` sharing the database `databaseUrl`, under the tests' fixed
 * credentials; mails go to `<dataDir>/mail` (PostgreSQL mode needs SMTP or a mail directory named on purpose).
 */
export function serveEnv(
  port: number,
  shared: { readonly dataDir: string; readonly databaseUrl: string; readonly masterKey: string; readonly userToken: string; readonly appKey: string },
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    PARAPH_LOG_LEVEL: 'warn',
    PARAPH_DATA_DIR: shared.dataDir,
    PARAPH_DATABASE_URL: shared.databaseUrl,
    PARAPH_MASTER_KEY: shared.masterKey,
    PARAPH_USER_TOKEN: shared.userToken,
    PARAPH_APP_KEY: shared.appKey,
    // Mail files beside the data directory, which a PostgreSQL deployment leaves empty (the tests check it).
    PARAPH_MAIL_DIR: `${shared.dataDir}.mail`,
    // Sender notices have an address, as an operator configures it (without one each process warns once).
    PARAPH_NOTIFICATION_EMAIL: 'sender@example.com',
  };
}

function spawnCli(args: readonly string[], cwd: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

/** Runs a CLI command to its end. */
export async function runCli(args: readonly string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const { child, output } = spawnCli(args, cwd, env);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, out: output() };
}

/**
 * Starts `paraph serve` on a free port with the environment `env(port)` and waits until it is healthy. `spawned` hears
 * of the child at once, so a caller can kill it in cleanup even when this never returns.
 */
export async function startServe(
  cwd: string,
  env: (port: number) => Record<string, string>,
  options: { timeoutMs?: number; spawned?: (child: ChildProcess) => void } = {},
): Promise<ServeProcess> {
  const port = await freePort();
  const { child, output } = spawnCli(['serve'], cwd, env(port));
  options.spawned?.(child);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`paraph serve exited: ${output()}`);
    try {
      if ((await fetch(`${base}/health`)).status === 200) return { child, base, output };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`paraph serve did not become healthy: ${output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Stops every process still running: SIGTERM, SIGKILL after `graceMs`. */
export async function stopServe(processes: readonly { readonly child: ChildProcess }[], graceMs = 15_000): Promise<void> {
  await Promise.all(
    processes.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }),
  );
}
