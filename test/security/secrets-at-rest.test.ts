/**
 * Keys and tokens at rest, against a real `paraph serve`. The data directory is 0700 and every
 * file in it 0600; no file holds a SignUrl token, a private key or the postback secret in clear, yet SignUrl is
 * shown again by later GETs (also after a restart); a zero-config start generates and keeps a master key file and
 * says so; a wrong `PARAPH_MASTER_KEY` stops the start with a clear message; `paraph rotate-master-key` re-seals
 * everything under a new key; a database of the previous version (tokens and keys in clear) is migrated.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureServiceKeys } from '../../src/service/keys/service-keys.js';
import { sha256Hex } from '../../src/service/context.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { APP_KEY, makePdf, runCli, type ServeProcess, spawnServe, tempDataDir, USER_TOKEN } from '../helpers/service-harness.js';
import { makeTransaction } from '../store/transaction-fixtures.js';
import { TEST_NOW } from '../helpers/test-now.js';

const POSTBACK_SECRET = 'postback-secret-that-must-not-be-stored-in-clear';
const dirs: string[] = [];
const served: ServeProcess[] = [];
afterAll(async () => {
  for (const s of served) await s.stop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

/** Every file of the data directory that contains `needle` (bytes as written, UTF-8). */
async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const file of await filesUnder(dir)) if ((await readFile(file)).includes(Buffer.from(needle, 'utf8'))) hits.push(file);
  return hits;
}

/** A `paraph serve` that must not start: its exit code and output. */
async function refusedStart(dataDir: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const serve = await spawnServe({ zeroConfig: true, dataDir, port: 0, env, until: 'exit' });
  return { code: await serve.exited, out: serve.output() };
}

const tokenOf = (signUrl: string): string => signUrl.split('/sign/')[1] as string;

describe('secrets at rest', () => {
  it('0700/0600, nothing secret in clear, SignUrl shown again, wrong key refused, rotation, restart', async () => {
    const dataDir = await tempDataDir();
    dirs.push(dataDir);
    const env = { PARAPH_POSTBACK_SECRET: POSTBACK_SECRET };
    const serve = await spawnServe({ dataDir, env });
    served.push(serve);
    expect(serve.output()).toMatch(/Generated a master key \(id [0-9a-f]+\) in .*master\.key/);

    const created = await serve.call('POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'signer@example.com' }] } });
    expect(created.status, created.text).toBe(200);
    const id = created.json.Id as string;
    const signUrl = created.json.Signers[0].SignUrl as string;
    const pdf = await makePdf([['Contract']]);
    expect((await serve.call('PUT', `/api/transaction/${id}/file/a.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
    expect((await serve.call('GET', `/api/transaction/${id}`)).json.Signers[0].SignUrl).toBe(signUrl);

    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    for (const file of await filesUnder(dataDir)) expect([file, (await stat(file)).mode & 0o777]).toEqual([file, 0o600]);
    expect(await filesContaining(dataDir, tokenOf(signUrl))).toEqual([]);
    expect(await filesContaining(dataDir, 'PRIVATE KEY')).toEqual([]);
    expect(await filesContaining(dataDir, POSTBACK_SECRET)).toEqual([]);
    expect(await serve.stop()).toBe(0);

    // A wrong key: a clear start-up error, exit code 2, nothing served.
    const wrong = await refusedStart(dataDir, { PARAPH_DATA_DIR: dataDir, PARAPH_MASTER_KEY: randomBytes(32).toString('base64') });
    expect(wrong.code).toBe(2);
    expect(wrong.out).toContain('is not the key this data directory');
    expect(wrong.out).toContain('rotate-master-key');

    // Rotation: a new key file, the same data readable, the old key no longer.
    const oldKey = await readFile(join(dataDir, 'master.key'), 'utf8');
    const rotated = await runCli(['rotate-master-key', '--data-dir', dataDir]);
    expect(rotated.code, rotated.out).toBe(0);
    const newKey = await readFile(join(dataDir, 'master.key'), 'utf8');
    expect(newKey).not.toBe(oldKey);
    expect((await stat(join(dataDir, 'master.key'))).mode & 0o777).toBe(0o600);
    const withOld = await refusedStart(dataDir, { PARAPH_DATA_DIR: dataDir, PARAPH_MASTER_KEY: oldKey.trim() });
    expect(withOld.code).toBe(2);

    const again = await spawnServe({ dataDir, env });
    served.push(again);
    expect(again.output()).not.toContain('Generated a master key');
    // The port (and so the public URL) differs after the restart; the token is the same.
    expect(tokenOf((await again.call('GET', `/api/transaction/${id}`)).json.Signers[0].SignUrl as string)).toBe(tokenOf(signUrl));
    expect((await again.call('GET', `/api/signer/${tokenOf(signUrl)}`, { auth: false })).status).toBe(200);
    expect(await filesContaining(dataDir, tokenOf(signUrl))).toEqual([]);
    expect(await again.stop()).toBe(0);
  }, 240_000);

  it('a configured PARAPH_MASTER_KEY is used and no key file is written', async () => {
    const dataDir = await tempDataDir();
    dirs.push(dataDir);
    const key = randomBytes(32).toString('hex');
    const serve = await spawnServe({ dataDir, env: { PARAPH_MASTER_KEY: key } });
    served.push(serve);
    expect(serve.output()).not.toContain('Generated a master key');
    expect(await filesUnder(dataDir)).not.toContain(join(dataDir, 'master.key'));
    expect(await serve.stop()).toBe(0);
  }, 120_000);

  it('migrates a database of the previous version: clear tokens, keys and postback secret become sealed', async () => {
    const dataDir = await tempDataDir();
    dirs.push(dataDir);
    // The previous version: no master key, everything in clear.
    const old = await openSqliteStore({ dataDir });
    await old.createAccount({
      Id: 'acc-1',
      Name: 'bootstrap',
      UserTokenHash: sha256Hex(USER_TOKEN),
      AppKeyHash: sha256Hex(APP_KEY),
      PostbackSecret: POSTBACK_SECRET,
      CreatedDateTime: '2026-11-21T10:00:00.000+00:00',
    });
    await ensureServiceKeys({ store: old, now: new Date(TEST_NOW), organizationName: 'Old Org', keyKind: 'ecdsa-p256' });
    // Ids are UUIDs, as the service creates them (the response contract checks the format).
    const tx = makeTransaction(undefined, { id: '0b6f1c2e-6d1a-4a57-9a43-3f7e2d1c0b5a', accountId: 'acc-1' });
    await old.commit({ transaction: tx, expectedVersion: 0 });
    await old.close();
    const token = tx.Signers[0]?.SignToken as string;
    expect(await filesContaining(dataDir, token)).not.toEqual([]);

    const serve = await spawnServe({ dataDir });
    served.push(serve);
    const got = await serve.call('GET', `/api/transaction/${tx.Id}`);
    expect(got.status, got.text).toBe(200);
    expect(got.json.Signers[0].SignUrl).toMatch(new RegExp(`/sign/${token}$`));
    expect(await serve.stop()).toBe(0);
    expect(await filesContaining(dataDir, token)).toEqual([]);
    expect(await filesContaining(dataDir, 'PRIVATE KEY')).toEqual([]);
    expect(await filesContaining(dataDir, POSTBACK_SECRET)).toEqual([]);
    for (const file of await filesUnder(dataDir)) expect([file, (await stat(file)).mode & 0o777]).toEqual([file, 0o600]);
  }, 180_000);
});
