/**
 * Postback delivery through the real service: a receiver that answers 500 three times then 200 gets every
 * postback, in enqueue order, each checksum and HMAC valid; a second URL keeps receiving while the first fails;
 * every attempt is recorded. The test drives the outbox worker and moves the injected clock past each retry.
 */
import { openSqliteDatabase } from '../../src/store/sqlite-driver.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPostback } from '../../src/events/verify-postback.js';
import { startPostbackReceiver, type PostbackReceiver } from '../../src/testing/start-postback-receiver.js';
import { call, digestHeader, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';

const SECRET = 'SharedSecret';
let service: TestService;
let failing: PostbackReceiver;
let healthy: PostbackReceiver;

beforeAll(async () => {
  failing = await startPostbackReceiver({ respond: (n) => (n < 3 ? 500 : 200) });
  healthy = await startPostbackReceiver();
  service = await startTestService({ env: { PARAPH_POSTBACK_SECRET: SECRET } });
}, 60_000);

afterAll(async () => {
  await service?.dispose();
  await failing?.close();
  await healthy?.close();
});

async function sealOnly(postbackUrl: string, reference: string): Promise<string> {
  const created = await call(service.url, 'POST', '/api/transaction', { json: { Seal: true, Reference: reference, PostbackUrl: postbackUrl, SendEmailNotifications: false } });
  expect(created.status).toBe(200);
  const id = created.json.Id as string;
  const pdf = await makePdf([[`Document ${reference}`]]);
  const upload = await call(service.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, {
    body: pdf,
    headers: { 'content-type': 'application/pdf', digest: digestHeader(pdf) },
  });
  expect(upload.status).toBe(201);
  return id;
}

function outboxIds(transactionId: string): number[] {
  const db = openSqliteDatabase(join(service.dataDir, 'paraph.db'));
  try {
    return (db.prepare("SELECT id FROM outbox WHERE transaction_id = ? AND kind = 'postback' ORDER BY id").all(transactionId) as { id: number }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

describe('postbacks to a failing and a healthy URL', () => {
  it('delivers every postback in order once the receiver recovers, while the other URL is served at once', async () => {
    const a1 = await sealOnly(`${failing.url}/hook`, 'a1');
    const a2 = await sealOnly(`${failing.url}/hook`, 'a2');
    const a3 = await sealOnly(`${failing.url}/hook`, 'a3');
    const b1 = await sealOnly(`${healthy.url}/other`, 'b1');
    expect((await call(service.url, 'PUT', `/api/transaction/${a1}/start`)).status).toBe(204);
    expect((await call(service.url, 'DELETE', `/api/transaction/${a2}`, { json: { Reason: 'not needed' } })).status).toBe(200);
    expect((await call(service.url, 'PUT', `/api/transaction/${a3}/start`)).status).toBe(204);
    expect((await call(service.url, 'PUT', `/api/transaction/${b1}/start`)).status).toBe(204);

    const events = service.server.events;
    const first = await events.drain();
    // a1 failed once (a2, a3 wait behind it); b1 went through although a1's URL fails.
    expect(first).toEqual({ delivered: 1, retried: 1, failed: 0 });
    expect(healthy.received.map((r) => JSON.parse(r.body).Id)).toEqual([b1]);

    for (let round = 0; round < 10 && failing.received.filter((r) => r.answeredWith === 200).length < 3; round++) {
      service.clock.advance(61 * 60_000);
      await events.drain();
    }
    const answered = failing.received.map((r) => [JSON.parse(r.body).Id as string, JSON.parse(r.body).Status as number, r.answeredWith]);
    expect(answered).toEqual([
      [a1, 30, 500],
      [a1, 30, 500],
      [a1, 30, 500],
      [a1, 30, 200],
      [a2, 60, 200],
      [a3, 30, 200],
    ]);
    for (const request of [...failing.received, ...healthy.received]) {
      const verdict = verifyPostback(request.body, request.headers, SECRET);
      expect(verdict.valid, request.body).toBe(true);
      expect(request.headers['content-type']).toContain('application/json');
      expect(request.headers.checksum).toBe(JSON.parse(request.body).Checksum);
    }
    // The body is the transaction as GET shows it.
    const got = await call(service.url, 'GET', `/api/transaction/${a1}`);
    const delivered = JSON.parse(failing.received[3]!.body) as Record<string, unknown>;
    const { Checksum, ...rest } = delivered;
    expect(Checksum).toMatch(/^[0-9a-f]{40}$/);
    expect(rest).toEqual(got.json);

    const [rowA1] = outboxIds(a1);
    const attempts = await service.server.store.listAttempts(rowA1!);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.responseCode])).toEqual([
      [1, 'retry', 500],
      [2, 'retry', 500],
      [3, 'retry', 500],
      [4, 'delivered', 200],
    ]);
    expect(attempts[0]!.detail).toBe('HTTP 500');
  });

  it('gives a postback up 72 hours after it was first due, with every attempt recorded and an audit entry', async () => {
    const down = await startPostbackReceiver({ respond: () => 503 });
    try {
      const id = await sealOnly(`${down.url}/down`, 'down-1');
      const startedAt = service.clock.now().getTime();
      expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
      let failed = 0;
      for (let round = 0; round < 200 && failed === 0; round++) {
        failed += (await service.server.events.drain()).failed;
        service.clock.advance(30 * 60_000);
      }
      expect(failed).toBe(1);
      const elapsed = service.clock.now().getTime() - startedAt;
      expect(elapsed).toBeGreaterThanOrEqual(71 * 3_600_000);
      expect(elapsed).toBeLessThanOrEqual(74 * 3_600_000);
      const [row] = outboxIds(id);
      const attempts = await service.server.store.listAttempts(row!);
      expect(attempts.length).toBe(down.received.length);
      expect(attempts.every((a) => a.responseCode === 503)).toBe(true);
      expect(attempts.at(-1)?.outcome).toBe('failed');
      expect(attempts.slice(0, -1).every((a) => a.outcome === 'retry')).toBe(true);
      // Gaps between attempts: the first retry within a minute, none longer than an hour (plus the test's step).
      const gaps = attempts.slice(1).map((a, i) => a.at.getTime() - attempts[i]!.at.getTime());
      expect(Math.max(...gaps)).toBeLessThanOrEqual(90 * 60_000);
      const audit = await service.server.store.listAuditEntries(id);
      expect(audit.at(-1)).toMatchObject({ type: 'postback.failed', data: { url: `${down.url}/down`, httpStatus: 503, error: 'HTTP 503' } });
      // Nothing more is sent for it.
      service.clock.advance(10 * 3_600_000);
      const before = down.received.length;
      await service.server.events.drain();
      expect(down.received.length).toBe(before);
    } finally {
      await down.close();
    }
  });
});
