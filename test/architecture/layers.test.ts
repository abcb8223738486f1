/**
 * The layers of ARCHITECTURE.md, enforced: every relative import in src/ must point to the same
 * floor or one the table allows. A folder that needs something from a floor above it is a sign the concept lives on
 * the wrong floor (move the concept down instead of adding an exception here).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** Leaf modules at src/ that every floor may use. */
const BASE = ['errors.ts', 'load-native-module.ts', 'worker-entry.ts'];
/** The composition root and the public entry points: src/*.ts besides BASE. They may use every floor. */
const ROOT = 'root';

/** Floor → the floors it may import (besides itself and BASE). Listed bottom-up. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  // The words in each language (pure data): the receipt's, the pages' and the mails'.
  i18n: [],
  pdf: [],
  pades: ['pdf'],
  receipt: ['i18n', 'pades', 'pdf'],
  // The domain may use the vocabulary of the pure floors below it (FileMetaData, FieldPlacement, audit time format).
  domain: ['i18n', 'receipt', 'pades', 'pdf'],
  store: ['domain', 'i18n', 'receipt', 'pades', 'pdf'],
  service: ['store', 'domain', 'i18n', 'receipt', 'pades', 'pdf'],
  events: ['service', 'store', 'domain', 'i18n', 'receipt', 'pades', 'pdf'],
  http: ['service', 'events', 'domain', 'i18n', 'receipt', 'pades', 'pdf'],
  cli: [ROOT, 'bench', 'service', 'events', 'store', 'domain', 'i18n', 'receipt', 'pades', 'pdf'],
  [ROOT]: ['entry', 'cli', 'http', 'events', 'service', 'store', 'domain', 'i18n', 'receipt', 'pades', 'pdf'],
  // The package's entry points per layer (paraph/pdf, paraph/pades, paraph/receipt, paraph/server).
  entry: [ROOT, 'events', 'domain', 'i18n', 'receipt', 'pades', 'pdf'],
  bench: [ROOT, 'service', 'store', 'domain', 'i18n', 'receipt', 'pades', 'pdf'],
  testing: [ROOT, 'http', 'events', 'service', 'store', 'domain', 'i18n', 'receipt', 'pades', 'pdf'],
};

function floorOf(file: string): string {
  const rel = relative(SRC, file).split(sep);
  if (rel.length === 1) return BASE.includes(rel[0]!) ? 'base' : ROOT;
  return rel[0]!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative module a file imports (static, `export … from`, `import()`), as a path to a .ts file. */
function relativeImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')));
}

interface Edge {
  from: string;
  to: string;
  fromFloor: string;
  toFloor: string;
}

const edges: Edge[] = sourceFiles(SRC).flatMap((from) =>
  relativeImports(from).map((to) => ({ from: relative(SRC, from), to: relative(SRC, to), fromFloor: floorOf(from), toFloor: floorOf(to) })),
);

function isAllowed(edge: Edge): boolean {
  if (edge.toFloor === 'base' || edge.toFloor === edge.fromFloor) return true;
  return (ALLOWED[edge.fromFloor] ?? []).includes(edge.toFloor);
}

describe('the layers of src/', () => {
  it('knows every folder of src/ (a new folder gets a row in the table and the README)', () => {
    const floors = new Set(edges.flatMap((e) => [e.fromFloor, e.toFloor]));
    for (const floor of floors) if (floor !== 'base') expect(Object.keys(ALLOWED)).toContain(floor);
  });

  it('has no import pointing up across the floors', () => {
    const upward = edges
      .filter((e) => !isAllowed(e))
      .map((e) => `${e.from} → ${e.to}`.replaceAll(sep, '/'));
    expect(upward).toEqual([]);
  });

  it('keeps the pure library floors (pdf, pades, receipt) free of everything above them', () => {
    const pure = edges.filter((e) => ['pdf', 'pades', 'receipt'].includes(e.fromFloor));
    expect(pure.length).toBeGreaterThan(50);
    expect(pure.filter((e) => !isAllowed(e)).map((e) => `${e.from} → ${e.to}`)).toEqual([]);
  });

  it('tells an upward import from an allowed one', () => {
    expect(isAllowed({ from: 'pdf/a.ts', to: 'domain/b.ts', fromFloor: 'pdf', toFloor: 'domain' })).toBe(false);
    expect(isAllowed({ from: 'service/a.ts', to: 'http/b.ts', fromFloor: 'service', toFloor: 'http' })).toBe(false);
    expect(isAllowed({ from: 'domain/a.ts', to: 'pdf/b.ts', fromFloor: 'domain', toFloor: 'pdf' })).toBe(true);
    expect(isAllowed({ from: 'http/a.ts', to: 'errors.ts', fromFloor: 'http', toFloor: 'base' })).toBe(true);
  });

  it("loads pdf-lib's values only through src/pdf/pdf-lib.ts, in src/ and in the tests, benchmarks and fixtures (one build: its classes are not those of 'pdf-lib')", () => {
    const root = resolve(SRC, '..');
    const direct = ['src', 'test', 'bench', 'fixtures', 'scripts']
      .flatMap((dir) => sourceFiles(join(root, dir)))
      .filter((file) => relative(SRC, file) !== join('pdf', 'pdf-lib.ts'))
      // On purpose: it stands for a caller whose own pdf-lib parsed the document.
      .filter((file) => relative(root, file) !== join('test', 'pdf', 'form-fields-public.test.ts'))
      .filter((file) => /^\s*(import|export)\s+(?!type\b)[^;]*?from\s+['"]pdf-lib['"]|import\(\s*['"]pdf-lib['"]\s*\)/m.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(direct).toEqual([]);
  });
});
