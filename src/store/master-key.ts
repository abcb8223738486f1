/**
 * The master key that protects secrets at rest (SECURITY.md "Data at rest"): the CA and seal
 * private keys and the SignUrl tokens are stored as AES-256-GCM ciphertexts under a key derived (HKDF-SHA-256) from
 * a 32-byte master key. The master key comes from `PARAPH_MASTER_KEY` (base64 or hex); without it a key is generated
 * on first start into `<data dir>/master.key` (mode 0600), so a zero-configuration start still works, and a copy of
 * the database alone reveals nothing. A data directory remembers a check value, so a wrong key is a clear start-up
 * error instead of garbage. A sealed value is the text `pmk1.<key id>.<base64url(iv | ciphertext | tag)>`; the
 * rotation (rotate-master-key.ts) re-seals every such text.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from './store.js';

/** Prefix of every sealed value. */
const SEALED_PREFIX = 'pmk1.';
/** Name of the generated key file in the data directory. */
export const MASTER_KEY_FILE = 'master.key';

/** Seals and opens secrets; `purpose` is bound into each ciphertext (a token cannot be swapped for a private key). */
export interface MasterKey {
  /** Short public fingerprint of the key (not secret), shown in messages. */
  readonly id: string;
  seal(plain: string, purpose: string): string;
  /** @throws StoreError `MASTER_KEY_MISMATCH` when the value was sealed under another key or was altered. */
  open(sealed: string, purpose: string): string;
  /**
   * A keyed hash (HMAC-SHA-256, hex) of `text` under a key derived from the master key for `purpose`: for short
   * secrets that are checked, never read back (one-time codes), whose plain hash anyone could reverse by trying them all.
   */
  mac(text: string, purpose: string): string;
}

/** Where a loaded key came from. */
export interface LoadedMasterKey {
  readonly key: MasterKey;
  readonly source: 'configured' | 'file';
  /** Whether this call generated the key file. */
  readonly created: boolean;
  readonly path?: string;
}

/**
 * Reads a master key given as 32 bytes in base64, base64url or hex.
 *
 * @throws StoreError `INVALID_MASTER_KEY`.
 */
export function parseMasterKey(text: string): Uint8Array {
  const trimmed = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(trimmed) && !/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed))) {
    throw new StoreError('INVALID_MASTER_KEY', 'The master key must be 32 bytes written as 64 hex digits or 44 base64 characters (generate one with `openssl rand -base64 32`).');
  }
  return new Uint8Array(bytes);
}

/** How many opened secrets a key remembers (oldest forgotten first). */
const OPENED_CACHE_ENTRIES = 10_000;

/** A {@link MasterKey} for 32 key bytes. */
export function createMasterKey(bytes: Uint8Array): MasterKey {
  const aesKey = Buffer.from(hkdfSync('sha256', bytes, Buffer.alloc(0), 'paraph at-rest encryption v1', 32));
  const id = createHash('sha256').update('paraph master key id').update(bytes).digest('hex').slice(0, 12);
  const macKey = Buffer.from(hkdfSync('sha256', bytes, Buffer.alloc(0), 'paraph keyed hashes v1', 32));
  const opened = new Map<string, string>();
  return {
    id,
    mac(text, purpose) {
      return createHmac('sha256', macKey).update(purpose, 'utf8').update('\u0000').update(text, 'utf8').digest('hex');
    },
    seal(plain, purpose) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', aesKey, iv);
      cipher.setAAD(Buffer.from(purpose, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${SEALED_PREFIX}${id}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
    },
    open(sealed, purpose) {
      // Every read of a transaction or account opens its secrets (each GET: the account's, every signer's token);
      // a sealed text is unique (random IV) and immutable, so what it opened to under a purpose can be remembered.
      const cacheKey = `${purpose}\u0000${sealed}`;
      const cached = opened.get(cacheKey);
      if (cached !== undefined) return cached;
      const [, keyId, payload] = /^pmk1\.([0-9a-f]+)\.([A-Za-z0-9_-]+)$/.exec(sealed) ?? [];
      if (keyId === undefined || payload === undefined) throw new StoreError('MASTER_KEY_MISMATCH', 'A stored secret is not a sealed value.', { origin: 'internal' });
      if (keyId !== id) throw mismatch(id, keyId);
      const raw = Buffer.from(payload, 'base64url');
      let plain: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', aesKey, raw.subarray(0, 12));
        decipher.setAAD(Buffer.from(purpose, 'utf8'));
        decipher.setAuthTag(raw.subarray(raw.length - 16));
        plain = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        throw mismatch(id, keyId);
      }
      if (opened.size >= OPENED_CACHE_ENTRIES) opened.delete(opened.keys().next().value as string);
      opened.set(cacheKey, plain);
      return plain;
    },
  };
}

/** Whether `value` is a sealed text. */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(SEALED_PREFIX);
}

const CHECK_PLAIN = 'paraph master key check';
const CHECK_PURPOSE = 'master-key-check';

/** A check value for `key`, kept with the data it protects. */
export function masterKeyCheck(key: MasterKey): string {
  return key.seal(CHECK_PLAIN, CHECK_PURPOSE);
}

/**
 * Whether `check` was made with `key`.
 */
export function matchesCheck(key: MasterKey, check: string): boolean {
  try {
    const plain = key.open(check, CHECK_PURPOSE);
    return timingSafeEqual(Buffer.from(plain), Buffer.from(CHECK_PLAIN));
  } catch {
    return false;
  }
}

/**
 * The master key of a data directory: the configured one, else `<dataDir>/master.key`, generated (0600) when missing.
 * A `master.key.new` left by an interrupted rotation is returned as `pending` for the caller to try.
 */
export async function loadMasterKey(options: { dataDir: string; configured?: string }): Promise<LoadedMasterKey & { pending?: MasterKey }> {
  if (options.configured !== undefined) return { key: createMasterKey(parseMasterKey(options.configured)), source: 'configured', created: false };
  const path = join(options.dataDir, MASTER_KEY_FILE);
  const pending = await readKeyFile(`${path}.new`);
  const existing = await readKeyFile(path);
  if (existing !== undefined) return { key: existing, source: 'file', created: false, path, ...(pending ? { pending } : {}) };
  const bytes = randomBytes(32);
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  await writeKeyFile(path, bytes);
  return { key: createMasterKey(bytes), source: 'file', created: true, path };
}

/** Writes a key file (0600) durably: temporary file, fsync, rename. */
export async function writeKeyFile(path: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(`${Buffer.from(bytes).toString('base64')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
}

async function readKeyFile(path: string): Promise<MasterKey | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
  return createMasterKey(parseMasterKey(text));
}

function mismatch(expected: string, found: string): StoreError {
  return new StoreError(
    'MASTER_KEY_MISMATCH',
    `The master key (id ${expected}) is not the key this data directory's secrets were encrypted with (id ${found}). ` +
      'Start with the right PARAPH_MASTER_KEY (or the data directory\'s master.key); to change keys use `paraph rotate-master-key`.',
    { origin: 'internal' },
  );
}
