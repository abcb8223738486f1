/**
 * Reminders, expiry and cleaning with a moved clock (docs/design/events.md#reminders,
 * docs/design/transactions.md#expiry): reminders every DaysToRemind days while unsigned (104, one postback each),
 * expiry to 50 at DaysToExpire (postback 50), cleaning after the retention period (GET 410 with only the partial
 * fields, file download 410).
 */
import { readSealedMails } from '../helpers/mail-files.js';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARTIAL_TRANSACTION_KEYS } from '../../src/domain/transaction-view.js';
import { verifyPostback } from '../../src/events/verify-postback.js';
import { startPostbackReceiver, type PostbackReceiver } from '../../src/testing/start-postback-receiver.js';
import { call, digestHeader, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';

const DAY = 86_400_000;
let service: TestService;
let receiver: PostbackReceiver;

beforeAll(async () => {
  receiver = await startPostbackReceiver();
  service = await startTestService({ env: { PARAPH_POSTBACK_SECRET: 'timer-secret', PARAPH_RETENTION_DAYS: '1', PARAPH_NOTIFICATION_EMAIL: 'sender@example.com' } });
}, 60_000);

afterAll(async () => {
  await service?.dispose();
  await receiver?.close();
});

async function runWorkers(): Promise<void> {
  await service.server.worker.tick();
  await service.server.events.drain();
}

describe('timers with a moved clock', () => {
  it('reminds every DaysToRemind days, expires at DaysToExpire, cleans after the retention period', async () => {
    const created = await call(service.url, 'POST', '/api/transaction', {
      json: {
        Reference: 'timers-1',
        DaysToExpire: 7,
        SendEmailNotifications: true,
        PostbackUrl: `${receiver.url}/t`,
        Signers: [{ Email: 'erin@example.com', SendSignRequest: true, SignRequestMessage: 'Please sign', DaysToRemind: 3 }],
      },
    });
    expect(created.status, created.text).toBe(200);
    const id = created.json.Id as string;
    const pdf = await makePdf([['Timer test document']]);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/t.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf', digest: digestHeader(pdf) } })).status).toBe(201);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    await runWorkers();
    const codes = async () => ((await call(service.url, 'GET', `/api/transaction/${id}`)).json.Signers[0].Activities as { Code: number }[]).map((a) => a.Code);
    expect(await codes()).toEqual([101]);

    service.clock.advance(3 * DAY - 60_000);
    await runWorkers();
    expect(await codes()).toEqual([101]);
    service.clock.advance(120_000);
    await runWorkers();
    expect(await codes()).toEqual([101, 104]);
    service.clock.advance(3 * DAY);
    await runWorkers();
    expect(await codes()).toEqual([101, 104, 104]);
    expect(await readSealedMails(service.dataDir)).toHaveLength(3);

    service.clock.advance(1 * DAY);
    await runWorkers();
    const expired = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(expired.json.Status).toBe(50);
    // The sender is told (SendEmailNotifications, the account's notification address).
    const emls = await readSealedMails(service.dataDir);
    expect(emls).toHaveLength(4);
    const notices = await Promise.all(emls.map(async (eml) => simpleParser(eml)));
    const notice = notices.find((m) => (m.to && !Array.isArray(m.to) ? m.to.text : '') === 'sender@example.com');
    expect(notice?.subject).toBe('Nieuws over transactie: timers-1');
    expect(notice?.text).toContain('De transactie is verlopen');

    // Postbacks: started, each mail activity, expiry — in order, all verifiable.
    expect(receiver.received.map((r) => JSON.parse(r.body).Status)).toEqual([10, 10, 10, 10, 50]);
    for (const r of receiver.received) expect(verifyPostback(r.body, r.headers, 'timer-secret').valid).toBe(true);
    expect(receiver.received.map((r) => JSON.parse(r.body).Signers[0].Activities.length)).toEqual([0, 1, 2, 3, 3]);

    service.clock.advance(DAY - 60_000);
    await runWorkers();
    expect((await call(service.url, 'GET', `/api/transaction/${id}`)).status).toBe(200);
    service.clock.advance(120_000);
    await runWorkers();
    const cleaned = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(cleaned.status).toBe(410);
    // CancelationReason is left out when there is none (docs/design/api.md#response-values).
    expect(Object.keys(cleaned.json).sort()).toEqual(PARTIAL_TRANSACTION_KEYS.filter((key) => key !== 'CancelationReason').sort());
    expect(cleaned.json).toMatchObject({ Id: id, Status: 50, Reference: 'timers-1' });
    expect(cleaned.json.Signers).toEqual([{ Id: 'Signer1' }]);
    expect((await call(service.url, 'GET', `/api/transaction/${id}/file/t.pdf`)).status).toBe(410);
    // No further reminders or postbacks after the end.
    service.clock.advance(10 * DAY);
    await runWorkers();
    expect(receiver.received).toHaveLength(5);
  });
});
