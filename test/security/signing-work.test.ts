/**
 * The work of signing is bounded by what it may hold: it stops at its next step when the process is asked to stop
 * (SIGTERM ends `paraph serve` promptly, the signing hold released and nothing of the signing kept, so the signer can
 * sign again after a restart) or when the signing hold goes stale; and what signing writes (the signed PDFs) counts
 * against the account's storage quota like the uploads it came from.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../src/testing/start-test-service.js';
import { type ApiResponse, call, makePdf, type ServeProcess, spawnServe } from '../helpers/service-harness.js';
import { createSigningTransaction } from '../service/signer/signer-fixture.js';
import { SIGNING_HOLD_STALE_MS } from '../../src/domain/transaction.js';

type Api = (method: string, path: string, options?: Parameters<typeof call>[3]) => Promise<ApiResponse>;

const served: ServeProcess[] = [];
const services: TestService[] = [];
afterAll(async () => {
  for (const s of served) await s.dispose();
  for (const s of services) await s.dispose();
});

const SIGNATURES = 200;

/** A started transaction whose one signer (Consent only) has {@link SIGNATURES} Signature fields in one document. */
async function manySignatures(api: Api): Promise<{ id: string; token: string }> {
  const created = await api('POST', '/api/transaction', { json: { Seal: false, Signers: [{ SendSignRequest: false, Email: 'a@example.com', ScribbleName: 'A', Verifications: [{ Type: 'Consent' }] }] } });
  expect(created.status, created.text).toBe(200);
  const id = created.json.Id as string;
  const signerId = created.json.Signers[0].Id as string;
  const fields = Object.fromEntries(
    Array.from({ length: SIGNATURES }, (_, i) => [`s${i}`, { Type: 'Signature', Location: { PageNumber: 1 + (i % 10), Left: 20 + (i % 20) * 20, Top: 20 + Math.floor(i / 20) * 60 } }]),
  );
  const metadata = { Signers: { [signerId]: { FormSets: ['f'] } }, FormSets: { f: fields } };
  const pdf = await makePdf(Array.from({ length: 10 }, (_, i) => [`Page ${i + 1}`]));
  expect((await api('PUT', `/api/transaction/${id}/file/doc`, { json: metadata })).status).toBe(202);
  const put = await api('PUT', `/api/transaction/${id}/file/doc`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
  expect(put.status, put.text).toBe(201);
  const start = await api('PUT', `/api/transaction/${id}/start`);
  expect(start.status, start.text).toBe(204);
  const got = await api('GET', `/api/transaction/${id}`);
  return { id, token: (got.json.Signers[0].SignUrl as string).split('/sign/')[1] as string };
}

describe('signing work', () => {
  it('SIGTERM during a long signing stops the process; the hold is released and nothing of the signing is kept', async () => {
    const serve = await spawnServe({ env: { PARAPH_MAX_SIGNATURES_PER_SIGNER: String(SIGNATURES), PARAPH_DRAIN_SECONDS: '0' } });
    served.push(serve);
    const { id, token } = await manySignatures(serve.call);
    const signer = (path: string, json: unknown) => call(serve.url, 'POST', `/api/signer/${token}${path}`, { auth: false, json });
    expect((await signer('/verification', { Type: 'Consent' })).status).toBe(200);
    const signing = signer('/sign', {}).catch(() => undefined);
    // Wait until the signature is being applied (status 20 under the signing hold).
    const deadline = Date.now() + 30_000;
    while ((await serve.call('GET', `/api/transaction/${id}`)).json.Status !== 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await serve.call('GET', `/api/transaction/${id}`)).json.Status).toBe(20);
    // Ends by itself (the harness kills it, exit code null, when it has not after 20 s).
    expect(await serve.stop()).toBe(0);
    await signing;

    const again = await spawnServe({ dataDir: serve.dataDir, env: { PARAPH_MAX_SIGNATURES_PER_SIGNER: String(SIGNATURES) } });
    served.push(again);
    const tx = await again.call('GET', `/api/transaction/${id}`);
    expect(tx.json.Status).toBe(10);
    expect(tx.json.Signers[0].SignedDateTime ?? undefined).toBeUndefined();
  }, 240_000);

  it('a signing that outlives its signing hold stops: 503, the hold released, nothing of the signing kept', async () => {
    const service = await startTestService({ env: { PARAPH_MAX_SIGNATURES_PER_SIGNER: String(SIGNATURES) } });
    services.push(service);
    const api: Api = (method, path, options) => call(service.url, method, path, options);
    const { id, token } = await manySignatures(api);
    const signer = (path: string, json: unknown) => call(service.url, 'POST', `/api/signer/${token}${path}`, { auth: false, json });
    expect((await signer('/verification', { Type: 'Consent' })).status).toBe(200);
    const signing = signer('/sign', {});
    const deadline = Date.now() + 30_000;
    while ((await api('GET', `/api/transaction/${id}`)).json.Status !== 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    service.clock.advance(SIGNING_HOLD_STALE_MS);
    const answer = await signing;
    expect(answer.status).toBe(503);
    const tx = await api('GET', `/api/transaction/${id}`);
    expect(tx.json.Status).toBe(10);
    expect(tx.json.Signers[0].SignedDateTime ?? undefined).toBeUndefined();
  }, 240_000);

  it('counts the signed PDFs against the account storage quota', async () => {
    const service = await startTestService();
    services.push(service);
    const store = service.server.store;
    const tx = await createSigningTransaction(service.url, { seal: false, signers: [{ Email: 'a@example.com', ScribbleName: 'A', Verifications: [{ Type: 'Consent' }] }] });
    const account = (await store.getTransaction(tx.id))!.AccountId;
    const before = await store.accountStorageBytes(account);
    const signer = tx.signers[0]!;
    const post = (path: string, json: unknown) => call(service.url, 'POST', `/api/signer/${signer.token}${path}`, { auth: false, json });
    expect((await post('/verification', { Type: 'Consent' })).status).toBe(200);
    const signed = await post('/sign', { Fields: { contract: { 'f1.city': 'Utrecht' } } });
    expect(signed.status, signed.text).toBe(200);
    const after = await store.getTransaction(tx.id);
    const written = after!.Files.reduce((n, f) => n + (f.Current && f.Current.sha256 !== f.Original?.sha256 ? f.Current.size : 0), 0);
    const prepared = (await store.getTransaction(tx.id))!.Files.length;
    expect(prepared).toBeGreaterThan(0);
    expect(written).toBeGreaterThan(0);
    const uploads = after!.Files.reduce((n, f) => n + (f.Original?.size ?? 0) + (f.MetadataBlob?.size ?? 0), 0);
    expect(await store.accountStorageBytes(account)).toBe(uploads + written);
    expect(await store.accountStorageBytes(account)).toBeGreaterThan(before);
  }, 120_000);
});
