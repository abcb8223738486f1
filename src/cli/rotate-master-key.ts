/**
 * `paraph rotate-master-key` (SECURITY.md "Data at rest"): re-seals the private keys, SignUrl
 * tokens and postback secrets of a data directory under a new master key. Stop the service first. With the key in
 * the data directory's `master.key` a new key is generated into it; with `PARAPH_MASTER_KEY` set, the new key comes
 * from `PARAPH_NEW_MASTER_KEY` and is configured afterwards.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { rotateMasterKey } from '../store/protected-store.js';
import type { CliCommand } from './common.js';

/** Rotates the master key of `--data-dir` (default PARAPH_DATA_DIR or ./data). */
export const rotateMasterKeyCommand: CliCommand = async (args, io) => {
  const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help) {
    io.stdout(
      'usage: paraph rotate-master-key [--data-dir <dir>]\n\n' +
        'Stop the service first. Old key: PARAPH_MASTER_KEY, else <data dir>/master.key.\n' +
        'New key: PARAPH_NEW_MASTER_KEY (required when PARAPH_MASTER_KEY is set), else generated into <data dir>/master.key.\n',
    );
    return 0;
  }
  const dataDir = resolve(values['data-dir'] ?? process.env.PARAPH_DATA_DIR ?? './data');
  const currentKey = nonEmpty(process.env.PARAPH_MASTER_KEY);
  const newKey = nonEmpty(process.env.PARAPH_NEW_MASTER_KEY);
  const result = await rotateMasterKey({ dataDir, ...(currentKey ? { currentKey } : {}), ...(newKey ? { newKey } : {}) });
  io.stdout(
    `re-sealed the secrets of ${dataDir}: master key ${result.oldKeyId} -> ${result.newKeyId}\n` +
      (result.keyFile ? `the new key is in ${result.keyFile}\n` : 'now set PARAPH_MASTER_KEY to the new key (PARAPH_NEW_MASTER_KEY) before starting the service\n'),
  );
  return 0;
};

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
