/**
 * One way to start a module of the package in a thread or a process: the compiled `.js` file next to a compiled caller,
 * the `.ts` source with tsx's loader next to a TypeScript caller.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { startWorkerThread, workerProcessEntry } from '../src/worker-entry.js';

const dir = mkdtempSync(join(tmpdir(), 'paraph-worker-entry-'));
symlinkSync(join(import.meta.dirname, '../node_modules'), join(dir, 'node_modules'));
writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
// Same name, two files: which one answered tells which the entry picked. The `.ts` one needs tsx (a type annotation).
writeFileSync(join(dir, 'echo.js'), `import { parentPort } from 'node:worker_threads';\nif (parentPort) parentPort.postMessage('js'); else process.send('js');\n`);
writeFileSync(join(dir, 'echo.ts'), `import { parentPort } from 'node:worker_threads';\nconst answer: string = 'ts';\nif (parentPort) parentPort.postMessage(answer); else process.send!(answer);\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function firstMessage(worker: Worker): Promise<unknown> {
  return new Promise((resolve, reject) => {
    worker.once('message', (message) => { resolve(message); void worker.terminate(); });
    worker.once('error', reject);
  });
}

function processAnswer(callerUrl: string): Promise<unknown> {
  const spec = workerProcessEntry(callerUrl, './echo.js');
  const child = fork(spec.entry, [], { execArgv: spec.execArgv, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => { resolve(message); child.kill(); });
    child.once('error', reject);
  });
}

describe('starting a worker module', () => {
  it('runs the compiled file from a compiled caller, without tsx', async () => {
    const caller = pathToFileURL(join(dir, 'host.js')).href;
    expect(await firstMessage(startWorkerThread(caller, './echo.js', {}))).toBe('js');
    expect(await processAnswer(caller)).toBe('js');
  });

  it('runs the TypeScript source through tsx from a TypeScript caller', async () => {
    const caller = pathToFileURL(join(dir, 'host.ts')).href;
    expect(await firstMessage(startWorkerThread(caller, './echo.js', {}))).toBe('ts');
    expect(await processAnswer(caller)).toBe('ts');
  });

  it('runs the prelude and native imports of a thread before its TypeScript module', async () => {
    const caller = pathToFileURL(join(dir, 'host.ts')).href;
    writeFileSync(join(dir, 'prelude.ts'), `import { parentPort } from 'node:worker_threads';\nparentPort!.postMessage(String(Reflect.get(globalThis, Symbol.for('paraph.test.prelude'))));\n`);
    const worker = startWorkerThread(caller, './prelude.js', {}, { statement: `globalThis[Symbol.for('paraph.test.prelude')] = 'ran'`, nativeImports: ['fast-check'] });
    expect(await firstMessage(worker)).toBe('ran');
  });

  it('refuses a worker named other than by its compiled .js file', () => {
    expect(() => startWorkerThread(pathToFileURL(join(dir, 'host.ts')).href, './echo', {})).toThrow(/compiled file/);
  });
});
