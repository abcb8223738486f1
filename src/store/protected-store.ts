/**
 * Opening the service's store with its master key, and rotating that key (SECURITY.md "The master key"). The key is
 * `PARAPH_MASTER_KEY` or the data directory's `master.key` (generated on first start). A rotation of a file key writes
 * `master.key.new` first, re-seals every secret in one database transaction, then renames the new file over the old
 * one; a start after a crash in between finds whichever file matches the data and finishes the rename, so no crash
 * leaves the data without its key.
 */
import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createMasterKey, loadMasterKey, MASTER_KEY_FILE, parseMasterKey, writeKeyFile, type MasterKey } from './master-key.js';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import { StoreError } from './store.js';

/** The opened store and where its key came from. */
export interface ProtectedStore {
  readonly store: SqliteStore;
  readonly masterKey: MasterKey;
  readonly keySource: 'configured' | 'file';
  /** Whether this open generated the key file (first start without `PARAPH_MASTER_KEY`). */
  readonly keyCreated: boolean;
}

/** Options of {@link openProtectedStore}. */
export interface OpenProtectedStoreOptions extends Omit<SqliteStoreOptions, 'masterKey'> {
  /** The configured master key text (base64 or hex); default: the data directory's key file. */
  readonly configuredKey?: string;
}

/**
 * Opens the store under `dataDir` with its master key.
 *
 * @throws StoreError `MASTER_KEY_MISMATCH` (wrong key), `INVALID_MASTER_KEY` (not 32 bytes).
 */
export async function openProtectedStore(options: OpenProtectedStoreOptions): Promise<ProtectedStore> {
  const { configuredKey, ...storeOptions } = options;
  const loaded = await loadMasterKey({ dataDir: options.dataDir, ...(configuredKey !== undefined ? { configured: configuredKey } : {}) });
  const path = join(options.dataDir, MASTER_KEY_FILE);
  try {
    const store = await openSqliteStore({ ...storeOptions, masterKey: loaded.key });
    if (loaded.pending !== undefined) await rm(`${path}.new`, { force: true });
    return { store, masterKey: loaded.key, keySource: loaded.source, keyCreated: loaded.created };
  } catch (error) {
    if (loaded.pending === undefined || (error as { code?: unknown }).code !== 'MASTER_KEY_MISMATCH') throw error;
    // A rotation committed the data under the new key and stopped before renaming its file.
    const store = await openSqliteStore({ ...storeOptions, masterKey: loaded.pending });
    await rename(`${path}.new`, path);
    return { store, masterKey: loaded.pending, keySource: 'file', keyCreated: false };
  }
}

/** Options of {@link rotateMasterKey}. */
export interface RotateMasterKeyOptions {
  readonly dataDir: string;
  /** The current key, when it is configured rather than in the data directory's file. */
  readonly currentKey?: string;
  /** The new key (base64 or hex). Required when the current key is configured; else generated into the key file. */
  readonly newKey?: string;
}

/** What a rotation did. */
export interface RotationResult {
  readonly oldKeyId: string;
  readonly newKeyId: string;
  /** The key file that now holds the new key (file keys only). */
  readonly keyFile?: string;
}

/**
 * Re-seals every secret of the data directory under a new master key. Run it with the service stopped.
 *
 * @example
 * const { newKeyId } = await rotateMasterKey({ dataDir: './data' });
 */
export async function rotateMasterKey(options: RotateMasterKeyOptions): Promise<RotationResult> {
  if (options.currentKey !== undefined && options.newKey === undefined) {
    throw new StoreError('INVALID_MASTER_KEY', 'PARAPH_MASTER_KEY is set: give the new key in PARAPH_NEW_MASTER_KEY (e.g. `openssl rand -base64 32`); configure it after the rotation.');
  }
  const opened = await openProtectedStore({ dataDir: options.dataDir, ...(options.currentKey !== undefined ? { configuredKey: options.currentKey } : {}) });
  const newBytes = options.newKey !== undefined ? parseMasterKey(options.newKey) : new Uint8Array(randomBytes(32));
  const next = createMasterKey(newBytes);
  const path = join(options.dataDir, MASTER_KEY_FILE);
  try {
    if (opened.keySource === 'file') await writeKeyFile(`${path}.new`, newBytes);
    opened.store.rotateMasterKey(next);
  } finally {
    await opened.store.close();
  }
  if (opened.keySource === 'file') await rename(`${path}.new`, path);
  return { oldKeyId: opened.masterKey.id, newKeyId: next.id, ...(opened.keySource === 'file' ? { keyFile: path } : {}) };
}
