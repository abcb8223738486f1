/**
 * The service on PostgreSQL (docs/design/storage.md#migrations): PARAPH_DATABASE_URL selects the store,
 * PARAPH_MIGRATE=1 migrates on start, two servers on one database serve the same transactions and documents (no local
 * state), the master key must be configured, and a server refuses a database it has not migrated.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { migratePostgres } from '../../src/store/postgres-store.js';
import { POSTGRES_SCHEMA_VERSION } from '../../src/store/postgres-migrations.js';
import { AUTH_HEADERS as AUTH, startTestService, type TestService } from '../helpers/service-harness.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

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

// Never reached: these tests send no mail (PostgreSQL mode needs an SMTP server or a named mail directory).
const NO_MAIL = { PARAPH_SMTP_URL: 'smtp://127.0.0.1:9' };

/** A service in this process on the database `url`, the test account's, with `env` on top. */
function start(url: string, env: Record<string, string> = {}): Promise<TestService> {
  return startTestService({ dataDir, postgres: { url, masterKey: MASTER_KEY }, env: { ...NO_MAIL, ...env } });
}

async function onePagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('contract', { x: 50, y: 700 });
  return doc.save();
}

describe('paraph serve on PostgreSQL', () => {
  it('refuses an unmigrated database and a missing master key with clear messages', async () => {
    const url = await cluster.createDatabase();
    await expect(start(url)).rejects.toThrow(/run `paraph migrate`/);
    await expect(startTestService({ dataDir, env: { PARAPH_DATABASE_URL: url, PARAPH_MIGRATE: '1', ...NO_MAIL } })).rejects.toThrow(/PARAPH_MASTER_KEY/);
    await expect(startTestService({ dataDir, postgres: { url, masterKey: MASTER_KEY }, env: { PARAPH_MIGRATE: '1' } })).rejects.toThrow(/PARAPH_DATABASE_URL: PostgreSQL mode keeps nothing on local disk, so mails need PARAPH_SMTP_URL .*PARAPH_MAIL_DIR/);
  }, 60_000);

  it('two servers on one database share transactions and documents, and keep nothing in the data directory', async () => {
    const url = await cluster.createDatabase();
    const servers: TestService[] = [];
    try {
      // One after the other: the first start creates the account and the service keys.
      servers.push(await start(url, { PARAPH_MIGRATE: '1' }));
      servers.push(await start(url));
      const [a, b] = servers as [TestService, TestService];
      const created = await fetch(`${a.url}/api/transaction`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ Signers: [{ SendSignRequest: false, Email: 'signer@example.com' }] }),
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
      for (const server of servers) await server.stop();
    }
  }, 60_000);

  it('/health reports PostgreSQL and its schema version, 503 while the database is gone, 200 once it is back; never the URL', async () => {
    const url = await cluster.createDatabase(`health_${process.pid}`);
    const server = await start(url, { PARAPH_MIGRATE: '1' });
    try {
      const health = async (): Promise<{ status: number; text: string; json: unknown }> => {
        const response = await fetch(`${server.url}/health`);
        const text = await response.text();
        return { status: response.status, text, json: JSON.parse(text) as unknown };
      };
      const up = await health();
      expect(up.status).toBe(200);
      expect(up.json).toEqual({ Status: 'ok', Database: { Kind: 'postgresql', Status: 'ok', SchemaVersion: POSTGRES_SCHEMA_VERSION }, Workers: 'ok' });

      await cluster.dropDatabase(url);
      const down = await health();
      expect(down.status).toBe(503);
      expect(down.json).toEqual({ Status: 'unavailable', Database: { Kind: 'postgresql', Status: 'unavailable' }, Workers: 'ok' });
      const where = new URL(url);
      for (const secret of [where.host, where.port, where.pathname.slice(1), 'postgres://']) expect(down.text).not.toContain(secret);

      await cluster.createDatabase(`health_${process.pid}`);
      await migratePostgres(url);
      const back = await health();
      expect(back.status).toBe(200);
      expect(back.json).toMatchObject({ Status: 'ok', Database: { Kind: 'postgresql', Status: 'ok' } });
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('two servers starting at the same moment on an empty database end up with the same CAs and account', async () => {
    const url = await cluster.createDatabase();
    const servers: TestService[] = [];
    try {
      const starts = await Promise.allSettled([0, 1].map(() => start(url, { PARAPH_MIGRATE: '1' })));
      for (const start of starts) if (start.status === 'fulfilled') servers.push(start.value);
      expect(starts.map((start) => (start.status === 'rejected' ? String(start.reason) : 'started'))).toEqual(['started', 'started']);
      // A later start reads what the store kept: it must be what both running servers serve.
      servers.push(await start(url));
      for (const path of ['/api/ca/signing.pem', '/api/ca/seal.pem']) {
        const pems = await Promise.all(servers.map(async (server) => (await fetch(`${server.url}${path}`)).text()));
        expect(pems[0]).toMatch(/^-----BEGIN CERTIFICATE-----/);
        expect(new Set(pems).size, path).toBe(1);
      }
      const sealChains = servers.map((server) => Buffer.from(server.server.service.keys.sealSigner.certificateChain[0] ?? new Uint8Array()).toString('base64'));
      expect(new Set(sealChains).size).toBe(1);
      for (const server of servers) {
        const listed = await fetch(`${server.url}/api/transaction`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ Seal: true }) });
        expect(listed.status).toBe(200);
      }
    } finally {
      for (const server of servers) await server.stop();
    }
  }, 60_000);

  it('shares the re-upload guard: with a window of 0 an upload answered on one server never blocks the next on the other', async () => {
    const url = await cluster.createDatabase();
    const servers: TestService[] = [];
    try {
      const guard = { PARAPH_FILE_REPLACE_GUARD_MS: '0' };
      servers.push(await start(url, { PARAPH_MIGRATE: '1', ...guard }));
      servers.push(await start(url, guard));
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
      for (const server of servers) await server.stop();
    }
  }, 60_000);

  it('with PARAPH_MAIL_DIR instead of SMTP, mails are written to that directory, nothing to the data directory', async () => {
    const url = await cluster.createDatabase();
    const mailDir = mkdtempSync(join(tmpdir(), 'paraph-pg-mail-'));
    const service = await startTestService({ dataDir, postgres: { url, masterKey: MASTER_KEY }, env: { PARAPH_MIGRATE: '1', PARAPH_MAIL_DIR: mailDir } });
    try {
      const created = await fetch(`${service.url}/api/transaction`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ Signers: [{ Email: 'signer@example.com', SendSignRequest: true, SignRequestMessage: 'Please sign' }] }),
      });
      const createdText = await created.text();
      expect(created.status, createdText).toBe(200);
      const { Id } = JSON.parse(createdText) as { Id: string };
      const upload = await fetch(`${service.url}/api/transaction/${Id}/file/contract.pdf`, { method: 'PUT', headers: { ...AUTH, 'content-type': 'application/pdf' }, body: await onePagePdf() });
      expect(upload.status).toBeLessThan(300);
      expect((await fetch(`${service.url}/api/transaction/${Id}/start`, { method: 'PUT', headers: AUTH })).status).toBe(204);
      expect(await service.server.events.drain()).toMatchObject({ delivered: 1 });
      expect(readdirSync(mailDir).filter((f) => f.endsWith('.eml'))).toHaveLength(1);
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      await service.stop();
      rmSync(mailDir, { recursive: true, force: true });
    }
  }, 60_000);
});
