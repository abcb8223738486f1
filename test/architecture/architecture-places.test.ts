/**
 * ARCHITECTURE.md is where a newcomer looks things up: every file or folder it names exists, every function or
 * constant it names "in" a file is declared in that file, and the questions a newcomer asks first each have a row in
 * its "Where things happen" table.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const ARCHITECTURE = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
const PATH = /`((?:src|test|scripts|docs|bench|deploy|fixtures)\/[^`\s]*)`/g;

/** Whether a named path exists; `<name>`, `NNNN` and `*` stand for any part of a file name. */
function pathExists(named: string): boolean {
  if (!/[<*]|NNNN/.test(named)) return existsSync(join(ROOT, named));
  const dir = join(ROOT, dirname(named));
  const escaped = named.slice(dirname(named).length + 1).replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${escaped.replace(/<[^>]+>|\*/g, '.+').replace(/NNNN/g, '\\d{4}')}$`);
  return existsSync(dir) && readdirSync(dir).some((name) => pattern.test(name));
}

describe('ARCHITECTURE.md', () => {
  it('names only files and folders that exist', () => {
    const named = [...ARCHITECTURE.matchAll(PATH)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((path) => !pathExists(path))).toEqual([]);
  });

  it('names only functions and constants declared in the file it names', () => {
    const claims = [...ARCHITECTURE.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)` in `(src\/[^`]+\.ts)`/g)].map((m) => ({ name: m[1]!, file: m[2]! }));
    expect(claims.length).toBeGreaterThan(5);
    const missing = claims.filter(({ name, file }) => {
      const source = existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), 'utf8') : '';
      return !new RegExp(`\\b(?:function|const|class|interface|type|let)\\s+${name}\\b`).test(source);
    });
    expect(missing).toEqual([]);
  });

  it('answers the ten questions a newcomer asks first', () => {
    const questions = [
      'Where is a Location resolved?',
      "Where is a signature's ByteRange written?",
      'Where does a transaction reach 30?',
      'Where is a postback retried?',
      "Where is the receipt's chain verified?",
      "Where do the signing page's texts come from?",
      'Where are limits configured?',
      "Where is a signer's turn decided?",
      'Where is a PDF job admitted?',
      'Where does a migration live?',
    ];
    const rows = ARCHITECTURE.split('\n').filter((line) => line.startsWith('| Where'));
    for (const question of questions) {
      const row = rows.find((line) => line.startsWith(`| ${question} |`));
      expect(row, question).toBeDefined();
      expect([...(row ?? '').matchAll(PATH)].length, question).toBeGreaterThan(0);
    }
  });
});
