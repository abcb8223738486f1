/**
 * The worker module must also start from compiled JavaScript (the published `dist/`), where no tsx is around. This
 * compiles the text index's modules with TypeScript into a temporary package and runs them in a plain `node`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { findText, indexText } from '../../src/pdf/text-index/text-index.js';
import { generatePdf, randomPages } from '../../src/testing/generate-pdf.js';

const root = join(import.meta.dirname, '../..');
/** The modules the test runs and every module they reach through relative imports (static, dynamic, worker URLs). */
const ENTRIES = ['src/pdf/text-index/text-index.ts', 'src/pdf/normalize-pdf.ts'];

function reachableModules(entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(join(root, file), 'utf8');
    for (const [, specifier] of source.matchAll(/['"](\.\.?\/[^'"]+)\.(?:js|ts)['"]/g)) {
      const target = relative(root, resolve(root, dirname(file), `${specifier!}.ts`));
      if (existsSync(join(root, target))) pending.push(target);
    }
  }
  return [...seen].sort();
}
const MODULES = reachableModules(ENTRIES);

describe('text index from compiled JavaScript', () => {
  it('runs its worker threads (text index, PDF repair) from .js files under plain node', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paraph-dist-'));
    for (const file of MODULES) {
      const source = readFileSync(join(root, file), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
        fileName: file,
      });
      const out = join(dir, file.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, outputText);
    }
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');

    const { bytes, truth } = await generatePdf(randomPages(99, { pages: 40, anchorsPerPage: 2 }));
    writeFileSync(join(dir, 'input.pdf'), bytes);
    const script = `
      import { readFileSync } from 'node:fs';
      import { indexText, findText } from ${JSON.stringify(pathToFileURL(join(dir, 'src/pdf/text-index/text-index.js')).href)};
      import { normalizePdf } from ${JSON.stringify(pathToFileURL(join(dir, 'src/pdf/normalize-pdf.js')).href)};
      const encrypted = readFileSync(${JSON.stringify(join(root, 'fixtures/corpus/empty-password-aes256.pdf'))});
      const normalized = await normalizePdf(encrypted);
      const index = await indexText(readFileSync(${JSON.stringify(join(dir, 'input.pdf'))}), { workers: 2 });
      const anchors = ${JSON.stringify(truth.map((t) => t.anchor))};
      process.stdout.write(JSON.stringify({
        pageCount: index.pageCount,
        texts: index.pages.map((p) => index.text(p.pageNumber).text),
        matches: anchors.map((a) => findText(index, a)),
        polluted: Array.prototype.push.toString().includes('native code') === false,
        normalization: normalized.normalization?.reason,
      }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as { pageCount: number; texts: string[]; matches: unknown[]; polluted: boolean; normalization?: string };
    // The PDFium worker of normalize-pdf.ts starts from .js too.
    expect(result.normalization).toBe('encrypted-empty-password');

    const reference = await indexText(bytes, { workers: 0 });
    expect(result.pageCount).toBe(40);
    expect(result.texts).toEqual(reference.pages.map((p) => reference.text(p.pageNumber)!.text));
    expect(result.matches).toEqual(truth.map((t) => findText(reference, t.anchor)));
    // The host process never loaded pdf.js, so its globals are untouched.
    expect(result.polluted).toBe(false);
  });
});
