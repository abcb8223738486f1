/**
 * DELETE's grace period (docs/design/transactions.md#cancellation): after a DELETE the documents and the receipt stay
 * downloadable for `PARAPH_DELETE_GRACE_MINUTES` (here 5) — the recorded real flow downloads the receipt right after
 * DELETE — while the sensitive data goes at once; then the clean job removes them, also across a restart, and GET,
 * downloads and a second DELETE answer 410 with Signhost's texts and the partial view.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makePdf, startTestService, TestClock, type TestService } from '../helpers/service-harness.js';

const GRACE_MS = 5 * 60_000;
let service: TestService;
const clock = new TestClock();
const env = { PARAPH_DELETE_GRACE_MINUTES: '5' };

beforeAll(async () => {
  service = await startTestService({ clock, env });
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

async function sealed(reference: string): Promise<string> {
  const created = await call(service.url, 'POST', '/api/transaction', { json: { Seal: true, Reference: reference } });
  const id = created.json.Id as string;
  const pdf = await makePdf([['Grace period']]);
  expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
  expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
  return id;
}

describe('DELETE grace period', () => {
  it('an ended transaction: documents and receipt stay until the clean job ran after the grace period, then 410 with Signhost\'s texts', async () => {
    const id = await sealed('grace-30');
    const deleted = await call(service.url, 'DELETE', `/api/transaction/${id}`, { json: { Reason: 'Archived' } });
    expect(deleted.json).toMatchObject({ Status: 30, CancelationReason: 'Archived', CanceledDateTime: '2026-11-21T10:00:00.000+00:00' });

    clock.advance(GRACE_MS - 1000);
    await service.server.worker.tick();
    expect((await call(service.url, 'GET', `/api/file/receipt/${id}`)).status).toBe(200);
    expect((await call(service.url, 'GET', `/api/transaction/${id}/file/doc.pdf`)).status).toBe(200);
    expect((await call(service.url, 'GET', `/api/transaction/${id}`)).json).toMatchObject({ Status: 30, CancelationReason: 'Archived' });
    // A second DELETE within the grace period is 200 again and does not extend it.
    expect((await call(service.url, 'DELETE', `/api/transaction/${id}`, { json: { Reason: 'Archived' } })).status).toBe(200);

    clock.advance(2000);
    await service.server.worker.tick();
    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(got.status).toBe(410);
    expect(got.json).toMatchObject({ Id: id, Status: 30, Reference: 'grace-30', CancelationReason: 'Archived', CanceledDateTime: expect.any(String), Signers: [] });
    expect(got.json).not.toHaveProperty('Files');
    expect(await call(service.url, 'GET', `/api/transaction/${id}/file/doc.pdf`)).toMatchObject({ status: 410, json: { Message: 'The document is no longer available' } });
    expect(await call(service.url, 'GET', `/api/file/receipt/${id}`)).toMatchObject({ status: 410, json: { Message: 'The receipt is no longer available' } });
    expect((await call(service.url, 'DELETE', `/api/transaction/${id}`)).status).toBe(410);
  });

  it('a waiting transaction: 60 at once, its signer data gone at once, its documents until the grace period ends, also across a restart', async () => {
    const created = await call(service.url, 'POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'a@example.com', Mobile: '+31612345678', BSN: '111222333' }] } });
    const id = created.json.Id as string;
    const pdf = await makePdf([['Grace period']]);
    await call(service.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const deleted = await call(service.url, 'DELETE', `/api/transaction/${id}`);
    expect(deleted.json).toMatchObject({ Status: 60, Signers: [{ Mobile: '+31612345678' }] });
    const during = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(during.json).toMatchObject({ Status: 60, Signers: [{ Mobile: null, BSN: null }] });
    expect(during.json).not.toHaveProperty('CancelationReason');
    expect((await call(service.url, 'GET', `/api/transaction/${id}/file/doc.pdf`)).status).toBe(200);

    await service.stop();
    clock.advance(GRACE_MS);
    service = await startTestService({ clock, env, dataDir: service.dataDir });
    await service.server.worker.tick();
    expect((await call(service.url, 'GET', `/api/transaction/${id}`)).status).toBe(410);
    expect((await call(service.url, 'GET', `/api/transaction/${id}/file/doc.pdf`)).status).toBe(410);
  });
});
