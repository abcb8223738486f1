/**
 * The repository explains itself: no comment, test or document cites a text a clone does not have (a planning
 * document, a specification section by number, a tracker issue by number, a style guide, a sibling folder outside
 * the repository). A rule is stated where it is enforced, or linked in the design record (docs/design/README.md).
 * The published type declarations (dist/**\/*.d.ts) are checked too when a build exists.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** The citations, built from parts so that this file does not match itself. */
const SECTION = String.fromCharCode(0xa7);
const CITATION = new RegExp(
  [
    ['decisions', '\\.md'].join(''),
    ['spec', ' ', SECTION].join(''),
    ['\\b[Ii]ssues?', ' ', '[0-9]+'].join(''),
    ['STYLE', '\\.md'].join(''),
    ['\\.\\.', '/shared'].join(''),
  ].join('|'),
);

const TEXT = /\.(ts|mts|cts|js|mjs|cjs|md|css|html|json|sh|yml|yaml)$/;
const SKIP_DIRS = new Set(['node_modules', '.git', 'fixtures']);

function filesUnder(dir: string, accept: (path: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, accept));
    else if (accept(path)) out.push(path);
  }
  return out;
}

function hits(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (CITATION.test(line)) found.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe('citations of texts outside the repository', () => {
  it('the pattern finds each kind of citation it is meant to find', () => {
    const samples = [
      'see decisions' + '.md ' + SECTION + '2',
      ['spec', ' ', SECTION, '4.4'].join(''),
      ['(issue', ' 13)'].join(''),
      ['Issue', ' 7 point 2'].join(''),
      ['STYLE', '.md'].join(''),
      ['../', 'shared/spec'].join(''),
    ];
    for (const sample of samples) expect(CITATION.test(sample), sample).toBe(true);
    expect(CITATION.test('tissues 12 thick; the issuer of 3 certificates; a specification')).toBe(false);
  });

  it('none in src/, test/, bench/, scripts/, .ci/, docs/, README.md, ARCHITECTURE.md or SECURITY.md', () => {
    const files = [
      ...['src', 'test', 'bench', 'scripts', '.ci', 'docs'].flatMap((dir) =>
        filesUnder(join(ROOT, dir), (path) => TEXT.test(path) || dir === '.ci'),
      ),
      join(ROOT, 'README.md'),
      join(ROOT, 'ARCHITECTURE.md'),
      join(ROOT, 'SECURITY.md'),
    ];
    expect(files.length).toBeGreaterThan(100);
    expect(hits(files)).toEqual([]);
  });

  it('none in the published type declarations (dist/**/*.d.ts, or without a build the sources they come from)', () => {
    // The declarations' comments are the JSDoc of src/; a stale build would still show old ones.
    const built = filesUnder(join(ROOT, 'dist'), (path) => path.endsWith('.d.ts'));
    const declarations = built.length > 0 ? built : filesUnder(join(ROOT, 'src'), (path) => path.endsWith('.ts'));
    expect(declarations.length).toBeGreaterThan(0);
    expect(hits(declarations)).toEqual([]);
  });
});
