/**
 * Packing paraph as npm publishes it and installing the tarball into a fresh project, as a new user would. Shared by
 * test/package/consumer.test.ts and bench/package.bench.ts (which prints the sizes and the install time). Packages come
 * from the local npm cache where it has them (`--prefer-offline`).
 */
import { execFile } from 'node:child_process';
import { lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (where package.json is). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a command printed. */
export interface CommandRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command; never throws for a non-zero exit (the caller looks at `exitCode`). */
export function runCommand(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CommandRun> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 600_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ exitCode: code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** The npm that belongs to the node running this process (so a Node 22 or 24 run uses its own npm). */
function npmCommand(): { command: string; prefix: string[] } {
  const npmCli = process.env.npm_execpath;
  if (npmCli !== undefined && npmCli.endsWith('.js')) return { command: process.execPath, prefix: [npmCli] };
  return { command: 'npm', prefix: [] };
}

async function npm(args: readonly string[], cwd: string, timeoutMs?: number): Promise<CommandRun> {
  const { command, prefix } = npmCommand();
  // The node running the tests first on PATH: npm's lifecycle scripts (the `prepare` build) use the same node.
  const env = { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  return runCommand(command, [...prefix, ...args], { cwd, env, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
}

/** A packed tarball. */
export interface PackedTarball {
  readonly path: string;
  readonly bytes: number;
  readonly unpackedBytes: number;
  readonly files: readonly string[];
}

/**
 * `npm pack` of the repository into `destination` (its `prepare` script builds dist/ first, as publishing does).
 *
 * @throws Error with npm's output when packing fails.
 */
export async function packParaph(destination: string): Promise<PackedTarball> {
  const run = await npm(['pack', '--json', '--pack-destination', destination], PROJECT_ROOT);
  if (run.exitCode !== 0) throw new Error(`npm pack failed:\n${run.stdout}\n${run.stderr}`);
  // npm prints the prepare script's output before the JSON.
  const json = JSON.parse(run.stdout.slice(run.stdout.indexOf('\n[') + 1)) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
  const packed = json[0];
  if (packed === undefined) throw new Error(`npm pack printed no result:\n${run.stdout}`);
  return { path: join(destination, packed.filename), bytes: packed.size, unpackedBytes: packed.unpackedSize, files: packed.files.map((f) => f.path) };
}

/** An installed consumer project. */
export interface ConsumerProject {
  readonly dir: string;
  readonly installMs: number;
  /** Bytes under node_modules (files and symlinks, not directories). */
  readonly nodeModulesBytes: number;
  readonly install: CommandRun;
}

/** What a consumer installs next to paraph: the optional peer fast-check (for paraph/testing) and a compiler. */
export const CONSUMER_DEV_PACKAGES = ['fast-check@^4', 'typescript@~5.9.3', '@types/node@^20.19'] as const;

/**
 * Makes `dir` an ES module project and installs the tarball (plus {@link CONSUMER_DEV_PACKAGES}) into it.
 * `ignoreScripts` installs with `--ignore-scripts`: no native addon gets built.
 */
export async function installConsumer(tarball: string, dir: string, options: { ignoreScripts: boolean }): Promise<ConsumerProject> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), `${JSON.stringify({ name: 'paraph-consumer', private: true, type: 'module' }, null, 2)}\n`);
  const started = performance.now();
  const install = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', ...(options.ignoreScripts ? ['--ignore-scripts'] : []), tarball, ...CONSUMER_DEV_PACKAGES], dir);
  const installMs = performance.now() - started;
  if (install.exitCode !== 0) throw new Error(`npm install failed:\n${install.stdout}\n${install.stderr}`);
  return { dir, installMs, nodeModulesBytes: await directoryBytes(join(dir, 'node_modules')), install };
}

/** Total size of the files under `dir`. */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(path);
    else total += (await lstat(path)).size;
  }
  return total;
}
