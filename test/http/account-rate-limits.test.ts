/**
 * Per-account request rates (docs/design/accounts.md#accounts): an account's `Limits.RequestsPerMinute` replaces the
 * service-wide rate for that account. Two accounts with different limits are each refused (429 with Retry-After) at
 * their own limit, while an account without one keeps the service's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../helpers/service-harness.js';

const ADMIN_TOKEN = 'admin-token-0123456789-0123456789-abcdef';
let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { PARAPH_ADMIN_TOKEN: ADMIN_TOKEN, PARAPH_ACCOUNT_REQUESTS_PER_MINUTE: '600' } });
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

async function admin(method: string, path: string, json?: unknown) {
  const answer = await call(service.url, method, `/api/admin${path}`, { auth: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(json !== undefined ? { json } : {}) });
  expect(answer.status, answer.text).toBeLessThan(300);
  return answer.json;
}

/** An account with `limits` and a user token and app key of it, as request headers. */
async function accountWith(name: string, limits?: { RequestsPerMinute: number }): Promise<Record<string, string>> {
  const id = (await admin('POST', '/accounts', { Name: name, ...(limits !== undefined ? { Limits: limits } : {}) })).Id as string;
  const user = await admin('POST', `/accounts/${id}/credentials`, { Kind: 'UserToken' });
  const app = await admin('POST', `/accounts/${id}/credentials`, { Kind: 'AppKey' });
  return { authorization: `APIKey ${user.Secret as string}`, application: `APPKey ${app.Secret as string}` };
}

/** Sends requests until the first 429 (at most `max`): how many were accepted, that answer, and how long it took. */
async function burst(headers: Record<string, string>, max: number) {
  const started = performance.now();
  for (let accepted = 0; accepted < max; accepted++) {
    const answer = await call(service.url, 'POST', '/api/transaction', { auth: false, headers, json: {} });
    if (answer.status === 429) return { accepted, answer, seconds: (performance.now() - started) / 1000 };
    // Authenticated: an empty transaction is refused as such.
    expect(answer.status).toBe(400);
  }
  return { accepted: max, answer: undefined, seconds: (performance.now() - started) / 1000 };
}

describe('per-account request rates', () => {
  it('refuses each account at its own limit with Retry-After; an account without one has the service-wide rate', async () => {
    const slow = await accountWith('Slow BV', { RequestsPerMinute: 5 });
    const faster = await accountWith('Faster BV', { RequestsPerMinute: 12 });
    const plain = await accountWith('Plain BV');
    for (const [headers, perMinute] of [
      [slow, 5],
      [faster, 12],
    ] as const) {
      const { accepted, answer, seconds } = await burst(headers, 100);
      expect(answer?.status).toBe(429);
      // A full bucket of one minute's worth, plus what refilled while the burst ran.
      expect(accepted).toBeGreaterThanOrEqual(perMinute);
      expect(accepted).toBeLessThanOrEqual(perMinute + Math.ceil((seconds * perMinute) / 60));
      expect(Number(answer?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer?.json.Message).toContain(`${perMinute} per minute`);
    }
    // The others' limits do not touch an account without one: 30 requests are far below the service's 600.
    expect((await burst(plain, 30)).accepted).toBe(30);
    // Lowering a limit applies from the next request.
    const ids = (await admin('GET', '/accounts')) as { Id: string; Name: string }[];
    await admin('PATCH', `/accounts/${ids.find((a) => a.Name === 'Plain BV')!.Id}`, { Limits: { RequestsPerMinute: 1 } });
    const lowered = await burst(plain, 10);
    expect(lowered.accepted).toBeLessThanOrEqual(1);
    expect(lowered.answer?.status).toBe(429);
  });
});
