/**
 * The numbered schema migrations of the two stores, one SQL file each under `sql/sqlite/` and `sql/postgres/`
 * (`0001_initial.sql`, `0002_…`; shipped in the package beside the compiled store). A store applies the files it has
 * not applied yet, in order, each once (docs/design/storage.md#migrations). Never edit a file that has shipped: add
 * the next number. A gap in the numbers is a migration done in code: the SQLite store's 4 seals stored secrets with
 * the master key (sqlite-store.ts), which SQL cannot do.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface SqlMigration {
  readonly version: number;
  /** The file name, e.g. `0003_release_at.sql`. */
  readonly name: string;
  readonly sql: string;
}

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/** The migrations of `store`, in version order. */
export function readSqlMigrations(store: 'sqlite' | 'postgres'): SqlMigration[] {
  const dir = new URL(`./sql/${store}/`, import.meta.url);
  return readdirSync(dir)
    .filter((name) => MIGRATION_FILE.test(name))
    .sort()
    .map((name) => ({ version: Number(MIGRATION_FILE.exec(name)?.[1]), name, sql: readFileSync(new URL(name, dir), 'utf8') }));
}
