/**
 * The package as a consumer gets it: `npm pack` (with its prepare build), the tarball's size, the time
 * of `npm install --ignore-scripts` of the tarball into a fresh project (packages from the local npm cache where it
 * has them, `--prefer-offline`), and the size of that project's node_modules. Reference in the same run: an install
 * of fastify alone, the service framework paraph brings along.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, printTable } from './lib.js';
import { CONSUMER_DEV_PACKAGES, directoryBytes, installConsumer, packParaph, runCommand } from '../test/package/consumer-project.js';

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
} finally {
  await rm(work, { recursive: true, force: true });
}
