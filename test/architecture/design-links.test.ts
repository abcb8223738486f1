/**
 * Links into the design record stay valid: every `docs/design/<page>.md#<section>` cited in src/, test/, bench/,
 * scripts/, docs/, README.md, ARCHITECTURE.md or SECURITY.md, and every relative link between the record's pages, names
 * a page that exists and a heading of it (anchors as GitHub writes them: lowercase, punctuation dropped, spaces as
 * hyphens).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DESIGN = join(ROOT, 'docs', 'design');

/** GitHub's anchor of a Markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(page: string): Set<string> {
  const text = readFileSync(page, 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'fixtures') return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.(ts|js|mjs|md|css|html)$/.test(path) ? [path] : [];
  });
}

function broken(links: readonly { from: string; page: string; anchor?: string }[]): string[] {
  const cache = new Map<string, Set<string>>();
  return links.flatMap(({ from, page, anchor }) => {
    const path = join(DESIGN, page);
    if (!existsSync(path)) return [`${from}: no page docs/design/${page}`];
    if (anchor === undefined) return [];
    if (!cache.has(path)) cache.set(path, anchorsOf(path));
    return cache.get(path)!.has(anchor) ? [] : [`${from}: no section #${anchor} in docs/design/${page}`];
  });
}

describe('links into docs/design', () => {
  it('writes anchors as GitHub does', () => {
    expect(anchorOf('One change, one commit')).toBe('one-change-one-commit');
    expect(anchorOf('FileMetaData')).toBe('filemetadata');
    expect(anchorOf('Show and receipt URLs')).toBe('show-and-receipt-urls');
  });

  it('every docs/design/<page>.md#<section> cited in the code and the docs exists', () => {
    const files = [
      ...['src', 'test', 'bench', 'scripts', 'docs'].flatMap((dir) => filesUnder(join(ROOT, dir))),
      ...['README.md', 'ARCHITECTURE.md', 'SECURITY.md'].map((name) => join(ROOT, name)),
    ];
    const links = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/docs\/design\/([a-z-]+\.md)(?:#([a-z0-9-]+))?/g)].map((m) => ({
        from: relative(ROOT, file),
        page: m[1]!,
        anchor: m[2],
      })),
    );
    expect(links.length).toBeGreaterThan(100);
    expect(broken(links)).toEqual([]);
  });

  it("the record's pages link each other's pages and sections correctly", () => {
    const links = readdirSync(DESIGN)
      .filter((name) => name.endsWith('.md'))
      .flatMap((name) =>
        [...readFileSync(join(DESIGN, name), 'utf8').matchAll(/\]\(([a-z-]+\.md)(?:#([a-z0-9-]+))?\)/g)].map((m) => ({
          from: `docs/design/${name}`,
          page: m[1]!,
          anchor: m[2],
        })),
      );
    expect(links.length).toBeGreaterThan(10);
    expect(broken(links)).toEqual([]);
  });
});
