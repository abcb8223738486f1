/**
 * Two signing journeys in Chromium (playwright-core driving /usr/bin/chromium) through real identity providers on
 * 127.0.0.1: a signer who must first log in with the national digital identity (a DigiD Authentication over SAML 2.0,
 * against an identity provider built on samlify with its own key) and then places a Scribble; and a signer whose
 * verification is an OpenID Connect login (oidc-provider) before the Scribble. Each goes from the invitation link to
 * status 30; the receipt shows the identity evidence (pdftotext) and pdfsig accepts the signed PDF.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server.js';
import { createOidcIdentityProvider } from '../../src/service/identity/oidc-identity-provider.js';
import { createProviderChoice } from '../../src/service/identity/provider-choice.js';
import { parseIdpMetadata } from '../../src/service/identity/saml-idp-metadata.js';
import { createSamlIdentityProvider } from '../../src/service/identity/saml-identity-provider.js';
import { pdfsigCheck } from '../helpers/external-tools.js';
import { OIDC_CLIENT, selfSignedKeyPair, startOidcProvider, startSamlIdp, type RunningProvider } from '../helpers/identity-providers.js';
import { call, freePort, startTestService, tempDataDir } from '../helpers/service-harness.js';
import { createSigningTransaction } from '../service/signer/signer-fixture.js';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const BSN = '111222333';
const SP_ENTITY = 'https://paraph.test/sp';
const CLASS_HIGH = 'urn:oasis:names:tc:SAML:2.0:ac:classes:Smartcard';

let server: RunningServer;
let dataDir: string;
let workDir: string;
let samlIdp: RunningProvider;
let op: RunningProvider;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'paraph-journeys-'));
  const [idpKeys, spKeys] = await Promise.all([selfSignedKeyPair(workDir, 'idp'), selfSignedKeyPair(workDir, 'sp')]);
  const idp = await startSamlIdp({
    entityId: 'https://idp.test/saml',
    keys: idpKeys,
    spEntityId: SP_ENTITY,
    nameId: 'jan-digid-7',
    authnContextClassRef: CLASS_HIGH,
    attributes: { 'urn:nl-eid-gdi:1.0:id:BSN': BSN },
  });
  samlIdp = idp;
  const port = await freePort();
  op = await startOidcProvider({
    paraphUrl: `http://127.0.0.1:${port}`,
    accountId: 'jan-oidc-7',
    claims: { given_name: 'Jan', family_name: 'Jansen' },
    scopes: { profile: ['given_name', 'family_name'] },
    acr: 'urn:test:high',
  });

  dataDir = await tempDataDir();
  const service = await startTestService({
    dataDir,
    port,
    // The providers stamp their tokens and assertions with the wall clock.
    now: () => new Date(),
    identityProviders: [
      createSamlIdentityProvider({
        type: 'DigiD',
        spEntityId: SP_ENTITY,
        idp: await parseIdpMetadata(idp.metadata),
        signingKey: spKeys.key,
        signingCertificate: spKeys.cert,
        levels: { [CLASS_HIGH]: 'Hoog' },
      }, { publicUrl: () => server.url, clock: () => new Date() }),
      createProviderChoice('OpenID Providers', [{
        name: 'Test IdP',
        provider: createOidcIdentityProvider({ type: 'OpenID Providers', name: 'Test IdP', issuer: op.url, ...OIDC_CLIENT, allowHttp: true, acrValues: ['urn:test:high'], acrLevels: { 'urn:test:high': 'High' } }),
      }]),
    ],
  });
  server = service.server;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await samlIdp?.close();
  await op?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** The identity step on the signing page: to the provider, its login button, and back on the signing page. */
async function logInThroughProvider(page: Page, token: string, providerUrl: string): Promise<void> {
  await page.locator('#step-external').waitFor({ state: 'visible' });
  await page.locator('#external-go').click();
  await page.waitForURL((url) => url.href.startsWith(providerUrl));
  await page.locator('#login').click();
  await page.waitForURL(`${server.url}/sign/${token}`);
}

/** The Scribble as a typed name, the fields filled where they are on the page, and signed. */
async function scribbleAndSign(page: Page): Promise<void> {
  await page.locator('#step-scribble').waitFor();
  await page.locator('#scribble-name').fill('Jan Jansen');
  await page.locator('#scribble-confirm').click();
  await page.locator('#step-sign').waitFor();
  const fields = page.locator('.page input.on-page');
  await fields.nth(0).check();
  await fields.nth(1).fill('Delft');
  await page.locator('#sign-button').click();
  await page.locator('#message.success').waitFor({ timeout: 30_000 });
}

/** Status 30; the receipt shows `shown` and not the BSN; pdfsig accepts the signed contract. */
async function expectSignedWithEvidence(id: string, shown: readonly string[]): Promise<void> {
  await expect.poll(async () => (await call(server.url, 'GET', `/api/transaction/${id}`)).json.Status, { timeout: 20_000 }).toBe(30);
  const receipt = await call(server.url, 'GET', `/api/file/receipt/${id}`);
  expect(receipt.status).toBe(200);
  const dir = await mkdtemp(join(tmpdir(), 'paraph-journey-receipt-'));
  try {
    await writeFile(join(dir, 'receipt.pdf'), receipt.bytes);
    const flat = (await promisify(execFile)('pdftotext', ['-enc', 'UTF-8', join(dir, 'receipt.pdf'), '-'])).stdout.replace(/\s+/g, ' ');
    for (const text of shown) expect(flat).toContain(text);
    expect(flat).not.toContain(BSN);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const signed = await call(server.url, 'GET', `/api/transaction/${id}/file/contract`);
  const sig = await pdfsigCheck(signed.bytes);
  expect(sig.signatures.length, sig.stdout).toBe(1);
  expect(sig.signatures.every((x) => x.valid), sig.stdout).toBe(true);
}

async function inChromium(run: (page: Page) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'paraph-chromium-'));
  const context = await chromium.launchPersistentContext(dir, { executablePath: '/usr/bin/chromium', headless: true, args: FLAGS });
  try {
    await run(context.pages()[0] ?? (await context.newPage()));
  } finally {
    await context.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('signing journeys through identity providers, in Chromium', () => {
  it('DigiD authentication over SAML 2.0, then a Scribble: invitation to status 30, evidence on the receipt', async () => {
    const tx = await createSigningTransaction(server.url, { seal: false, signers: [{ Email: 'jan@example.com', Language: 'en-US', Authentications: [{ Type: 'DigiD', Bsn: BSN }], Verifications: [{ Type: 'Scribble' }] }] });
    const { token, signUrl } = tx.signers[0]!;
    await inChromium(async (page) => {
      await page.goto(signUrl);
      await logInThroughProvider(page, token, samlIdp.url);
      await scribbleAndSign(page);
    });
    await expectSignedWithEvidence(tx.id, ['SAML 2.0', 'https://idp.test/saml', 'jan-digid-7', 'Hoog']);
  });

  it('an OpenID Connect verification, then a Scribble: invitation to status 30, evidence on the receipt', async () => {
    const tx = await createSigningTransaction(server.url, { seal: false, signers: [{ Email: 'jan@example.com', Language: 'en-US', Verifications: [{ Type: 'OpenID Providers', ProviderName: 'Test IdP' }, { Type: 'Scribble' }] }] });
    const { token, signUrl } = tx.signers[0]!;
    await inChromium(async (page) => {
      await page.goto(signUrl);
      await logInThroughProvider(page, token, op.url);
      await scribbleAndSign(page);
    });
    await expectSignedWithEvidence(tx.id, ['OpenID Connect', 'Test IdP', 'jan-oidc-7', 'High']);
  });
});
