/**
 * The error-code table (src/errors.ts): every code thrown anywhere in src/ has a row, the service answers each code
 * with the row's status, and docs/errors.md is generated from the table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isErrorCode, ParaphError } from '../src/errors.js';
import { statusOf } from '../src/http/error-map.js';
import { errorsDoc } from '../scripts/generate-errors-doc.js';

const ROOT = resolve(import.meta.dirname, '..');
const CODE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Code-like string literals of an expression, looking through `a ? 'X' : 'Y'` and parentheses. */
function codeLiterals(node: ts.Node): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return CODE.test(node.text) ? [node.text] : [];
  if (ts.isConditionalExpression(node)) return [...codeLiterals(node.whenTrue), ...codeLiterals(node.whenFalse)];
  if (ts.isParenthesizedExpression(node)) return codeLiterals(node.expression);
  return [];
}

/**
 * Every code src/ gives an error: string literals passed to `new …Error(…)` or `super(…)` of an error class, `code:`
 * properties (failures a worker posts back), and `const X = 'X'` code constants.
 */
function thrownCodes(): Map<string, string> {
  const codes = new Map<string, string>();
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const where = relative(ROOT, file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      let found: string[] = [];
      if (ts.isNewExpression(node) && /Error$/.test(node.expression.getText(source))) {
        found = (node.arguments ?? []).flatMap(codeLiterals);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) {
        found = node.arguments.flatMap(codeLiterals);
      } else if (ts.isPropertyAssignment(node) && node.name.getText(source) === 'code') {
        found = codeLiterals(node.initializer);
      } else if (ts.isVariableDeclaration(node) && node.initializer && ts.isStringLiteral(node.initializer)) {
        if (node.name.getText(source) === node.initializer.text && node.initializer.text.includes('_')) found = [node.initializer.text];
      }
      for (const code of found) if (code.length >= 4 && !codes.has(code)) codes.set(code, where);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return codes;
}

describe('the error-code table', () => {
  it('has a row for every code thrown in src/', () => {
    const codes = thrownCodes();
    expect(codes.size).toBeGreaterThan(150);
    const missing = [...codes].filter(([code]) => !isErrorCode(code)).map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });

  it('gives every code a status, a meaning and a fix', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect([400, 401, 403, 404, 409, 410, 413, 429, 500, 503], code).toContain(info.status);
      expect(info.meaning.length, code).toBeGreaterThan(10);
      expect(info.fix.length, code).toBeGreaterThan(5);
    }
  });

  it('is what the service answers: the status of the row, 400/500 by origin for the plain rows', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      const origin = info.status === 500 ? 'internal' : 'input';
      expect(statusOf(new ParaphError(code, 'x', { origin })), code).toBe(info.status);
    }
  });

  it('is documented in docs/errors.md (regenerate with `npx tsx scripts/generate-errors-doc.ts`)', () => {
    expect(readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8')).toBe(errorsDoc());
  });
});
