/**
 * `paraph migrate` (docs/design/storage.md#migrations): applies the missing numbered migrations of the PostgreSQL store
 * named by `--database-url` or PARAPH_DATABASE_URL. Safe to run from several machines at once (an advisory lock
 * serialises it).
 */
import { parseArgs } from 'node:util';
import { migratePostgres } from '../store/postgres-store.js';
import { POSTGRES_SCHEMA_VERSION } from '../store/postgres-migrations.js';
import type { CliCommand } from './common.js';

export const migrateCommand: CliCommand = async (args, io) => {
  const { values } = parseArgs({ args, options: { 'database-url': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help) {
    io.stdout('usage: paraph migrate [--database-url postgres://…]   (default PARAPH_DATABASE_URL)\n');
    return 0;
  }
  const url = values['database-url'] ?? process.env.PARAPH_DATABASE_URL;
  if (url === undefined || url.trim() === '') {
    io.stderr('paraph migrate: name the database with --database-url or PARAPH_DATABASE_URL (postgres://…); the SQLite store migrates itself on start.\n');
    return 2;
  }
  const applied = await migratePostgres(url);
  io.stdout(
    applied.length === 0
      ? `the schema is at version ${POSTGRES_SCHEMA_VERSION}: nothing to apply\n`
      : `applied migration${applied.length > 1 ? 's' : ''} ${applied.join(', ')}: the schema is at version ${POSTGRES_SCHEMA_VERSION}\n`,
  );
  return 0;
};
