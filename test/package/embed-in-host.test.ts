/**
 * Embedding the service: a host fastify app with its own routes mounts paraph under a prefix
 * with `paraphPlugin`; paraph's API works there, logs through the host's logger, keeps its validation and error
 * format to itself, and its workers run with the host (a postback arrives, signed with the configured secret) and
 * stop when the host closes.
 */
import { readFile, rm } from 'node:fs/promises';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type ParaphService } from '../../src/create-service.js';
import { loadConfig } from '../../src/config.js';
import { verifyPostback } from '../../src/events/verify-postback.js';
import { paraphPlugin } from '../../src/paraph-plugin.js';
import { startPostbackReceiver, type PostbackReceiver } from '../../src/testing/start-postback-receiver.js';
import { APP_KEY, AUTH_HEADERS, digestHeader, freePort, tempDataDir, USER_TOKEN } from '../../src/testing/start-test-service.js';

const SECRET = 'host-postback-secret';
const logLines: Record<string, unknown>[] = [];
let host: FastifyInstance;
let service: ParaphService;
let receiver: PostbackReceiver;
let base: string;
let dataDir: string;

beforeAll(async () => {
  receiver = await startPostbackReceiver();
  dataDir = await tempDataDir();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    env: {
      PARAPH_DATA_DIR: dataDir,
      PARAPH_PUBLIC_URL: `${base}/paraph`,
      PARAPH_USER_TOKEN: USER_TOKEN,
      PARAPH_APP_KEY: APP_KEY,
      PARAPH_POSTBACK_SECRET: SECRET,
      PARAPH_FILE_REPLACE_GUARD_MS: '0',
      // The postback receiver of this test listens on loopback, which production refuses (SECURITY.md).
      PARAPH_POSTBACK_ALLOW_HTTP: 'true',
      PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.0/8',
    },
  });
  service = await createService(config, { keyKind: 'ecdsa-p256' });
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  host = Fastify({ logger: { level: 'info', stream } });
  // The host's own routes, one with fastify's default type coercion.
  host.get('/hello', async () => ({ hello: 'host' }));
  host.get<{ Querystring: { n: number } }>('/double', { schema: { querystring: { type: 'object', properties: { n: { type: 'number' } } } } }, async (request) => ({
    doubled: request.query.n * 2,
  }));
  await host.register(paraphPlugin, { service, prefix: '/paraph' });
  await host.listen({ host: '127.0.0.1', port });
}, 60_000);

afterAll(async () => {
  await host?.close();
  await service?.close();
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, init: { json?: unknown; body?: Uint8Array; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...AUTH_HEADERS, ...init.headers };
  let body: string | Uint8Array | undefined = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  return { status: response.status, text, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

describe('paraph mounted into a host fastify app', () => {
  it('serves a seal-only transaction under the prefix next to the host routes, and its postback arrives signed', async () => {
    expect(service.workersRunning).toBe(true);
    expect((await call('GET', '/hello')).json).toEqual({ hello: 'host' });
    expect((await call('GET', '/paraph/health')).status).toBe(200);

    const created = await call('POST', '/paraph/api/transaction', { json: { Seal: true, PostbackUrl: `${receiver.url}/hook` } });
    expect(created.status).toBe(200);
    const id = created.json?.Id as string;
    const pdf = new Uint8Array(await readFile(new URL('../../fixtures/pdf/contract.pdf', import.meta.url)));
    const upload = await call('PUT', `/paraph/api/transaction/${id}/file/contract.pdf`, {
      body: pdf,
      headers: { 'content-type': 'application/pdf', digest: digestHeader(pdf) },
    });
    expect(upload.status).toBe(201);
    expect((await call('PUT', `/paraph/api/transaction/${id}/start`)).status).toBe(204);
    const read = await call('GET', `/paraph/api/transaction/${id}`);
    expect(read.json?.Status).toBe(30);
    expect(JSON.stringify(read.json?.Files)).toContain(`${base}/paraph/api/transaction/${id}/file/contract.pdf`);

    // The outbox worker started with the host app: the status postbacks arrive without anyone driving it.
    for (let i = 0; i < 200 && !receiver.received.some((r) => JSON.parse(r.body).Status === 30); i++) await new Promise((r) => setTimeout(r, 50));
    const sealed = receiver.received.find((r) => JSON.parse(r.body).Status === 30);
    expect(sealed).toBeDefined();
    expect(verifyPostback(sealed!.body, sealed!.headers, SECRET)).toMatchObject({ valid: true, transaction: { Id: id, Status: 30 } });
  }, 60_000);

  it('keeps its validation and error format inside the prefix and leaves the host behaviour alone', async () => {
    const unknownProperty = await call('POST', '/paraph/api/transaction', { json: { Seal: true, Colour: 'blue' } });
    expect(unknownProperty.status).toBe(400);
    expect(unknownProperty.json?.Message).toContain('Colour');
    expect((await call('GET', '/paraph/api/nothing-here')).json).toMatchObject({ Message: expect.stringContaining('/paraph/api/nothing-here') });
    // The host's coercion still applies to its own route, and its own 404 is fastify's, not paraph's.
    expect((await call('GET', '/double?n=21')).json).toEqual({ doubled: 42 });
    expect((await call('GET', '/nothing-here')).json).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect((await call('GET', '/paraph/api/transaction/x', { headers: { authorization: 'APIKey wrong' } })).status).toBe(401);
    expect((await call('GET', '/hello', { headers: { authorization: 'APIKey wrong' } })).status).toBe(200);
  });

  it("logs paraph's requests through the host's logger", () => {
    const urls = logLines.map((line) => (line.req as { url?: string } | undefined)?.url).filter((url) => url !== undefined);
    expect(urls).toContain('/paraph/health');
    expect(urls).toContain('/hello');
  });

  it('stops the workers when the host app closes', async () => {
    const other = Fastify();
    const otherService = await createService(loadConfig({ env: { PARAPH_DATA_DIR: await tempDataDir(), PARAPH_POSTBACK_SECRET: SECRET } }), { keyKind: 'ecdsa-p256' });
    try {
      await other.register(paraphPlugin, { service: otherService });
      await other.ready();
      expect(otherService.workersRunning).toBe(true);
      await other.close();
      expect(otherService.workersRunning).toBe(false);
    } finally {
      await otherService.close();
      await rm(otherService.config.dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('creates and closes its own service when given a configuration', async () => {
    const dir = await tempDataDir();
    const other = Fastify();
    try {
      await other.register(paraphPlugin, { config: loadConfig({ env: { PARAPH_DATA_DIR: dir } }), serviceOptions: { keyKind: 'ecdsa-p256' }, prefix: '/sign-service' });
      const health = await other.inject({ method: 'GET', url: '/sign-service/health' });
      expect(health.statusCode).toBe(200);
      await other.close();
      // The store was closed with the app: the data directory can be opened again by a new service.
      const again = await createService(loadConfig({ env: { PARAPH_DATA_DIR: dir } }), { keyKind: 'ecdsa-p256' });
      expect(again.createdCredentials).toBeUndefined();
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
