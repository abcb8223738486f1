/**
 * Readiness and graceful drain (docs/operations.md#shutdown): `/health/live` and `/health/ready` answer, readiness
 * turns 503 once the service drains; a SIGTERM during a burst of sign requests lets the signings in flight finish,
 * loses none of them, and `paraph serve` exits 0. After a restart every signer whose request was answered 200 has
 * signed, and every other one can still sign.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../src/testing/start-test-service.js';
import { call, makePdf, spawnServe, type ApiResponse, type ServeProcess } from '../helpers/service-harness.js';

type Api = (method: string, path: string, options?: Parameters<typeof call>[3]) => Promise<ApiResponse>;

const served: ServeProcess[] = [];
const services: TestService[] = [];
afterAll(async () => {
  for (const s of served) await s.dispose();
  for (const s of services) await s.dispose();
});

/** A started transaction whose one signer (Consent) signs `signatures` fields; returns its id and sign token. */
async function signable(api: Api, pdf: Uint8Array, signatures: number): Promise<{ id: string; token: string }> {
  const created = await api('POST', '/api/transaction', { json: { Seal: false, Signers: [{ SendSignRequest: false, Email: 'a@example.com', ScribbleName: 'A', Verifications: [{ Type: 'Consent' }] }] } });
  expect(created.status, created.text).toBe(200);
  const id = created.json.Id as string;
  const signerId = created.json.Signers[0].Id as string;
  const fields = Object.fromEntries(Array.from({ length: signatures }, (_, i) => [`s${i}`, { Type: 'Signature', Location: { PageNumber: 1, Left: 20 + (i % 5) * 100, Top: 20 + Math.floor(i / 5) * 60 } }]));
  expect((await api('PUT', `/api/transaction/${id}/file/doc`, { json: { Signers: { [signerId]: { FormSets: ['f'] } }, FormSets: { f: fields } } })).status).toBe(202);
  const put = await api('PUT', `/api/transaction/${id}/file/doc`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
  expect(put.status, put.text).toBe(201);
  expect((await api('PUT', `/api/transaction/${id}/start`)).status).toBe(204);
  const got = await api('GET', `/api/transaction/${id}`);
  return { id, token: (got.json.Signers[0].SignUrl as string).split('/sign/')[1] as string };
}

describe('readiness and drain', () => {
  it('/health/live and /health/ready answer 200; draining turns readiness to 503 while liveness stays 200', async () => {
    const service = await startTestService();
    services.push(service);
    const live = await call(service.url, 'GET', '/health/live', { auth: false });
    expect(live.status).toBe(200);
    expect(live.json).toEqual({ Status: 'ok' });
    expect((await call(service.url, 'GET', '/health/ready', { auth: false })).json).toEqual({ Status: 'ok' });
    service.server.service.beginDrain();
    const ready = await call(service.url, 'GET', '/health/ready', { auth: false });
    expect(ready.status).toBe(503);
    expect(ready.json).toEqual({ Status: 'unavailable', Reason: 'draining' });
    expect((await call(service.url, 'GET', '/health/live', { auth: false })).status).toBe(200);
  }, 60_000);

  it('SIGTERM during a burst of sign requests: the signings in flight finish, nothing is lost, exit 0', async () => {
    const env = { PARAPH_DRAIN_SECONDS: '15' };
    const serve = await spawnServe({ env });
    served.push(serve);
    const pdf = await makePdf([['Drain test document']]);
    const signings = await Promise.all(Array.from({ length: 6 }, () => signable(serve.call, pdf, 10)));
    for (const { token } of signings) {
      expect((await call(serve.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'Consent' } })).status).toBe(200);
    }
    const answers = signings.map(({ token }) =>
      fetch(`${serve.url}/api/signer/${token}/sign`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(
        (response) => ({ status: response.status, at: Date.now() }),
        () => ({ status: 0, at: Date.now() }),
      ),
    );
    // SIGTERM once the first signing holds its transaction (status 20): the burst is in flight.
    const deadline = Date.now() + 30_000;
    const signing = async (): Promise<boolean> => (await Promise.all(signings.map(({ id }) => serve.call('GET', `/api/transaction/${id}`)))).some((got) => got.json.Status === 20);
    while (!(await signing()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const termAt = Date.now();
    expect(await serve.stop()).toBe(0);
    const outcomes = await Promise.all(answers);
    expect(serve.output()).toContain('SIGTERM: shutting down');
    // The drain let signings finish after the signal rather than cutting them off.
    expect(outcomes.some((o) => o.status === 200 && o.at >= termAt)).toBe(true);
    expect(outcomes.every((o) => o.status === 200 || o.status === 503 || o.status === 0)).toBe(true);

    const again = await spawnServe({ dataDir: serve.dataDir, env });
    served.push(again);
    for (const [i, { id }] of signings.entries()) {
      const tx = await again.call('GET', `/api/transaction/${id}`);
      if (outcomes[i]!.status === 200) {
        expect(tx.json.Status).toBe(30);
        expect(tx.json.Signers[0].SignedDateTime).toBeTruthy();
      } else {
        // Answered 503 or never received: the signing was not applied and can be done again.
        expect(tx.json.Status).toBe(10);
      }
    }
  }, 240_000);
});
