/**
 * The serving process (`paraph serve`, or the service embedded) reads no PDF and decodes no image: every such step is
 * a job of the PDF processes (src/service/pdf-jobs/pdf-work.ts). Enforced on the import graph: from the modules that run in the
 * serving process (the server, the serve command, the HTTP routes, the event workers and the service's use cases),
 * following every import kept at run time (type-only imports are erased), no PDF library is reached. The PDF
 * process's own modules are listed: they are started by path (`fork`) and may be imported by the serving side for
 * their types only. The byte-level looks the serving side takes are a scribble's PNG header (signer/scribble-image.ts,
 * `readPngHeader`) and an account logo's header (branding/logo-header.ts), to refuse a decompression bomb before a
 * process is involved; the image libraries (pngjs, jpeg-js) are the PDF processes' alone.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** Packages that parse, build or render PDFs, or decode images. */
const PDF_PACKAGES = ['pdf-lib', '@pdf-lib/fontkit', '@pdf-lib/standard-fonts', '@pdf-lib/upng', 'pdfjs-dist', '@embedpdf/pdfium', 'pngjs', 'jpeg-js'];

/** Modules that run only in a PDF process (pdf-work-worker.ts is its entry). */
const PDF_PROCESS_ONLY = ['service/pdf-jobs/pdf-work-worker.ts', 'service/pdf-jobs/check-sealed-output.ts', 'service/signer/fill-form-fields.ts', 'service/branding/logo-image.ts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `require` or `createRequire(…)`: pdf-lib is loaded that way (src/pdf/pdf-lib.ts). */
function isRequire(callee: ts.Expression): boolean {
  if (ts.isIdentifier(callee)) return callee.text === 'require';
  return ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire';
}

/**
 * The modules a file loads at run time: static imports that are not type-only, `export … from`, `import()`,
 * `require()`.
 */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const onlyTypes =
        clause !== undefined &&
        (clause.isTypeOnly || (clause.name === undefined && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
      if (!onlyTypes) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !node.isTypeOnly) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || isRequire(node.expression))) {
      const [argument] = node.arguments;
      if (argument !== undefined && ts.isStringLiteral(argument)) specifiers.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Every module reached at run time from `roots`, each with the module that first imported it. */
function reach(roots: readonly string[]): { modules: Map<string, string | undefined>; packages: Map<string, string> } {
  const modules = new Map<string, string | undefined>();
  const packages = new Map<string, string>();
  const queue: Array<[string, string | undefined]> = roots.map((root) => [root, undefined]);
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [file, importer] = next;
    if (modules.has(file)) continue;
    modules.set(file, importer);
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
        if (existsSync(target)) queue.push([target, file]);
      } else if (!specifier.startsWith('node:') && !packages.has(packageName(specifier))) {
        packages.set(packageName(specifier), file);
      }
    }
  }
  return { modules, packages };
}

function importChain(modules: Map<string, string | undefined>, file: string): string {
  const chain: string[] = [];
  for (let at: string | undefined = file; at !== undefined; at = modules.get(at)) chain.push(relative(SRC, at));
  return chain.join(' ← ');
}

const processOnly = new Set(PDF_PROCESS_ONLY.map((path) => join(SRC, path)));
const servingRoots = [
  ...['server.ts', 'create-service.ts', 'paraph-plugin.ts', 'cli/serve.ts'].map((path) => join(SRC, path)),
  ...['http', 'events', 'service'].flatMap((dir) => sourceFiles(join(SRC, dir))),
].filter((file) => !processOnly.has(file));

describe('the serving process', () => {
  const { modules, packages } = reach(servingRoots);

  it('loads no PDF library: PDFs are read, built and signed in the PDF processes only', () => {
    const reached = PDF_PACKAGES.filter((name) => packages.has(name)).map((name) => `${name} ← ${importChain(modules, packages.get(name)!)}`);
    expect(reached).toEqual([]);
  });

  it('loads none of the PDF process’s own modules', () => {
    for (const path of PDF_PROCESS_ONLY) expect(existsSync(join(SRC, path)), path).toBe(true);
    const loaded = [...processOnly].filter((file) => modules.has(file)).map((file) => importChain(modules, file));
    expect(loaded).toEqual([]);
  });

  it('is checked on a graph that does reach the PDF libraries from the PDF process', () => {
    const child = reach([join(SRC, 'service/pdf-jobs/pdf-work-worker.ts')]);
    expect(PDF_PACKAGES.filter((name) => child.packages.has(name))).toEqual(expect.arrayContaining(['pdf-lib', 'pdfjs-dist', '@embedpdf/pdfium']));
  });
});
