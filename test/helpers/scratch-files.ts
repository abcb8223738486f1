/**
 * A temporary directory for one test file, removed after its tests: `file(bytes)` writes bytes there under a fresh
 * name and returns the path (for openssl, qpdf and the CLI, which read files).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Creates the directory now and registers its removal with vitest's `afterAll`. */
export function scratchFiles(prefix: string): { dir: string; file(bytes: Uint8Array | string): string } {
  const dir = mkdtempSync(join(tmpdir(), `paraph-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return {
    dir,
    file(bytes) {
      const path = join(dir, `f${n++}`);
      writeFileSync(path, bytes);
      return path;
    },
  };
}
