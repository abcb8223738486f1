/**
 * The service on PostgreSQL (decisions.md §11): PARAPH_DATABASE_URL selects the store, PARAPH_MIGRATE=1 migrates on
 * start, two servers on one database serve the same transactions and documents (no local state), the master key
 * must be configured, and a server refuses a database it has not migrated.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

const AUTH = { authorization: 'APIKey pg-user-token-0123456789', application: 'APPKey pg-app-key-0123456789' };
const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
let cluster: PgCluster;
let dataDir: string;

beforeAll(async () => {
  cluster = await startPgCluster();
  dataDir = mkdtempSync(join(tmpdir(), 'paraph-pg-datadir-'));
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function env(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: '0',
    PARAPH_LOG_LEVEL: 'silent',
    PARAPH_DATA_DIR: dataDir,
    PARAPH_DATABASE_URL: url,
    PARAPH_MASTER_KEY: MASTER_KEY,
    PARAPH_USER_TOKEN: 'pg-user-token-0123456789',
    PARAPH_APP_KEY: 'pg-app-key-0123456789',
    PARAPH_POSTBACK_SECRET: 'pg-postback-secret-0123456789',
    ...extra,
  };
}

async function onePagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('contract', { x: 50, y: 700 });
  return doc.save();
}

describe('paraph serve on PostgreSQL', () => {
  it('refuses an unmigrated database and a missing master key with clear messages', async () => {
    const url = await cluster.createDatabase();
    await expect(startServer(loadConfig({ env: env(url) }), { keyKind: 'ecdsa-p256', worker: false })).rejects.toThrow(/run `paraph migrate`/);
    const { PARAPH_MASTER_KEY: _key, ...withoutKey } = env(url, { PARAPH_MIGRATE: '1' });
    await expect(startServer(loadConfig({ env: withoutKey }), { keyKind: 'ecdsa-p256', worker: false })).rejects.toThrow(/PARAPH_MASTER_KEY/);
  }, 60_000);

  it('two servers on one database share transactions and documents, and keep nothing in the data directory', async () => {
    const url = await cluster.createDatabase();
    const servers: RunningServer[] = [];
    try {
      // One after the other: the first start creates the account and the service keys.
      servers.push(await startServer(loadConfig({ env: env(url, { PARAPH_MIGRATE: '1' }) }), { keyKind: 'ecdsa-p256', worker: false }));
      servers.push(await startServer(loadConfig({ env: env(url) }), { keyKind: 'ecdsa-p256', worker: false }));
      const [a, b] = servers as [RunningServer, RunningServer];
      const created = await fetch(`${a.url}/api/transaction`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ Signers: [{ Email: 'signer@example.com' }] }),
      });
      expect(created.status).toBe(200);
      const { Id } = (await created.json()) as { Id: string };
      const pdf = await onePagePdf();
      const upload = await fetch(`${b.url}/api/transaction/${Id}/file/contract.pdf`, {
        method: 'PUT',
        headers: { ...AUTH, 'content-type': 'application/pdf' },
        body: pdf,
      });
      expect(upload.status).toBeLessThan(300);
      const read = await fetch(`${a.url}/api/transaction/${Id}`, { headers: AUTH });
      const tx = (await read.json()) as { Files: Record<string, unknown> };
      expect(Object.keys(tx.Files)).toEqual(['contract.pdf']);
      const download = await fetch(`${a.url}/api/transaction/${Id}/file/contract.pdf`, { headers: AUTH });
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true);
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      for (const server of servers) await server.close();
    }
  }, 60_000);

  it('shares the re-upload guard: with a window of 0 an upload answered on one server never blocks the next on the other', async () => {
    const url = await cluster.createDatabase();
    const servers: RunningServer[] = [];
    try {
      const guard = { PARAPH_FILE_REPLACE_GUARD_MS: '0' };
      servers.push(await startServer(loadConfig({ env: env(url, { PARAPH_MIGRATE: '1', ...guard }) }), { keyKind: 'ecdsa-p256', worker: false }));
      servers.push(await startServer(loadConfig({ env: env(url, guard) }), { keyKind: 'ecdsa-p256', worker: false }));
      const created = await fetch(`${servers[0]!.url}/api/transaction`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{"Seal":true}' });
      expect(created.status).toBe(200);
      const { Id } = (await created.json()) as { Id: string };
      const pdf = await onePagePdf();
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const upload = await fetch(`${servers[i % 2]!.url}/api/transaction/${Id}/file/contract.pdf`, {
          method: 'PUT',
          headers: { ...AUTH, 'content-type': 'application/pdf' },
          body: pdf,
        });
        statuses.push(upload.status);
      }
      expect(statuses).toEqual([201, ...Array.from({ length: 9 }, () => 204)]);
    } finally {
      for (const server of servers) await server.close();
    }
  }, 60_000);
});
