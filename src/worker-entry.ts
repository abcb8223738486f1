/**
 * Starting a module of this package in its own thread or process, the one way every floor does it. In the built
 * package the module is the compiled `.js` file next to the caller. Under tsx or vitest the caller is a `.ts` file and
 * Node cannot load TypeScript by itself: a thread gets a small bootstrap that registers tsx's loader inside it before
 * importing the `.ts` module (`--import` in a worker's execArgv does not reach its entry module on Node 20), a child
 * process gets tsx's loader with `--import`.
 */
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** What a thread's bootstrap does under tsx before it registers tsx's loader. */
export interface TsxThreadPrelude {
  /** A statement run first. */
  readonly statement?: string;
  /**
   * Packages imported natively, before tsx's hooks are in place (resolved from the caller): a large dependency loaded
   * through the hooks costs seconds and hundreds of MB per thread.
   */
  readonly nativeImports?: readonly string[];
}

/**
 * A worker thread running `file`, the compiled module's path relative to `callerUrl` (e.g. `./normalize-worker.js`;
 * its `.ts` source under tsx). The thread never inherits the host's flags (`--input-type`, `--eval`, loaders), which are not meant for it and can
 * break it.
 */
export function startWorkerThread(callerUrl: string, file: string, options: Omit<WorkerOptions, 'eval' | 'execArgv'>, prelude: TsxThreadPrelude = {}): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(file, callerUrl), { ...options, execArgv: [] });
  const require = createRequire(callerUrl);
  const url = (specifier: string): string => JSON.stringify(pathToFileURL(require.resolve(specifier)).href);
  const tsx = JSON.stringify(new URL('./dist/esm/api/index.mjs', pathToFileURL(require.resolve('tsx/package.json'))).href);
  const worker = JSON.stringify(new URL(typeScriptSource(file), callerUrl).href);
  const bootstrap = [
    prelude.statement === undefined ? '' : `${prelude.statement};\n`,
    'Promise.resolve()',
    ...(prelude.nativeImports ?? []).map((specifier) => `.then(() => import(${url(specifier)}))`),
    `.then(() => import(${tsx}))`,
    `.then((m) => { m.register(); return import(${worker}); });`,
  ].join('');
  return new Worker(bootstrap, { ...options, eval: true, execArgv: [] });
}

/** The file and Node flags of a child process running `file` (the compiled module's path relative to `callerUrl`). */
export function workerProcessEntry(callerUrl: string, file: string): { entry: string; execArgv: string[] } {
  if (!callerUrl.endsWith('.ts')) return { entry: fileURLToPath(new URL(file, callerUrl)), execArgv: [] };
  const require = createRequire(callerUrl);
  const tsx = new URL('./dist/loader.mjs', pathToFileURL(require.resolve('tsx/package.json'))).href;
  return { entry: fileURLToPath(new URL(typeScriptSource(file), callerUrl)), execArgv: ['--import', tsx] };
}

function typeScriptSource(file: string): string {
  if (!file.endsWith('.js')) throw new Error(`A worker module is named by its compiled file (…/name.js), not "${file}".`);
  return `${file.slice(0, -'.js'.length)}.ts`;
}
