/**
 * The attacks of the corpus really change what readers show: page 1 of each attack marked `changesPixels`,
 * rendered by poppler (pdftoppm) and MuPDF (mutool draw), differs from page 1 of the revision its signature
 * covers (or no longer renders at all, as with an /Encrypt added later).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRevisions } from '../../src/pdf/revisions.js';
import { attackFile, readManifest } from './attack-corpus.js';

const manifest = readManifest();

const dir = mkdtempSync(join(tmpdir(), 'paraph-attack-render-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Renderer = 'pdftoppm' | 'mutool';

/** Page 1 as a grey-scale PGM, or `unrenderable` when the reader refuses the file. */
function render(pdf: Uint8Array, renderer: Renderer, name: string): string {
  const input = join(dir, `${name}.pdf`);
  writeFileSync(input, pdf);
  try {
    if (renderer === 'pdftoppm') {
      execFileSync('pdftoppm', ['-r', '36', '-gray', '-f', '1', '-l', '1', '-singlefile', input, join(dir, name)], { stdio: 'ignore' });
      return readFileSync(join(dir, `${name}.pgm`)).toString('base64');
    }
    const out = join(dir, `${name}-mu.pgm`);
    execFileSync('mutool', ['draw', '-q', '-r', '36', '-c', 'gray', '-o', out, input, '1'], { stdio: 'ignore' });
    const image = readFileSync(out);
    return image.length === 0 ? 'unrenderable' : image.toString('base64');
  } catch {
    return 'unrenderable';
  }
}

describe('the attacks change what readers show', () => {
  const shown = manifest.files.filter((f) => f.changesPixels);

  it('covers the attack classes that paint over signed content', () => {
    expect(shown.length).toBeGreaterThanOrEqual(5);
  });

  for (const entry of shown) {
    for (const renderer of ['pdftoppm', 'mutool'] as const) {
      it(`${entry.file} in ${renderer}`, () => {
        const attack = attackFile(entry.file);
        const signedRevision = attack.subarray(0, findRevisions(attack)[0]!.end);
        const before = render(signedRevision, renderer, `${entry.file}-signed`);
        const after = render(attack, renderer, `${entry.file}-attack`);
        expect(before).not.toBe('unrenderable');
        expect(after).not.toBe(before);
      });
    }
  }
});
