/**
 * The master key and the sealed secrets of the store: key formats, sealing bound to a purpose,
 * a wrong key refused at open, tokens never in the database file, the rotation and its crash recovery, and the
 * store's refused-upload and quota queries.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMasterKey, parseMasterKey, writeKeyFile } from '../../src/store/master-key.js';
import { openProtectedStore, rotateMasterKey } from '../../src/store/protected-store.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { tempDataDir } from '../helpers/service-harness.js';
import { makeTransaction } from './transaction-fixtures.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function dir(): Promise<string> {
  const d = await tempDataDir();
  dirs.push(d);
  return d;
}

function account(id: string) {
  return { Id: id, Name: id, UserTokenHash: `u-${id}`, AppKeyHash: `a-${id}`, PostbackSecret: 'pb-secret', CreatedDateTime: '2026-11-21T10:00:00.000+00:00' };
}

describe('master key', () => {
  it('reads 32-byte keys in hex and base64 and refuses anything else', () => {
    const bytes = randomBytes(32);
    expect(parseMasterKey(bytes.toString('hex'))).toEqual(new Uint8Array(bytes));
    expect(parseMasterKey(bytes.toString('base64'))).toEqual(new Uint8Array(bytes));
    expect(parseMasterKey(bytes.toString('base64url'))).toEqual(new Uint8Array(bytes));
    for (const bad of ['', 'short', randomBytes(16).toString('base64'), randomBytes(33).toString('hex')]) {
      expect(() => parseMasterKey(bad)).toThrow(/32 bytes/);
    }
  });

  it('seals to a value only the same key and purpose open', () => {
    const key = createMasterKey(randomBytes(32));
    const sealed = key.seal('secret token', 'sign-token');
    expect(sealed).toMatch(/^pmk1\.[0-9a-f]+\./);
    expect(sealed).not.toContain('secret');
    expect(key.open(sealed, 'sign-token')).toBe('secret token');
    expect(() => key.open(sealed, 'postback-secret')).toThrow();
    expect(() => createMasterKey(randomBytes(32)).open(sealed, 'sign-token')).toThrow(/not the key/);
  });

  it('opens a value again (remembered) only under its own purpose, and a tampered value never', () => {
    const key = createMasterKey(randomBytes(32));
    const sealed = key.seal('secret token', 'sign-token');
    for (let i = 0; i < 3; i++) expect(key.open(sealed, 'sign-token')).toBe('secret token');
    expect(() => key.open(sealed, 'postback-secret')).toThrow();
    const last = sealed.at(-2) === 'A' ? 'B' : 'A';
    expect(() => key.open(`${sealed.slice(0, -2)}${last}${sealed.at(-1)}`, 'sign-token')).toThrow();
    // More values than the key remembers: the first ones still open (decrypted again).
    const many = Array.from({ length: 10_050 }, (_, i) => key.seal(`t${i}`, 'sign-token'));
    for (const value of many) key.open(value, 'sign-token');
    expect(key.open(many[0]!, 'sign-token')).toBe('t0');
    expect(key.open(sealed, 'sign-token')).toBe('secret token');
  });

  it('keeps tokens out of the database file, refuses a wrong key, rotates, and recovers an interrupted rotation', async () => {
    const dataDir = await dir();
    const first = await openProtectedStore({ dataDir });
    expect(first.keyCreated).toBe(true);
    expect((await stat(join(dataDir, 'master.key'))).mode & 0o777).toBe(0o600);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    await first.store.createAccount(account('acc-1'));
    const tx = makeTransaction(undefined, { id: 'tx-seal' });
    await first.store.commit({ transaction: tx, expectedVersion: 0 });
    const token = tx.Signers[0]?.SignToken as string;
    expect((await first.store.getTransaction('tx-seal'))?.Signers[0]?.SignToken).toBe(token);
    await first.store.close();
    for (const file of ['paraph.db', 'paraph.db-wal']) {
      const bytes = await readFile(join(dataDir, file)).catch(() => Buffer.alloc(0));
      expect(bytes.includes(Buffer.from(token))).toBe(false);
    }

    await expect(openProtectedStore({ dataDir, configuredKey: randomBytes(32).toString('base64') })).rejects.toMatchObject({ code: 'MASTER_KEY_MISMATCH', origin: 'input' });

    const oldKey = await readFile(join(dataDir, 'master.key'), 'utf8');
    const rotated = await rotateMasterKey({ dataDir });
    expect(rotated.newKeyId).not.toBe(rotated.oldKeyId);
    const after = await openProtectedStore({ dataDir });
    expect((await after.store.getTransaction('tx-seal'))?.Signers[0]?.SignToken).toBe(token);
    await after.store.close();
    await expect(openProtectedStore({ dataDir, configuredKey: oldKey })).rejects.toMatchObject({ code: 'MASTER_KEY_MISMATCH' });

    // A rotation that committed and died before renaming: the data opens with master.key.new, which becomes the key.
    const current = await readFile(join(dataDir, 'master.key'), 'utf8');
    const next = randomBytes(32);
    const store = await openSqliteStore({ dataDir, masterKey: createMasterKey(parseMasterKey(current)) });
    store.rotateMasterKey(createMasterKey(next));
    await store.close();
    await writeKeyFile(join(dataDir, 'master.key.new'), next);
    const recovered = await openProtectedStore({ dataDir });
    expect((await recovered.store.getTransaction('tx-seal'))?.Signers[0]?.SignToken).toBe(token);
    await recovered.store.close();
    expect(parseMasterKey(await readFile(join(dataDir, 'master.key'), 'utf8'))).toEqual(new Uint8Array(next));
  });

  it('a configured key needs the new key to rotate', async () => {
    const dataDir = await dir();
    await expect(rotateMasterKey({ dataDir, currentKey: randomBytes(32).toString('hex') })).rejects.toThrow(/PARAPH_NEW_MASTER_KEY/);
  });

  it('discards an unreferenced blob at once, keeps a referenced one, and counts an account\'s uploads', async () => {
    const dataDir = await dir();
    const store = await openSqliteStore({ dataDir, masterKey: createMasterKey(randomBytes(32)) });
    const kept = await store.blobs.write(new TextEncoder().encode('kept pdf'));
    const refused = await store.blobs.write(new TextEncoder().encode('refused pdf'));
    await store.createAccount(account('acc-q'));
    const tx = makeTransaction({ Seal: true }, { id: 'tx-blobs', accountId: 'acc-q' });
    tx.Files.push({ FileId: 'a.pdf', Original: { sha256: kept.sha256, size: kept.size, pages: 1 } } as (typeof tx.Files)[number]);
    await store.commit({ transaction: tx, expectedVersion: 0 });
    expect(await store.discardBlob(refused.sha256)).toBe(true);
    expect(await store.blobs.exists(refused.sha256)).toBe(false);
    expect(await store.discardBlob(kept.sha256)).toBe(false);
    expect(await store.blobs.exists(kept.sha256)).toBe(true);
    expect((await stat(store.blobs.pathOf(kept.sha256))).mode & 0o777).toBe(0o600);
    expect(await store.accountStorageBytes('acc-q')).toBe(kept.size);
    expect(await store.accountStorageBytes('other')).toBe(0);
    await store.close();
  });
});
