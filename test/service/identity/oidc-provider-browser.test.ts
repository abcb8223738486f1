/**
 * The OpenID Connect relying party against `oidc-provider` (a certified provider implementation) on 127.0.0.1 with its
 * own key: the signer's Chromium starts the DigiD step on the signing page, is redirected to the provider, logs in on
 * its (minimal, test-configured) interaction page, comes back to paraph's callback and lands on the signing page with
 * the step passed. A second run drives the same redirects with fetch and a cookie jar, and a named provider of
 * `OpenID Providers` is reached through paraph's list when the Verification's ProviderName matches none.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../src/server.js';
import { createOidcIdentityProvider } from '../../../src/service/identity/oidc-identity-provider.js';
import { createProviderChoice } from '../../../src/service/identity/provider-choice.js';
import { OIDC_CLIENT, startOidcProvider, type RunningProvider } from '../../helpers/identity-providers.js';
import { call, freePort, startTestService, tempDataDir } from '../../helpers/service-harness.js';
import { createSigningTransaction } from '../signer/signer-fixture.js';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const BSN = '111222333';

let op: RunningProvider;
let issuer: string;
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  const port = await freePort();
  op = await startOidcProvider({
    paraphUrl: `http://127.0.0.1:${port}`,
    accountId: 'jan',
    claims: { given_name: 'Jan', family_name: 'Jansen', birthdate: '1980-02-03', bsn: BSN },
    scopes: { profile: ['given_name', 'family_name', 'birthdate'], bsn: ['bsn'] },
    acr: 'urn:test:high',
  });
  issuer = op.url;

  dataDir = await tempDataDir();
  const settings = { issuer, ...OIDC_CLIENT, allowHttp: true, scope: 'openid profile bsn', acrValues: ['urn:test:high'], acrLevels: { 'urn:test:high': 'High' } };
  const service = await startTestService({
    dataDir,
    port,
    identityProviders: [
      createOidcIdentityProvider({ ...settings, type: 'DigiD' }),
      createProviderChoice('OpenID Providers', [
        { name: 'Test IdP', provider: createOidcIdentityProvider({ ...settings, type: 'OpenID Providers', name: 'Test IdP' }) },
        { name: 'Other IdP', provider: createOidcIdentityProvider({ ...settings, type: 'OpenID Providers', name: 'Other IdP', issuer: 'https://idp.invalid' }) },
      ]),
    ],
  });
  server = service.server;
});

afterAll(async () => {
  await server?.close();
  await op?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** fetch with a cookie jar that follows redirects by hand until `stopAt` is reached; returns the last response. */
async function follow(start: string, stopAt: (url: string) => boolean, jar: Map<string, string>, init: RequestInit = {}): Promise<{ url: string; response: Response }> {
  let url = start;
  let options = init;
  for (let hop = 0; hop < 15; hop += 1) {
    const response = await fetch(url, { ...options, redirect: 'manual', headers: { ...(options.headers as Record<string, string> | undefined), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (name) jar.set(name.trim(), value.join('='));
    }
    const location = response.headers.get('location');
    if (location === null || stopAt(url)) return { url, response };
    url = new URL(location, url).href;
    options = {};
  }
  throw new Error(`too many redirects from ${start}`);
}

describe('OpenID Connect against oidc-provider', () => {
  it('Chromium: signing page → provider login → callback → the DigiD step passed', async () => {
    const tx = await createSigningTransaction(server.url, { signers: [{ Email: 'jan@example.com', Verifications: [{ Type: 'DigiD', Bsn: BSN }, { Type: 'Consent' }] }] });
    const { token, signUrl } = tx.signers[0]!;
    const dir = await mkdtemp(join(tmpdir(), 'paraph-chromium-'));
    const context = await chromium.launchPersistentContext(dir, { executablePath: '/usr/bin/chromium', headless: true, args: FLAGS });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(signUrl);
      await page.locator('#step-external').waitFor({ state: 'visible' });
      await page.locator('#external-go').click();
      await page.waitForURL((url) => url.href.startsWith(`${issuer}/interaction/`));
      await page.locator('#login').click();
      await page.waitForURL(`${server.url}/sign/${token}`);
      const session = await call(server.url, 'GET', `/api/signer/${token}`, { auth: false });
      expect(session.json.Verifications.map((v: { Type: string; Done: boolean }) => [v.Type, v.Done])).toEqual([['DigiD', true], ['Consent', false]]);
      const audit = await server.store.listAuditEntries(tx.id);
      expect(audit.find((e) => e.type === 'verification.performed')?.data).toMatchObject({
        verification: 'DigiD',
        result: 'passed',
        evidence: { protocol: 'OpenID Connect', issuer, subject: 'jan', level: 'High', FirstName: 'Jan', Bsn: '…333' },
      });
    } finally {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fetch: OpenID Providers with an unknown ProviderName goes through paraph\'s list to the named provider', async () => {
    const tx = await createSigningTransaction(server.url, { signers: [{ Email: 'jan@example.com', Verifications: [{ Type: 'OpenID Providers', ProviderName: 'Nobody' }, { Type: 'Consent' }] }] });
    const { token } = tx.signers[0]!;
    const started = await call(server.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'OpenID Providers' } });
    expect(started.json.RedirectUrl).toMatch(new RegExp(`^${server.url}/sign/identity/choose\\?state=`));
    const list = await fetch(started.json.RedirectUrl as string);
    const html = await list.text();
    expect(html).toContain('Test IdP');
    expect(html).toContain('Other IdP');
    const href = /href="([^"]*Test\+IdP[^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    expect(href).toBeDefined();
    const jar = new Map<string, string>();
    const atLogin = await follow(new URL(href ?? '', started.json.RedirectUrl as string).href, (url) => url.includes('/interaction/'), jar);
    expect(atLogin.response.status).toBe(200);
    const uid = /\/interaction\/([^/]+)$/.exec(atLogin.url)?.[1] ?? '';
    const back = await follow(`${issuer}/interaction/${uid}/login`, (url) => url.startsWith(`${server.url}/sign/identity/return`), jar, { method: 'POST' });
    expect(back.response.status).toBe(303);
    const session = await call(server.url, 'GET', `/api/signer/${token}`, { auth: false });
    expect(session.json.Verifications[0].Done).toBe(true);
    const audit = await server.store.listAuditEntries(tx.id);
    expect(audit.find((e) => e.type === 'verification.performed')?.data).toMatchObject({ evidence: { provider: 'Test IdP', subject: 'jan' } });
  });
});
