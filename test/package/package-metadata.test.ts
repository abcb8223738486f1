/**
 * What the npm page and an installed copy of paraph show: the manifest names the repository, homepage, issue
 * tracker and supported Node versions; every relative link of README.md, SECURITY.md and docs/ points to a file that
 * exists and that the package ships (npm resolves relative links against the repository, an installed copy against
 * its own folder, so both work); and CHANGELOG.md, shipped too, has an entry for the version.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './consumer-project.js';

const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
  files: string[];
  homepage: string;
  repository: { type: string; url: string };
  bugs: { url: string };
};

/** Whether the package's `files` take in `path` (a file or folder name listed, or a folder above it). */
function shipped(path: string): boolean {
  if (['README.md', 'LICENSE', 'package.json'].includes(path)) return true;
  return manifest.files.some((entry) => path === entry || path.startsWith(`${entry}/`));
}

/** Relative links (and images) of a Markdown file, as paths from the repository root. */
function relativeLinks(file: string): string[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split('#')[0]!)
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target))
    .map((target) => relative(PROJECT_ROOT, normalize(join(PROJECT_ROOT, dirname(file), target))));
}

describe('the package as npm shows it', () => {
  it('names its repository, homepage, issue tracker and Node versions', () => {
    const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(manifest.repository.type).toBe('git');
    expect(repository).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+$/);
    expect(manifest.homepage.startsWith(repository)).toBe(true);
    expect(manifest.bugs.url).toBe(`${repository}/issues`);
    expect(manifest.engines.node).toBe('>=20.19');
  });

  it('ships every file the README, SECURITY.md, the changelog and the reference in docs/ link to', () => {
    const docs = readdirSync(join(PROJECT_ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    const files = ['README.md', 'SECURITY.md', 'CHANGELOG.md', ...docs.map((f) => `docs/${f}`)];
    const links = files.flatMap((file) => relativeLinks(file).map((target) => ({ file, target })));
    expect(links.length).toBeGreaterThan(20);
    expect(links.filter(({ target }) => !existsSync(join(PROJECT_ROOT, target)))).toEqual([]);
    expect(links.filter(({ target }) => !shipped(target))).toEqual([]);
  });

  it('ships a changelog with an entry for this version', () => {
    expect(shipped('CHANGELOG.md')).toBe(true);
    const changelog = readFileSync(join(PROJECT_ROOT, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(new RegExp(`^## \\[${manifest.version.replace(/\./g, '\\.')}\\]`, 'm'));
    expect(changelog).toMatch(/^## \[Unreleased\]/m);
  });
});
