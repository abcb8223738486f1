/**
 * Rotating an account's postback secret while postbacks flow (docs/design/events.md#secret-rotation): postbacks
 * queued before and after the rotation all arrive; each verifies with the secret a receiver knows, the old one or
 * the new one, while the overlap lasts, and with the new one only after it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPostback } from '../../src/events/verify-postback.js';
import { startPostbackReceiver, type PostbackReceiver, type ReceivedPostback } from '../../src/testing/start-postback-receiver.js';
import { call, digestHeader, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';

const OLD = 'old-postback-secret-0123456789';
const ADMIN_TOKEN = 'admin-token-0123456789-0123456789-abcdef';
let service: TestService;
let receiver: PostbackReceiver;

beforeAll(async () => {
  receiver = await startPostbackReceiver();
  service = await startTestService({ env: { PARAPH_POSTBACK_SECRET: OLD, PARAPH_ADMIN_TOKEN: ADMIN_TOKEN, PARAPH_POSTBACK_SECRET_OVERLAP_SECONDS: '3600' } });
}, 60_000);

afterAll(async () => {
  await service?.dispose();
  await receiver?.close();
});

function admin(method: string, path: string, json?: unknown) {
  return call(service.url, method, `/api/admin${path}`, { auth: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(json !== undefined ? { json } : {}) });
}

/** Creates and starts a seal-only transaction whose postbacks go to the receiver; returns its Id. */
async function startOne(reference: string): Promise<string> {
  const created = await call(service.url, 'POST', '/api/transaction', { json: { Seal: true, Reference: reference, PostbackUrl: `${receiver.url}/hook`, SendEmailNotifications: false } });
  expect(created.status).toBe(200);
  const id = created.json.Id as string;
  const pdf = await makePdf([[`Document ${reference}`]]);
  const upload = await call(service.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf', digest: digestHeader(pdf) } });
  expect(upload.status).toBe(201);
  expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
  return id;
}

const valid = (r: ReceivedPostback, secrets: string | string[]) => verifyPostback(r.body, r.headers, secrets).valid;

describe('postback secret rotation with overlap', () => {
  it('loses no postback and every delivery verifies with the old or the new secret; after the overlap only the new one', async () => {
    const accountId = ((await admin('GET', '/accounts')).json as { Id: string }[])[0]!.Id;
    const before = [await startOne('b1'), await startOne('b2')];
    await service.server.events.drain();
    // Queued before the rotation, delivered after it.
    const pending = [await startOne('p1'), await startOne('p2')];
    const rotated = await admin('PUT', `/accounts/${accountId}/postback-secret`, {});
    expect(rotated.status).toBe(200);
    const NEW = rotated.json.PostbackSecret as string;
    expect(NEW).not.toBe(OLD);
    expect(Date.parse(rotated.json.PreviousPostbackSecretValidUntil as string) - service.clock.now().getTime()).toBe(3600_000);
    const after = [await startOne('a1'), await startOne('a2')];
    await service.server.events.drain();

    const delivered = receiver.received.filter((r) => r.answeredWith === 200);
    const ids = (list: typeof delivered) => list.map((r) => JSON.parse(r.body).Id as string);
    expect(new Set(ids(delivered))).toEqual(new Set([...before, ...pending, ...after]));
    const firstAfterRotation = delivered.findIndex((r) => pending.includes(JSON.parse(r.body).Id as string));
    for (const [i, r] of delivered.entries()) {
      expect(valid(r, OLD)).toBe(true);
      expect(valid(r, NEW)).toBe(i >= firstAfterRotation);
      expect(valid(r, [NEW, OLD])).toBe(true);
      // Signhost's Checksum in the body stays one value: the current secret's.
      if (i >= firstAfterRotation) expect(r.headers['checksum-previous']).toBeDefined();
    }

    // The overlap ends: postbacks carry the new secret only.
    service.clock.advance(3600_000);
    const late = await startOne('late');
    await service.server.events.drain();
    const lateDeliveries = receiver.received.filter((r) => JSON.parse(r.body).Id === late);
    expect(lateDeliveries.length).toBeGreaterThan(0);
    for (const r of lateDeliveries) {
      expect(valid(r, NEW)).toBe(true);
      expect(valid(r, OLD)).toBe(false);
      expect(r.headers['x-paraph-signature-previous']).toBeUndefined();
    }
    expect((await admin('GET', `/audit?accountId=${accountId}`)).text).not.toContain(NEW);
  });

  it('OverlapSeconds 0 drops the old secret at once', async () => {
    const accountId = ((await admin('GET', '/accounts')).json as { Id: string }[])[0]!.Id;
    const set = await admin('PUT', `/accounts/${accountId}/postback-secret`, { OverlapSeconds: 0 });
    expect(set.status).toBe(200);
    expect(set.json.PreviousPostbackSecretValidUntil).toBeUndefined();
    const id = await startOne('zero');
    await service.server.events.drain();
    const deliveries = receiver.received.filter((r) => JSON.parse(r.body).Id === id);
    expect(deliveries.length).toBeGreaterThan(0);
    for (const r of deliveries) expect(valid(r, set.json.PostbackSecret as string)).toBe(true);
    expect((await admin('PUT', `/accounts/${accountId}/postback-secret`, { OverlapSeconds: -1 })).status).toBe(400);
  });
});
