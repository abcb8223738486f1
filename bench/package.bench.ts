/**
 * The package as a consumer gets it: `npm pack` (with its build), the tarball's size, the time of
 * `npm install --ignore-scripts` of the tarball into a fresh project (packages from the local npm cache where it
 * has them, `--prefer-offline`), and the size of that project's node_modules. Reference in the same run: an install
 * of fastify alone, the service framework paraph brings along. Then the cold import of each entry point there
 * (a fresh process each, the entry points interleaved round by round so that a busy moment of the machine hits all
 * alike) beside pdf-lib's and fastify's, with the npm packages each one loads.
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, printTable, summarize } from './lib.js';
import { CONSUMER_DEV_PACKAGES, directoryBytes, installConsumer, packParaph, PROJECT_ROOT, runCommand } from '../test/package/consumer-project.js';

const MB = 1024 * 1024;
const work = await mkdtemp(join(tmpdir(), 'paraph-bench-package-'));
try {
  const packStarted = performance.now();
  const tarball = await packParaph(work);
  const packMs = performance.now() - packStarted;
  const consumer = await installConsumer(tarball.path, join(work, 'consumer'), { ignoreScripts: true });
  const devBytes = (await Promise.all(['typescript', '@types/node', 'fast-check'].map((name) => directoryBytes(join(consumer.dir, 'node_modules', name))))).reduce((a, b) => a + b, 0);

  const reference = join(work, 'fastify-only');
  await runCommand('mkdir', ['-p', reference], { cwd: work });
  await writeFile(join(reference, 'package.json'), '{"name":"fastify-only","private":true}\n');
  const refStarted = performance.now();
  const refInstall = await runCommand('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', 'fastify@^5'], { cwd: reference });
  const refMs = performance.now() - refStarted;
  if (refInstall.exitCode !== 0) throw new Error(refInstall.stderr);

  printTable(
    `paraph as a dependency (Node ${process.version}; consumer also installs ${CONSUMER_DEV_PACKAGES.join(', ')})`,
    ['what', 'paraph', 'fastify alone (ref)'],
    [
      ['npm pack incl. build (s)', fmt(packMs / 1000, 1), '–'],
      ['tarball (MB packed / unpacked)', `${fmt(tarball.bytes / MB, 2)} / ${fmt(tarball.unpackedBytes / MB, 2)}`, '–'],
      ['files in tarball', String(tarball.files.length), '–'],
      ['npm install --ignore-scripts (s)', fmt(consumer.installMs / 1000, 1), fmt(refMs / 1000, 1)],
      ['node_modules (MB)', `${fmt(consumer.nodeModulesBytes / MB, 1)} (${fmt((consumer.nodeModulesBytes - devBytes) / MB, 1)} without the dev tools)`, fmt((await directoryBytes(join(reference, 'node_modules'))) / MB, 1)],
    ],
  );

  const ROUNDS = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick') ? 3 : 15;
  const specifiers = ['pdf-lib', 'fastify', 'paraph/pdf', 'paraph/pades', 'paraph/receipt', 'paraph', 'paraph/server'];
  const samples = new Map(specifiers.map((specifier) => [specifier, [] as number[]]));
  const coldImport = (specifier: string): number => {
    const started = process.hrtime.bigint();
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`], { cwd: consumer.dir, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (run.status !== 0) throw new Error(`import ${specifier} failed: ${String(run.stderr)}`);
    return ms;
  };
  const bare = summarize(Array.from({ length: ROUNDS }, () => coldImport('node:fs'))).median;
  for (let round = 0; round < ROUNDS; round++) for (const specifier of specifiers) samples.get(specifier)!.push(coldImport(specifier));
  await copyFile(join(PROJECT_ROOT, 'test/package/loaded-packages.mjs'), join(consumer.dir, 'loaded-packages.mjs'));
  const packagesLoaded = (specifier: string): number => {
    const run = spawnSync(process.execPath, ['loaded-packages.mjs', specifier], { cwd: consumer.dir, encoding: 'utf8' });
    return (JSON.parse(run.stdout) as string[]).length;
  };
  const pdfLib = summarize(samples.get('pdf-lib')!).median;
  printTable(
    `Cold import of each entry point in the consumer project (Node ${process.version}; median of ${ROUNDS} fresh processes, interleaved; a bare node process: ${fmt(bare, 0)} ms)`,
    ['import', 'ms (median)', '× pdf-lib', 'npm packages loaded'],
    specifiers.map((specifier) => {
      const median = summarize(samples.get(specifier)!).median;
      return [`\`${specifier}\``, fmt(median, 0), fmt(median / pdfLib, 2), String(packagesLoaded(specifier))];
    }),
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
