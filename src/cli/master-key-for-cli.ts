/**
 * The master key a CLI command that opens or seals service secrets uses: PARAPH_MASTER_KEY when set, else the
 * `master.key` file of the data directory (`--data-dir`, else PARAPH_DATA_DIR, else ./data), as `paraph serve` does.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createMasterKey, MASTER_KEY_FILE, parseMasterKey, type MasterKey } from '../store/master-key.js';
import { UsageError } from './common.js';

/**
 * Reads the master key for a command run on the data directory `dataDir` (the `--data-dir` option; undefined: the
 * environment's or ./data).
 *
 * @throws UsageError (exit 2) when neither the variable nor the key file is there.
 */
export async function readMasterKeyForCli(dataDir: string | undefined): Promise<MasterKey> {
  const configured = process.env.PARAPH_MASTER_KEY?.trim();
  if (configured !== undefined && configured !== '') return createMasterKey(parseMasterKey(configured));
  const directory = resolve(dataDir ?? process.env.PARAPH_DATA_DIR ?? './data');
  let keyText: string;
  try {
    keyText = await readFile(join(directory, MASTER_KEY_FILE), 'utf8');
  } catch {
    throw new UsageError(
      `no master key: set PARAPH_MASTER_KEY or name the data directory holding ${MASTER_KEY_FILE} (--data-dir); ` +
        'paraph serve creates one in its data directory on first start',
    );
  }
  return createMasterKey(parseMasterKey(keyText));
}
