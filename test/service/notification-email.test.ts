/**
 * The sender's notification address (`PARAPH_NOTIFICATION_EMAIL`): honoured on every start — a zero-config account
 * with generated keys gets it, a later start with a new address replaces the stored one, a start without it leaves
 * it — and a sender notice that cannot go anywhere is logged once as a warning instead of passing in silence.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, captureLog, digestHeader, makePdf, startTestService, tempDataDir, type TestService } from '../helpers/service-harness.js';

const DAY = 86_400_000;
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/**
 * The bootstrap account's NotificationEmail after one start (and stop) of the service on `dataDir`, configured by
 * `env` alone (no test account: without keys in `env` the start is zero-config).
 */
async function startOnce(dataDir: string, env: Record<string, string>): Promise<{ email: string | undefined; created: boolean }> {
  const service = await startTestService({ dataDir, noAccount: true, env });
  try {
    const accounts = await service.server.store.listAccounts();
    expect(accounts).toHaveLength(1);
    return { email: accounts[0]!.NotificationEmail, created: service.server.createdCredentials !== undefined };
  } finally {
    await service.stop();
  }
}

describe('PARAPH_NOTIFICATION_EMAIL', () => {
  it('is given to a zero-config account with generated keys, and replaced or kept on later starts', async () => {
    const dataDir = await tempDataDir();
    dirs.push(dataDir);
    expect(await startOnce(dataDir, { PARAPH_NOTIFICATION_EMAIL: 'first@example.com' })).toEqual({ email: 'first@example.com', created: true });
    expect(await startOnce(dataDir, {})).toEqual({ email: 'first@example.com', created: false });
    expect(await startOnce(dataDir, { PARAPH_NOTIFICATION_EMAIL: 'second@example.com' })).toEqual({ email: 'second@example.com', created: false });
  }, 60_000);

  it('is honoured when first set on a restart, with configured keys too', async () => {
    const dataDir = await tempDataDir();
    dirs.push(dataDir);
    const keys = { PARAPH_USER_TOKEN: 'notify-user-token', PARAPH_APP_KEY: 'notify-app-key' };
    expect(await startOnce(dataDir, keys)).toEqual({ email: undefined, created: false });
    expect(await startOnce(dataDir, { ...keys, PARAPH_NOTIFICATION_EMAIL: 'later@example.com' })).toEqual({ email: 'later@example.com', created: false });
  }, 60_000);
});

describe('a sender notice without an address', () => {
  let service: TestService | undefined;
  afterAll(async () => {
    await service?.dispose();
  });

  it('is not sent, and the first one (only) is logged as a warning naming the setting', async () => {
    const log = captureLog('info');
    service = await startTestService({ logger: log.logger });
    const running = service;
    for (const reference of ['notice-1', 'notice-2']) {
      const created = await call(running.url, 'POST', '/api/transaction', {
        json: { Reference: reference, SendEmailNotifications: true, DaysToExpire: 1, Signers: [{ Email: 'erin@example.com', SendSignRequest: false }] },
      });
      expect(created.status, created.text).toBe(200);
      const id = created.json.Id as string;
      const pdf = await makePdf([['Notice test document']]);
      expect((await call(running.url, 'PUT', `/api/transaction/${id}/file/t.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf', digest: digestHeader(pdf) } })).status).toBe(201);
      expect((await call(running.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
      running.clock.advance(2 * DAY);
      await running.server.worker.tick();
      await running.server.events.drain();
      expect((await call(running.url, 'GET', `/api/transaction/${id}`)).json.Status).toBe(50);
    }
    const warnings = log.lines.filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/sender notice was not sent.*PARAPH_NOTIFICATION_EMAIL/);
    expect(warnings[0]!.accountId).toEqual(expect.any(String));
    const mails = await readdir(join(running.dataDir, 'mail')).catch(() => []);
    expect(mails.filter((name) => name.endsWith('.eml'))).toEqual([]);
  }, 120_000);
});
