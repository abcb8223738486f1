/**
 * Starting the service (docs/design/events.md#checksum, docs/design/storage.md#running-the-service): a postback secret
 * is never empty — generated and returned with new credentials, PARAPH_POSTBACK_SECRET honoured alone (also on an
 * existing data directory, which is how it is rotated), generated for an old account that had none;
 * `verifyPostback` refuses an empty or missing secret; with PORT=0 the links name the real port; with a qualified
 * seal `/api/ca/seal.pem` serves that seal's trust anchor.
 */
import { X509Certificate } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createService } from '../src/create-service.js';
import { verifyPostback } from '../src/events/verify-postback.js';
import { startServer } from '../src/server.js';
import { openProtectedStore } from '../src/store/protected-store.js';
import { openSqliteStore } from '../src/store/sqlite-store.js';
import { POSTBACK_SECRET, startTestService, tempDataDir } from '../src/testing/start-test-service.js';
import { P12_PASSWORD, PKI_DIR } from '../src/testing/test-pki.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await tempDataDir();
  dirs.push(dir);
  return dir;
}

/** The accounts' postback secrets as the service reads them (stored encrypted under the data directory's master key). */
async function storedSecrets(dir: string): Promise<(string | undefined)[]> {
  const { store } = await openProtectedStore({ dataDir: dir });
  try {
    return (await store.listAccounts()).map((a) => a.PostbackSecret);
  } finally {
    await store.close();
  }
}

const start = async (env: Record<string, string>) => {
  const service = await createService(loadConfig({ env }), { keyKind: 'ecdsa-p256', worker: false });
  await service.close();
  return service;
};

describe('postback secrets', () => {
  it('a zero-configuration start generates one and returns it with the new credentials', async () => {
    const dir = await dataDir();
    const first = await start({ PARAPH_DATA_DIR: dir });
    expect(first.createdCredentials?.postbackSecret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await storedSecrets(dir)).toEqual([first.createdCredentials?.postbackSecret]);
    const second = await start({ PARAPH_DATA_DIR: dir });
    expect(second.createdCredentials).toBeUndefined();
    expect(second.generatedPostbackSecret).toBeUndefined();
  }, 60_000);

  it('PARAPH_POSTBACK_SECRET alone is honoured on a fresh data directory and rotates the secret of an existing one', async () => {
    const dir = await dataDir();
    const fresh = await start({ PARAPH_DATA_DIR: dir, PARAPH_POSTBACK_SECRET: 'first-secret' });
    expect(fresh.createdCredentials?.postbackSecret).toBe('first-secret');
    expect(await storedSecrets(dir)).toEqual(['first-secret']);
    const rotated = await start({ PARAPH_DATA_DIR: dir, PARAPH_POSTBACK_SECRET: 'second-secret' });
    expect(rotated.rotatedPostbackSecret).toBe(true);
    expect(await storedSecrets(dir)).toEqual(['second-secret']);
    // A rotated secret is stored encrypted like a new one, never in clear.
    const raw = await openSqliteStore({ dataDir: dir });
    try {
      expect((await raw.listAccounts()).map((a) => a.PostbackSecret)).toEqual([expect.stringMatching(/^pmk1\./)]);
    } finally {
      await raw.close();
    }
    const unchanged = await start({ PARAPH_DATA_DIR: dir });
    expect(unchanged.rotatedPostbackSecret).toBe(false);
    expect(await storedSecrets(dir)).toEqual(['second-secret']);
  }, 60_000);

  it('with configured keys too, and an account of an older version without a secret gets a generated one', async () => {
    const dir = await dataDir();
    const store = await openSqliteStore({ dataDir: dir });
    await store.createAccount({ Id: 'old', Name: 'bootstrap', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'a'.repeat(64), CreatedDateTime: '2026-01-01T00:00:00Z' });
    await store.close();
    const upgraded = await start({ PARAPH_DATA_DIR: dir });
    expect(upgraded.generatedPostbackSecret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await storedSecrets(dir)).toEqual([upgraded.generatedPostbackSecret]);

    const other = await dataDir();
    const keyed = await start({ PARAPH_DATA_DIR: other, PARAPH_USER_TOKEN: 'token-1', PARAPH_APP_KEY: 'key-1' });
    expect(keyed.createdCredentials).toBeUndefined();
    expect(keyed.generatedPostbackSecret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const keyedRotated = await start({ PARAPH_DATA_DIR: other, PARAPH_USER_TOKEN: 'token-1', PARAPH_APP_KEY: 'key-1', PARAPH_POSTBACK_SECRET: 'chosen' });
    expect(keyedRotated.rotatedPostbackSecret).toBe(true);
    expect(await storedSecrets(other)).toEqual(['chosen']);
  }, 60_000);

  it('startTestService signs with a non-empty secret by default', async () => {
    const service = await startTestService();
    try {
      expect(POSTBACK_SECRET).not.toBe('');
      expect(await storedSecrets(service.dataDir)).toEqual([POSTBACK_SECRET]);
    } finally {
      await service.dispose();
    }
  }, 60_000);

  it('verifyPostback refuses an empty or missing secret with an error, not a verdict', () => {
    for (const secret of ['', undefined, null]) {
      expect(() => verifyPostback('{"Id":"x","Status":30}', { 'x-paraph-signature': 'sha256=00' }, secret as unknown as string)).toThrow(
        expect.objectContaining({ code: 'POSTBACK_SECRET_MISSING' }),
      );
    }
  });
});

describe('startServer', () => {
  it('with PORT=0 and no public URL, SignUrl and file links name the port it listens on', async () => {
    const server = await startServer(loadConfig({ env: { PARAPH_DATA_DIR: await dataDir(), PORT: '0', PARAPH_USER_TOKEN: 'u-token', PARAPH_APP_KEY: 'a-key' } }), {
      keyKind: 'ecdsa-p256',
      logger: false,
    });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
      const response = await fetch(`${server.url}/api/transaction`, {
        method: 'POST',
        headers: { authorization: 'APIKey u-token', application: 'APPKey a-key', 'content-type': 'application/json' },
        body: JSON.stringify({ Signers: [{ SendSignRequest: false, Email: 'a@example.com' }] }),
      });
      const created = (await response.json()) as { Signers: { SignUrl: string }[] };
      expect(created.Signers[0]?.SignUrl.startsWith(`${server.url}/sign/`)).toBe(true);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("with a qualified seal, /api/ca/seal.pem serves the anchor of that seal's chain, not the unused seal CA", async () => {
    const server = await startServer(
      loadConfig({ env: { PARAPH_DATA_DIR: await dataDir(), PORT: '0', PARAPH_QSEAL_P12: join(PKI_DIR, 'seal.p12'), PARAPH_QSEAL_P12_PASSWORD: P12_PASSWORD } }),
      { keyKind: 'ecdsa-p256', logger: false },
    );
    try {
      const served = new X509Certificate(await (await fetch(`${server.url}/api/ca/seal.pem`)).text());
      const root = new X509Certificate(await readFile(join(PKI_DIR, 'root-ca.pem')));
      expect(served.fingerprint256).toBe(root.fingerprint256);
    } finally {
      await server.close();
    }
  }, 60_000);
});
