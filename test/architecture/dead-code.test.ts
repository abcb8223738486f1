/**
 * No dead code: knip (configured in knip.json: the public entry points, the CLI, the worker entries, benches,
 * scripts and tests) finds no unused file, export, dependency or unlisted dependency. An export only its own file
 * uses loses its `export`; code nothing reaches is deleted (tsconfig's noUnusedLocals catches what is left).
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const KNIP = join(ROOT, 'node_modules', 'knip', 'bin', 'knip.js');

describe('dead code', () => {
  it('knip finds no unused file, export or dependency', () => {
    const run = spawnSync(process.execPath, [KNIP, '--no-progress', '--no-config-hints'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 120_000);
});
