/**
 * `paraph place --help` and usage errors answer before the heavy libraries load (a cold CLI start is
 * dominated by module loading). Checked in a fresh process, by which packages it loaded, not by timing.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TSX_LOADER } from '../helpers/tsx.js';

const PLACE = pathToFileURL(join(import.meta.dirname, '../../src/cli/place.ts')).href;
const HEAVY = /node_modules\/(pdf-lib|@pdf-lib\/fontkit|pkijs)\//;

/** The CommonJS files under node_modules a fresh process loaded while running `paraph place` with `args`. */
function loadedPackages(args: string[]): { exitCode: number; heavy: string[] } {
  const script = `
    const { placeCommand } = await import(${JSON.stringify(PLACE)});
    const io = { stdout() {}, stderr() {} };
    let exitCode;
    try { exitCode = await placeCommand(${JSON.stringify(args)}, io); } catch { exitCode = 2; }
    const { createRequire } = await import('node:module');
    console.log(JSON.stringify({ exitCode, loaded: Object.keys(createRequire(import.meta.url).cache) }));
  `;
  const run = spawnSync(process.execPath, ['--import', TSX_LOADER, '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  const { exitCode, loaded } = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { exitCode: number; loaded: string[] };
  return { exitCode, heavy: loaded.filter((path) => HEAVY.test(path)) };
}

describe('paraph place loads its libraries only when it places', () => {
  it('answers --help without loading pdf-lib, fontkit or pkijs', () => {
    expect(loadedPackages(['--help'])).toEqual({ exitCode: 0, heavy: [] });
  });

  it('reports a missing -o without loading them', () => {
    expect(loadedPackages(['in.pdf', 'meta.json'])).toEqual({ exitCode: 2, heavy: [] });
  });

  it('does load them to place (so the check above sees what it claims to)', () => {
    const { heavy } = loadedPackages(['missing.pdf', 'missing.json', '-o', 'out.pdf']);
    expect(heavy.some((path) => path.includes('/pdf-lib/'))).toBe(true);
  });
});
