import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTables, referenceColumns } from '../../bench/tables.js';
import { TSX_LOADER } from '../helpers/tsx.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
let resultsDir: string | undefined;

afterAll(() => {
  if (resultsDir !== undefined) rmSync(resultsDir, { recursive: true, force: true });
});

describe('npm run bench -- --quick (verify benchmark, 1 page)', () => {
  it('describes the machine, gives every table its reference and writes an untracked results folder', () => {
    const run = spawnSync(process.execPath, ['--import', TSX_LOADER, 'bench/run.ts', '--quick', 'verify', '--max=1'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 55_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const out = run.stdout;

    resultsDir = /^Results folder: (.+)$/m.exec(out)?.[1];
    expect(resultsDir).toBeDefined();
    const dir = resultsDir as string;
    expect(relative(join(root, 'bench-results'), dir).startsWith('..')).toBe(false);
    expect(spawnSync('git', ['check-ignore', '-q', dir], { cwd: root }).status).toBe(0);

    for (const line of [/^- CPU: .+, \d+ logical cores$/m, /^- Memory: \d+\.\d GiB$/m, /^- OS: .+$/m, new RegExp(`^- Node: ${process.version.replace(/\./g, '\\.')}$`, 'm')]) {
      expect(out).toMatch(line);
      expect(readFileSync(join(dir, 'machine.md'), 'utf8')).toMatch(line);
    }
    expect(out).toMatch(/^Estimated duration: \d+/m);
    expect(out).toMatch(/^Measured duration: \d+/m);
    expect(out).not.toMatch(/Tables without a reference column/);

    const tables = parseTables(readFileSync(join(dir, 'results.md'), 'utf8'));
    expect(tables.map((t) => t.title)).toEqual(['verifyPdf: 4 signatures (3 signers + seal), ms']);
    for (const table of tables) {
      const references = referenceColumns(table.header);
      expect(references, table.title).not.toEqual([]);
      for (const row of table.rows) {
        for (const column of references) expect(Number(row[table.header.indexOf(column)]), `${table.title}: ${column}`).toBeGreaterThan(0);
      }
    }
    expect(tables[0]?.rows.map((r) => r[0])).toEqual(['1']);

    const summary = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { quick: boolean; complete: boolean; benches: { name: string; exitCode: number }[] };
    expect(summary).toMatchObject({ quick: true, complete: false, benches: [{ name: 'verify', exitCode: 0 }] });
    expect(existsSync(join(dir, 'verify.md'))).toBe(true);
  });

  it('refuses to copy a --quick run into the published tables', () => {
    const run = spawnSync(process.execPath, ['--import', TSX_LOADER, 'bench/run.ts', '--quick', '--write-readme'], { cwd: root, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--write-readme needs a full run/);
  });
});
