/**
 * Identity providers per account (docs/verifications.md#per-account-providers), through the providers file: an entry
 * naming `Accounts` serves those accounts' transactions and wins over the service-wide entry of its Type; the other
 * accounts keep the service-wide one, and a Type only an account has a provider for is refused at start for the rest.
 * The accounts are made with the admin API, then the service starts again with the file that names them.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../src/server.js';
import { call, makePdf, startTestService, tempDataDir } from '../../helpers/service-harness.js';

const ADMIN_TOKEN = 'account-providers-admin-token-0123456789';
let workDir: string;
let dataDir: string;
let server: RunningServer;
let accountA: string;
let accountB: string;
let headersB: Record<string, string>;

const idpMetadata = (entityId: string, sso: string, cert: string) =>
  `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">`
  + '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>'
  + `${cert.replace(/-----[^-]+-----|\s/g, '')}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`
  + `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${sso}"/></md:IDPSSODescriptor></md:EntityDescriptor>`;

/** The service on the shared data directory, on the system clock (the SAML and OIDC exchanges are checked in real time). */
async function start(env: Record<string, string>): Promise<RunningServer> {
  return (await startTestService({ dataDir, now: () => new Date(), env: { PARAPH_ADMIN_TOKEN: ADMIN_TOKEN, ...env } })).server;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'paraph-account-providers-'));
  dataDir = await tempDataDir();
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const first = await start({});
  try {
    const created = await call(first.url, 'POST', '/api/admin/accounts', { auth: false, headers: admin, json: { Name: 'Org B' } });
    accountB = created.json.Id as string;
    const secret = async (Kind: string) => (await call(first.url, 'POST', `/api/admin/accounts/${accountB}/credentials`, { auth: false, headers: admin, json: { Kind } })).json.Secret as string;
    headersB = { authorization: `APIKey ${await secret('UserToken')}`, application: `APPKey ${await secret('AppKey')}` };
    const listed = await call(first.url, 'GET', '/api/admin/accounts', { auth: false, headers: admin });
    accountA = (listed.json as { Id: string }[]).map((a) => a.Id).find((id) => id !== accountB) ?? '';
  } finally {
    await first.close();
  }
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(workDir, 'sp.key'), '-out', join(workDir, 'sp.pem'), '-subj', '/CN=sp', '-days', '2']);
  const cert = await readFile(join(workDir, 'sp.pem'), 'utf8');
  const entry = (extra: Record<string, unknown>) => ({ protocol: 'saml', spPrivateKeyEnv: 'TEST_SP_KEY', spCertificateFile: 'sp.pem', ...extra });
  await writeFile(join(workDir, 'providers.json'), JSON.stringify({
    providers: [
      entry({ type: 'DigiD', spEntityId: 'https://paraph.test/sp', idpMetadata: idpMetadata('https://idp.test', 'https://idp.test/sso', cert) }),
      entry({ type: 'DigiD', Accounts: [accountB], spEntityId: 'https://paraph.test/sp-b', idpMetadata: idpMetadata('https://idp-b.test', 'https://idp-b.test/sso', cert) }),
      entry({ type: 'eHerkenning', Accounts: [accountB], spEntityId: 'https://paraph.test/sp-b', idpMetadata: idpMetadata('https://eh-b.test', 'https://eh-b.test/sso', cert) }),
    ],
  }));
  process.env.TEST_SP_KEY = await readFile(join(workDir, 'sp.key'), 'utf8');
  server = await start({ PARAPH_IDENTITY_PROVIDERS_FILE: join(workDir, 'providers.json') });
}, 60_000);

afterAll(async () => {
  delete process.env.TEST_SP_KEY;
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Creates and starts a one-signer transaction with `type` then Consent as the account of `headers`; the start's answer and the sign token. */
async function transaction(type: string, headers?: Record<string, string>): Promise<{ status: number; text: string; token: string }> {
  const auth = headers === undefined ? {} : { auth: false, headers };
  const created = await call(server.url, 'POST', '/api/transaction', { ...auth, json: { Signers: [{ Email: 'jan@example.com', SignRequestMessage: 'Please sign.', Verifications: [{ Type: type }, { Type: 'Consent' }] }] } });
  expect(created.status, created.text).toBe(200);
  const id = created.json.Id as string;
  const put = await call(server.url, 'PUT', `/api/transaction/${id}/file/contract.pdf`, { ...auth, body: await makePdf([['Contract']]), headers: { ...headers, 'content-type': 'application/pdf' } });
  expect(put.status, put.text).toBe(201);
  const started = await call(server.url, 'PUT', `/api/transaction/${id}/start`, auth);
  return { status: started.status, text: started.text, token: new URL(created.json.Signers[0].SignUrl as string).pathname.split('/').pop() ?? '' };
}

async function loginAddress(token: string, type: string): Promise<string> {
  const begun = await call(server.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: type } });
  expect(begun.status, begun.text).toBe(200);
  const url = new URL(begun.json.RedirectUrl as string);
  return `${url.origin}${url.pathname}`;
}

describe('identity providers per account', () => {
  it('two accounts reach different providers for the same Type', async () => {
    const a = await transaction('DigiD');
    const b = await transaction('DigiD', headersB);
    expect([a.status, b.status]).toEqual([204, 204]);
    expect(await loginAddress(a.token, 'DigiD')).toBe('https://idp.test/sso');
    expect(await loginAddress(b.token, 'DigiD')).toBe('https://idp-b.test/sso');
  });

  it('a Type only one account has a provider for is refused at start for the others', async () => {
    const a = await transaction('eHerkenning');
    expect(a.status).toBe(400);
    expect(a.text).toContain('verification method eHerkenning has no configured provider');
    const b = await transaction('eHerkenning', headersB);
    expect(b.status).toBe(204);
    expect(await loginAddress(b.token, 'eHerkenning')).toBe('https://eh-b.test/sso');
  });

  it('each SAML provider serves its own service-provider metadata', async () => {
    const shared = await fetch(`${server.url}/sign/identity/saml/metadata/DigiD`);
    const own = await fetch(`${server.url}/sign/identity/saml/metadata/DigiD/${accountB}`);
    expect(await shared.text()).toContain('entityID="https://paraph.test/sp"');
    expect(await own.text()).toContain('entityID="https://paraph.test/sp-b"');
    expect((await fetch(`${server.url}/sign/identity/saml/metadata/DigiD/${accountA}`)).status).toBe(404);
  });
});
