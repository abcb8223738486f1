/**
 * The admin API over real HTTP (every answer checked against the served OpenAPI document): its own token only,
 * accounts created, changed, disabled; keys issued, rotated with an overlap, revoked; each change audited without
 * its secret; and the transaction API taking exactly the credentials that are valid now.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/service/context.js';
import { AUTH_HEADERS, call, startTestService, type ApiResponse, type TestService } from '../helpers/service-harness.js';

const ADMIN_TOKEN = 'admin-token-0123456789-0123456789-abcdef';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { PARAPH_ADMIN_TOKEN: ADMIN_TOKEN } });
}, 60_000);
afterAll(async () => {
  await service?.dispose();
});

function admin(method: string, path: string, json?: unknown): Promise<ApiResponse> {
  return call(service.url, method, `/api/admin${path}`, { auth: false, headers: ADMIN, ...(json !== undefined ? { json } : {}) });
}

/** Creates a transaction with these credentials; returns the status. */
async function createWith(userToken: string, appKey: string): Promise<number> {
  const r = await call(service.url, 'POST', '/api/transaction', {
    auth: false,
    headers: { authorization: `APIKey ${userToken}`, application: `APPKey ${appKey}` },
    json: { Signers: [{ SendSignRequest: false, Email: 'a@example.com' }] },
  });
  return r.status;
}

describe('admin API', () => {
  it('takes only the admin token: not an account key, not a wrong token', async () => {
    expect((await call(service.url, 'GET', '/api/admin/accounts', { auth: false })).status).toBe(401);
    expect((await call(service.url, 'GET', '/api/admin/accounts', { auth: false, headers: AUTH_HEADERS })).status).toBe(401);
    expect((await call(service.url, 'GET', '/api/admin/accounts', { auth: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } })).status).toBe(401);
    // And the admin token is no account key.
    expect(await createWith(ADMIN_TOKEN, ADMIN_TOKEN)).toBe(401);
    expect((await admin('GET', '/accounts')).status).toBe(200);
  });

  it('creates, shows, changes, disables accounts; issues, rotates, revokes keys; audits every change without secrets', async () => {
    const created = await admin('POST', '/accounts', { Name: 'Acme BV', NotificationEmail: 'ops@acme.example', Limits: { MaxFileBytes: 1000000 } });
    expect(created.status, created.text).toBe(201);
    const id = created.json.Id as string;
    const postbackSecret = created.json.PostbackSecret as string;
    expect(postbackSecret.length).toBeGreaterThanOrEqual(32);
    expect(created.json).toMatchObject({ Name: 'Acme BV', NotificationEmail: 'ops@acme.example', Disabled: false, HasPostbackSecret: true });
    const shown = await admin('GET', `/accounts/${id}`);
    expect(shown.json.PostbackSecret).toBeUndefined();
    expect((await admin('GET', '/accounts')).json.map((a: { Id: string }) => a.Id)).toContain(id);
    expect((await admin('GET', '/accounts/no-such-account')).status).toBe(404);
    expect((await admin('POST', '/accounts', { Name: 'x', NotificationEmail: 'not an address' })).status).toBe(400);
    expect((await admin('POST', '/accounts', { Name: 'x', Unknown: 1 })).status).toBe(400);

    const patched = await admin('PATCH', `/accounts/${id}`, { Name: 'Acme B.V.', NotificationEmail: null, Branding: { Color: '#112233' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ Name: 'Acme B.V.', Branding: { Color: '#112233' } });
    expect(patched.json.NotificationEmail).toBeUndefined();
    expect((await admin('PATCH', `/accounts/${id}`, { Branding: { Color: 'red' } })).status).toBe(400);

    const user = await admin('POST', `/accounts/${id}/credentials`, { Kind: 'UserToken', Label: 'Alice' });
    const app = await admin('POST', `/accounts/${id}/credentials`, { Kind: 'AppKey', Label: 'ERP' });
    expect([user.status, app.status]).toEqual([201, 201]);
    const userToken = user.json.Secret as string;
    const appKey = app.json.Secret as string;
    expect(await createWith(userToken, appKey)).toBe(200);
    // Each key only with a key of its own account.
    expect(await createWith(userToken, AUTH_HEADERS.application.slice(7))).toBe(401);
    // Stored as a keyed hash, never as the secret nor its plain SHA-256.
    const stored = await service.server.store.listCredentials(id);
    expect(stored.map((c) => c.hash)).not.toContain(sha256Hex(appKey));
    expect(JSON.stringify(stored)).not.toContain(appKey);
    const listed = await admin('GET', `/accounts/${id}/credentials`);
    expect(listed.json.map((c: Record<string, unknown>) => [c.Kind, c.Status, c.Secret])).toEqual([
      ['UserToken', 'Active', undefined],
      ['AppKey', 'Active', undefined],
    ]);

    // Rotation: the old key works through the overlap, then no more.
    const rotated = await admin('POST', `/accounts/${id}/credentials/${app.json.Id}/rotate`, { OverlapSeconds: 60 });
    expect(rotated.status, rotated.text).toBe(201);
    const newAppKey = rotated.json.Secret as string;
    expect(await createWith(userToken, newAppKey)).toBe(200);
    expect(await createWith(userToken, appKey)).toBe(200);
    expect((await admin('POST', `/accounts/${id}/credentials/${app.json.Id}/rotate`, {})).status).toBe(409);
    service.clock.advance(60_000);
    expect(await createWith(userToken, appKey)).toBe(401);
    expect(await createWith(userToken, newAppKey)).toBe(200);

    // Disabled: nothing authenticates; enabled again: it does.
    expect((await admin('POST', `/accounts/${id}/disable`)).json.Disabled).toBe(true);
    expect(await createWith(userToken, newAppKey)).toBe(401);
    expect((await admin('POST', `/accounts/${id}/enable`)).json.Disabled).toBe(false);
    expect(await createWith(userToken, newAppKey)).toBe(200);

    // The account's limits apply to it: a lower largest file.
    expect((await admin('PATCH', `/accounts/${id}`, { Limits: { MaxFileBytes: 100 } })).status).toBe(200);
    const headers = { authorization: `APIKey ${userToken}`, application: `APPKey ${newAppKey}` };
    const tx = await call(service.url, 'POST', '/api/transaction', { auth: false, headers, json: { Signers: [{ SendSignRequest: false, Email: 'a@example.com' }] } });
    const upload = await call(service.url, 'PUT', `/api/transaction/${tx.json.Id as string}/file/a.pdf`, {
      auth: false,
      headers: { ...headers, 'content-type': 'application/pdf' },
      body: new Uint8Array(200).fill(32),
    });
    expect([upload.status, upload.json.Message]).toEqual([413, 'The file is larger than the maximum of 100 bytes.']);

    // Revoked: refused at once.
    const revoked = await admin('POST', `/accounts/${id}/credentials/${user.json.Id}/revoke`);
    expect(revoked.json.Status).toBe('Revoked');
    expect(await createWith(userToken, newAppKey)).toBe(401);
    expect((await admin('POST', `/accounts/${id}/credentials/nope/revoke`)).status).toBe(404);

    const secret = await admin('PUT', `/accounts/${id}/postback-secret`, {});
    expect(secret.json.PostbackSecret).not.toBe(postbackSecret);
    expect((await service.server.store.getAccount(id))?.PostbackSecret).toBe(secret.json.PostbackSecret);

    const audit = await admin('GET', `/audit?accountId=${id}`);
    expect(audit.json.map((e: { Action: string }) => e.Action)).toEqual([
      'account.created',
      'account.updated',
      'credential.issued',
      'credential.issued',
      'credential.rotated',
      'account.disabled',
      'account.enabled',
      'account.updated',
      'credential.revoked',
      'account.postback-secret-set',
    ]);
    expect(audit.json.every((e: { Actor: string }) => e.Actor === 'admin')).toBe(true);
    for (const s of [userToken, appKey, newAppKey, postbackSecret, secret.json.PostbackSecret as string]) expect(audit.text).not.toContain(s);
    const page = await admin('GET', `/audit?after=${audit.json[0].Id as number}&limit=2`);
    expect(page.json.length).toBe(2);
  });

  it('throttles wrong admin tokens per address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      statuses.push((await call(service.url, 'GET', '/api/admin/audit', { auth: false, headers: { authorization: 'Bearer wrong' } })).status);
    }
    // 20 failures at once per address (one was spent above), then 429 with Retry-After.
    expect(statuses.slice(0, 19).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429, 429, 429, 429]);
  });
});
