/**
 * Credentials across the processes of a PostgreSQL deployment (docs/design/accounts.md#credentials): three
 * `paraph serve` processes on one database. A rotated application key keeps working on all three until its overlap
 * ends, then none accepts it; a key revoked through the admin API of one process is refused by the other two within a
 * second of the revocation's answer (a correctness bound: credentials are read from the store on every request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/store/postgres-store.js';
import { spawnServe, type ServeProcess } from '../helpers/service-harness.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

const AUTHENTICATED = 400;
const ADMIN_TOKEN = 'admin-token-0123456789-0123456789-abcdef';
let cluster: PgCluster;
let servers: ServeProcess[] = [];

beforeAll(async () => {
  cluster = await startPgCluster();
  const url = await cluster.createDatabase();
  await migratePostgres(url);
  const env = { PARAPH_DATABASE_URL: url, PARAPH_MASTER_KEY: Buffer.alloc(32, 5).toString('base64'), PARAPH_ADMIN_TOKEN: ADMIN_TOKEN, PARAPH_SMTP_URL: 'smtp://127.0.0.1:9' };
  servers.push(await spawnServe({ env }));
  servers = [...servers, ...(await Promise.all([spawnServe({ env }), spawnServe({ env })]))];
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.dispose()));
  await cluster?.stop();
});

async function admin(server: ServeProcess, method: string, path: string, json?: unknown) {
  const answer = await server.call(method, `/api/admin${path}`, { auth: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(json !== undefined ? { json } : {}) });
  expect(answer.status, answer.text).toBeLessThan(300);
  return answer;
}

/** The status an API request with these credentials gets: 400 (authenticated, an empty transaction refused) or 401. */
async function statusWith(server: ServeProcess, userToken: string, appKey: string): Promise<number> {
  const answer = await server.call('POST', '/api/transaction', { auth: false, headers: { authorization: `APIKey ${userToken}`, application: `APPKey ${appKey}` }, json: {} });
  return answer.status;
}

describe('credentials on three processes sharing PostgreSQL', () => {
  it('a rotated key works on all three until its overlap ends; a revoked one is refused by the other two within a second', async () => {
    const [first, second, third] = servers as [ServeProcess, ServeProcess, ServeProcess];
    const account = (await admin(first, 'POST', '/accounts', { Name: 'Three Processes BV' })).json.Id as string;
    const user = (await admin(second, 'POST', `/accounts/${account}/credentials`, { Kind: 'UserToken' })).json;
    const app = (await admin(third, 'POST', `/accounts/${account}/credentials`, { Kind: 'AppKey' })).json;
    for (const s of servers) expect(await statusWith(s, user.Secret, app.Secret)).toBe(AUTHENTICATED);

    // Rotation: the old key and its replacement both work everywhere while the overlap lasts.
    const replacement = (await admin(first, 'POST', `/accounts/${account}/credentials/${app.Id as string}/rotate`, { OverlapSeconds: 3 })).json;
    const listed = (await admin(first, 'GET', `/accounts/${account}/credentials`)).json as { Id: string; ValidUntil?: string }[];
    const validUntil = Date.parse(listed.find((c) => c.Id === app.Id)!.ValidUntil!);
    for (const s of servers) {
      expect(await statusWith(s, user.Secret, replacement.Secret)).toBe(AUTHENTICATED);
      const status = await statusWith(s, user.Secret, app.Secret);
      // Only an answer given within the overlap can show it working (a slow machine may pass its end meanwhile).
      if (Date.now() < validUntil - 200) expect(status).toBe(AUTHENTICATED);
    }
    await new Promise((r) => setTimeout(r, Math.max(0, validUntil - Date.now() + 100)));
    for (const s of servers) {
      expect(await statusWith(s, user.Secret, app.Secret)).toBe(401);
      expect(await statusWith(s, user.Secret, replacement.Secret)).toBe(AUTHENTICATED);
    }

    // Revocation on the first process: the other two refuse the key within a second of the answer.
    await admin(first, 'POST', `/accounts/${account}/credentials/${replacement.Id as string}/revoke`);
    const revokedAt = performance.now();
    const refusedAfter: number[] = [];
    for (const s of [second, third]) {
      let status = await statusWith(s, user.Secret, replacement.Secret);
      while (status !== 401 && performance.now() - revokedAt < 5000) {
        await new Promise((r) => setTimeout(r, 20));
        status = await statusWith(s, user.Secret, replacement.Secret);
      }
      expect(status).toBe(401);
      refusedAfter.push(performance.now() - revokedAt);
    }
    expect(Math.max(...refusedAfter)).toBeLessThan(1000);
    // The user token was not revoked: a new app key still works everywhere.
    const fresh = (await admin(second, 'POST', `/accounts/${account}/credentials`, { Kind: 'AppKey' })).json;
    for (const s of servers) expect(await statusWith(s, user.Secret, fresh.Secret)).toBe(AUTHENTICATED);
  }, 60_000);
});
