/**
 * Picks the service's store (docs/design/storage.md#scale-out): SQLite under the data directory by default, PostgreSQL
 * when a `postgres://` URL is configured. In PostgreSQL mode nothing is read from or written to local disk, so the
 * master key must be configured (PARAPH_MASTER_KEY): a key file on one machine would not reach the others.
 */
import { createMasterKey, parseMasterKey } from './master-key.js';
import { openProtectedStore, type ProtectedStore } from './protected-store.js';
import type { SqliteDriverName } from './sqlite-driver.js';
import { StoreError, type Store } from './store.js';

export interface OpenServiceStoreOptions {
  readonly dataDir: string;
  /** The embedded store's SQLite driver (sqlite-driver.ts). */
  readonly driver?: SqliteDriverName;
  readonly configuredKey?: string;
  readonly databaseUrl?: string;
  /** Apply missing PostgreSQL migrations first (PARAPH_MIGRATE=1). */
  readonly migrate?: boolean;
}

export type ServiceStore = Omit<ProtectedStore, 'store'> & { readonly store: Store };

/**
 * @throws StoreError `MASTER_KEY_REQUIRED` in PostgreSQL mode without a configured key, `SCHEMA_VERSION_UNKNOWN` on a
 *   schema this code does not know (postgres-store.ts).
 */
export async function openServiceStore(options: OpenServiceStoreOptions): Promise<ServiceStore> {
  if (options.databaseUrl === undefined) {
    return openProtectedStore({
      dataDir: options.dataDir,
      ...(options.driver !== undefined ? { driver: options.driver } : {}),
      ...(options.configuredKey !== undefined ? { configuredKey: options.configuredKey } : {}),
    });
  }
  if (options.configuredKey === undefined) {
    throw new StoreError(
      'MASTER_KEY_REQUIRED',
      'With PARAPH_DATABASE_URL the master key must be configured (PARAPH_MASTER_KEY, 32 bytes base64 or hex): every process needs the same key and none keeps a key file.',
    );
  }
  const masterKey = createMasterKey(parseMasterKey(options.configuredKey));
  // Loaded only in PostgreSQL mode: the embedded default never loads the pg driver.
  const { openPostgresStore } = await import('./postgres-store.js');
  const store = await openPostgresStore({ url: options.databaseUrl, masterKey, ...(options.migrate === true ? { migrate: true } : {}) });
  return { store, masterKey, keySource: 'configured', keyCreated: false };
}
