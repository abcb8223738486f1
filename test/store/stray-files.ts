/** Lists files of a data directory that are neither the SQLite database (with its WAL files) nor a blob at its address. */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file under `dir` that is neither `paraph.db(-wal|-shm)` nor `blobs/ab/ab…` (64 hex digits). */
export function strayFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.filter((p) => !/^paraph\.db(-wal|-shm)?$/.test(p) && !/^blobs\/([0-9a-f]{2})\/\1[0-9a-f]{62}$/.test(p));
}
