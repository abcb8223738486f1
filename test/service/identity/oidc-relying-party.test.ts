/**
 * The OpenID Connect relying party inside the service (docs/verifications.md#openid-connect), against a provider whose
 * ID tokens the test signs and spoils: a good login passes with its claims mapped, its level and its evidence; a
 * tampered, foreign-key, wrong-audience, expired or wrong-nonce token is refused and uses the state up; a replayed
 * state is refused; a rotated key is picked up; a provider that does not answer is a clear 503, not a hang; values
 * that do not match the Verification (BSN, +32) end the step with the signer's text and a 999 activity.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CATALOGUES } from '../../../src/i18n/catalogue.js';
import type { RunningServer } from '../../../src/server.js';
import { createOidcIdentityProvider, type OidcProviderSettings } from '../../../src/service/identity/oidc-identity-provider.js';
import { call, makePdf, startTestService, tempDataDir } from '../../helpers/service-harness.js';
import { createSigningTransaction } from '../signer/signer-fixture.js';
import { startFakeOp, startSilentServer, type FakeOp } from './fake-openid-provider.js';

const CLIENT_ID = 'paraph-test';
const CLIENT_SECRET = 'test-secret-0123456789';
const BSN = '111222333';
const NL = CATALOGUES['nl-NL'].page.apiErrors;

let op: FakeOp;
let silent: Awaited<ReturnType<typeof startSilentServer>>;
let server: RunningServer;
let dataDir: string;

function settings(type: string, extra: Partial<OidcProviderSettings> = {}): OidcProviderSettings {
  return { type, issuer: op.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, allowHttp: true, scope: 'openid profile bsn', ...extra };
}

beforeAll(async () => {
  op = await startFakeOp(CLIENT_ID, CLIENT_SECRET);
  silent = await startSilentServer();
  dataDir = await tempDataDir();
  const service = await startTestService({
    dataDir,
    identityProviders: [
      createOidcIdentityProvider(settings('DigiD', { acrLevels: { 'urn:test:substantial': 'Substantial', 'urn:test:high': 'High' } })),
      createOidcIdentityProvider(settings('itsme Identification')),
      createOidcIdentityProvider(settings('iDIN', { userinfo: true })),
      createOidcIdentityProvider(settings('iDeal')),
      createOidcIdentityProvider({ ...settings('eHerkenning'), issuer: silent.url, timeoutSeconds: 1 }),
    ],
  });
  server = service.server;
});

afterAll(async () => {
  await server?.close();
  await op?.close();
  await silent?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

afterEach(() => {
  vi.useRealTimers();
  op.claims = {};
});

/** A started transaction whose one signer has `verification` then Consent; returns the signer's token. */
async function signerWith(verification: Record<string, unknown>): Promise<{ token: string; id: string }> {
  const tx = await createSigningTransaction(server.url, { signers: [{ Email: 'jan@example.com', Verifications: [verification, { Type: 'Consent' }] }] });
  return { token: tx.signers[0]!.token, id: tx.id };
}

/** Starts the step and follows the provider back to paraph: the answer of paraph's callback, and the callback URL. */
async function login(token: string, type: string): Promise<{ response: Response; callback: string }> {
  const started = await call(server.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: type } });
  expect(started.status).toBe(200);
  const atProvider = await fetch(started.json.RedirectUrl as string, { redirect: 'manual' });
  expect(atProvider.status).toBe(302);
  const callback = atProvider.headers.get('location') ?? '';
  expect(callback.startsWith(`${server.url}/sign/identity/return?`)).toBe(true);
  return { response: await fetch(callback, { redirect: 'manual' }), callback };
}

async function identityAudit(id: string): Promise<{ result: string; evidence: Record<string, string> }[]> {
  const audit = await server.store.listAuditEntries(id);
  return audit.filter((e) => e.type === 'verification.performed').map((e) => e.data as { result: string; evidence: Record<string, string> });
}

describe('OpenID Connect relying party', () => {
  it('a good login passes: claims mapped into the read-only fields, acr as Level, evidence without the full BSN', async () => {
    op.claims = { sub: 'user-1', given_name: 'Jan', family_name: 'Jansen', birthdate: '1980-02-03', bsn: BSN, acr: 'urn:test:high' };
    const { token, id } = await signerWith({ Type: 'DigiD', Bsn: BSN });
    const { response } = await login(token, 'DigiD');
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get('location') ?? '', `${server.url}/sign/identity/return`).pathname).toBe(`/sign/${token}`);
    const session = await call(server.url, 'GET', `/api/signer/${token}`, { auth: false });
    expect(session.json.Verifications.map((v: { Type: string; Done: boolean }) => [v.Type, v.Done])).toEqual([['DigiD', true], ['Consent', false]]);
    const [entry] = await identityAudit(id);
    expect(entry).toEqual({
      signerId: 'Signer1',
      verification: 'DigiD',
      result: 'passed',
      evidence: { protocol: 'OpenID Connect', provider: op.issuer, issuer: op.issuer, subject: 'user-1', level: 'High', Uid: 'user-1', FirstName: 'Jan', LastName: 'Jansen', DateOfBirth: '1980-02-03', Bsn: '…333' },
    });
    const stored = await server.store.getTransaction(id);
    // The Verification holds the fields its Type has in the API; the rest is evidence only.
    expect(stored?.Signers[0]?.Verifications[0]).toEqual({ Type: 'DigiD', Bsn: BSN, Betrouwbaarheidsniveau: 'High' });
  });

  it('userinfo fills what the ID token lacks', async () => {
    op.claims = { sub: 'user-2', given_name: 'Els' };
    const { token, id } = await signerWith({ Type: 'iDIN' });
    expect((await login(token, 'iDIN')).response.status).toBe(303);
    expect((await identityAudit(id))[0]?.evidence).toMatchObject({ subject: 'user-2', Uid: 'user-2', FirstName: 'Els' });
  });

  it.each([
    ['a tampered ID token', { tamper: true }],
    ['a token signed with a key not in the key set', { foreignKey: true }],
    ['a wrong audience', { audience: 'someone-else' }],
    ['an expired token', { expiresIn: -3600 }],
    ['a wrong nonce', { nonce: 'not-the-nonce' }],
  ])('%s is refused in the signer\'s language, audited, and the state is used up', async (_name, spoil) => {
    op.claims = { sub: 'user-3', bsn: BSN, acr: 'urn:test:high' };
    const { token, id } = await signerWith({ Type: 'DigiD', Bsn: BSN });
    op.spoilNext(spoil);
    const { response, callback } = await login(token, 'DigiD');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(NL.identityFailed);
    expect((await identityAudit(id)).map((e) => e.result)).toEqual(['failed']);
    // The same answer again: the state was used.
    const again = await fetch(callback, { redirect: 'manual' });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain(NL.stepUnavailable);
    const session = await call(server.url, 'GET', `/api/signer/${token}`, { auth: false });
    expect(session.json.Verifications[0].Done).toBe(false);
  });

  it('a replayed state is refused after a passed login, and a forged one names no signer', async () => {
    op.claims = { sub: 'user-4', bsn: BSN, acr: 'urn:test:substantial' };
    const { token, id } = await signerWith({ Type: 'DigiD', Bsn: BSN });
    const { response, callback } = await login(token, 'DigiD');
    expect(response.status).toBe(303);
    expect((await fetch(callback, { redirect: 'manual' })).status).toBe(400);
    const forged = new URL(callback);
    forged.searchParams.set('state', 'AAAAAAAAAAAAAAAAAAAAAA.eA.eA');
    expect((await fetch(forged, { redirect: 'manual' })).status).toBe(400);
    expect((await identityAudit(id)).map((e) => e.result)).toEqual(['passed']);
  });

  it('a login cancelled at the provider is refused with the provider\'s reason on record', async () => {
    const { token, id } = await signerWith({ Type: 'DigiD', Bsn: BSN });
    op.spoilNext({ deny: true });
    const { response } = await login(token, 'DigiD');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(NL.identityFailed);
    expect((await identityAudit(id))[0]?.evidence.reason).toContain('access_denied');
  });

  it('an acr outside the accepted levels is refused', async () => {
    op.claims = { sub: 'user-5', bsn: BSN, acr: 'urn:test:low' };
    const { token } = await signerWith({ Type: 'DigiD', Bsn: BSN });
    const { response } = await login(token, 'DigiD');
    expect(response.status).toBe(400);
  });

  it('a BSN other than the one the sender gave ends the step with a 999 activity', async () => {
    op.claims = { sub: 'user-6', bsn: '123456782', acr: 'urn:test:high' };
    const { token, id } = await signerWith({ Type: 'DigiD', Bsn: BSN });
    const { response } = await login(token, 'DigiD');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(NL.identityMismatch);
    const [entry] = await identityAudit(id);
    expect(entry).toMatchObject({ result: 'failed', evidence: { field: 'Bsn', subject: 'user-6' } });
    const tx = await call(server.url, 'GET', `/api/transaction/${id}`);
    expect(tx.json.Signers[0].Activities.map((a: { Code: number }) => a.Code)).toContain(999);
  });

  it('a login whose BSN fails the 11-proef is refused even when the sender gave none', async () => {
    op.claims = { sub: 'user-7', bsn: '123456789', acr: 'urn:test:high' };
    const { token } = await signerWith({ Type: 'DigiD' });
    const { response } = await login(token, 'DigiD');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(NL.identityMismatch);
  });

  it('iDIN: the default claims fill the account holder fields of the Verification', async () => {
    op.claims = {
      sub: 'user-10',
      name: 'E. de Vries',
      birthdate: '1970-01-31',
      address: { street_address: 'Dorpsstraat 1', postal_code: '1234 AB', locality: 'Utrecht' },
    };
    const { token, id } = await signerWith({ Type: 'iDIN' });
    expect((await login(token, 'iDIN')).response.status).toBe(303);
    const stored = await server.store.getTransaction(id);
    expect(stored?.Signers[0]?.Verifications[0]).toEqual({
      Type: 'iDIN',
      AccountHolderName: 'E. de Vries',
      AccountHolderAddress1: 'Dorpsstraat 1',
      AccountHolderAddress2: '1234 AB Utrecht',
      AccountHolderDateOfBirth: '1970-01-31',
    });
  });

  it('iDeal: the account the bank names must be the sender\'s; its holder and city fill the Verification', async () => {
    op.claims = { sub: 'user-11', iban: 'NL91 ABNA 0417 1643 00', name: 'E. de Vries', address: { locality: 'Utrecht' } };
    const paid = await signerWith({ Type: 'iDeal', Iban: 'NL91ABNA0417164300' });
    expect((await login(paid.token, 'iDeal')).response.status).toBe(303);
    expect((await server.store.getTransaction(paid.id))?.Signers[0]?.Verifications[0]).toEqual({
      Type: 'iDeal',
      Iban: 'NL91ABNA0417164300',
      AccountHolderName: 'E. de Vries',
      AccountHolderCity: 'Utrecht',
    });
    const other = await signerWith({ Type: 'iDeal', Iban: 'NL02ABNA0123456789' });
    const { response } = await login(other.token, 'iDeal');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(NL.identityFailed);
    const [entry] = await identityAudit(other.id);
    expect(entry?.result).toBe('failed');
    expect((await server.store.getTransaction(other.id))?.Signers[0]?.Verifications[0]).toEqual({ Type: 'iDeal', Iban: 'NL02ABNA0123456789' });
  });

  it('itsme: a phone number that is not Belgian is refused, a +32 one passes', async () => {
    op.claims = { sub: 'user-8', phone_number: '+31612345678' };
    const first = await signerWith({ Type: 'itsme Identification' });
    expect((await login(first.token, 'itsme Identification')).response.status).toBe(400);
    op.claims = { sub: 'user-8', phone_number: '+32470123456' };
    const second = await signerWith({ Type: 'itsme Identification' });
    expect((await login(second.token, 'itsme Identification')).response.status).toBe(303);
  });

  it('a rotated provider key is picked up once the cached key set is a minute old', async () => {
    op.claims = { sub: 'user-9', bsn: BSN, acr: 'urn:test:high' };
    const first = await signerWith({ Type: 'DigiD', Bsn: BSN });
    expect((await login(first.token, 'DigiD')).response.status).toBe(303);
    const fetches = op.jwksFetches;
    await op.rotateKey();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 2 * 60_000 });
    const second = await signerWith({ Type: 'DigiD', Bsn: BSN });
    expect((await login(second.token, 'DigiD')).response.status).toBe(303);
    expect(op.jwksFetches).toBe(fetches + 1);
  });

  it('a provider that does not answer: 503 with a clear message, no hang', async () => {
    const { token } = await signerWith({ Type: 'eHerkenning' });
    const started = await call(server.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'eHerkenning' } });
    expect(started.status).toBe(503);
    expect(started.headers.get('paraph-error-code')).toBe('IDENTITY_PROVIDER_UNAVAILABLE');
    expect(started.json.Message).toMatch(/did not answer/);
  });
});

describe('OpenID Connect evidence on the receipt', () => {
  it('the signed transaction\'s receipt shows the protocol, provider, level and subject', async () => {
    op.claims = { sub: 'receipt-subject-1', given_name: 'Jan', family_name: 'Jansen', bsn: BSN, acr: 'urn:test:high' };
    const created = await call(server.url, 'POST', '/api/transaction', { json: { Language: 'en-US', Signers: [{ Email: 'jan@example.com', SignRequestMessage: 'Please sign.', Verifications: [{ Type: 'DigiD', Bsn: BSN }, { Type: 'Consent' }] }] } });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const id = created.json.Id as string;
    const token = new URL(created.json.Signers[0].SignUrl as string).pathname.split('/').pop() ?? '';
    expect((await call(server.url, 'PUT', `/api/transaction/${id}/file/contract.pdf`, { body: await makePdf([['Contract']]), headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
    expect((await call(server.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    expect((await login(token, 'DigiD')).response.status).toBe(303);
    expect((await call(server.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'Consent' } })).status).toBe(200);
    expect((await call(server.url, 'POST', `/api/signer/${token}/sign`, { auth: false, json: {} })).status).toBe(200);
    const receipt = await call(server.url, 'GET', `/api/file/receipt/${id}`);
    expect(receipt.status).toBe(200);
    const dir = await mkdtemp(join(tmpdir(), 'paraph-oidc-receipt-'));
    try {
      await writeFile(join(dir, 'receipt.pdf'), receipt.bytes);
      const { stdout } = await promisify(execFile)('pdftotext', ['-enc', 'UTF-8', join(dir, 'receipt.pdf'), '-']);
      const flat = stdout.replace(/\s+/g, ' ');
      for (const shown of ['OpenID Connect', 'receipt-subject-1', 'High', op.issuer]) expect(flat).toContain(shown);
      expect(flat).not.toContain(BSN);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
