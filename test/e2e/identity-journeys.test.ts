/**
 * Two signing journeys in Chromium (playwright-core driving /usr/bin/chromium) through real identity providers on
 * 127.0.0.1: a signer who must first log in with the national digital identity (a DigiD Authentication over SAML 2.0,
 * against an identity provider built on samlify with its own key) and then places a Scribble; and a signer whose
 * verification is an OpenID Connect login (oidc-provider) before the Scribble. Each goes from the invitation link to
 * status 30; the receipt shows the identity evidence (pdftotext) and pdfsig accepts the signed PDF.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createOidcIdentityProvider } from '../../src/service/identity/oidc-identity-provider.js';
import { createProviderChoice } from '../../src/service/identity/provider-choice.js';
import { parseIdpMetadata } from '../../src/service/identity/saml-idp-metadata.js';
import { createSamlIdentityProvider } from '../../src/service/identity/saml-identity-provider.js';
import { pdfsigCheck } from '../helpers/external-tools.js';
import { APP_KEY, call, freePort, tempDataDir, USER_TOKEN } from '../helpers/service-harness.js';
import { createSigningTransaction } from '../service/signer/signer-fixture.js';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const BSN = '111222333';
const SP_ENTITY = 'https://paraph.test/sp';
const CLASS_HIGH = 'urn:oasis:names:tc:SAML:2.0:ac:classes:Smartcard';

/** The part of samlify the test uses (loaded with require: its declarations pull the DOM library into the type check). */
interface Samlify {
  setSchemaValidator(validator: { validate: (xml: string) => Promise<string> }): void;
  IdentityProvider(settings: Record<string, unknown>): {
    getMetadata(): string;
    createLoginResponse(sp: unknown, requestInfo: unknown, binding: 'post', user: object, replace: () => { id: string; context: string }): Promise<{ context: string }>;
  };
  ServiceProvider(settings: Record<string, unknown>): unknown;
}
const samlify = createRequire(import.meta.url)('samlify') as Samlify;
samlify.setSchemaValidator({ validate: async () => 'skipped' });

let server: RunningServer;
let dataDir: string;
let workDir: string;
let samlIdp: Server;
let samlIdpUrl: string;
let opServer: Server;
let issuer: string;

async function keyPair(name: string): Promise<{ key: string; cert: string }> {
  const key = join(workDir, `${name}.key`);
  const cert = join(workDir, `${name}.pem`);
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-subj', `/CN=${name}`, '-days', '2']);
  return { key: await readFile(key, 'utf8'), cert: await readFile(cert, 'utf8') };
}

/**
 * The SAML identity provider: its single sign-on address reads paraph's AuthnRequest and shows a login button that
 * posts a signed response (Jan, the BSN, the high level) to paraph's assertion consumer service.
 */
function startSamlIdp(idpKeys: { key: string; cert: string }): ReturnType<Samlify['IdentityProvider']> {
  const idp = samlify.IdentityProvider({
    entityID: 'https://idp.test/saml',
    privateKey: idpKeys.key,
    signingCert: idpKeys.cert,
    singleSignOnService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: `${samlIdpUrl}/sso` }],
  });
  samlIdp.on('request', (request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const url = new URL(request.url ?? '/', samlIdpUrl);
      const authnRequest = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
      const requestId = /\bID="([^"]+)"/.exec(authnRequest)?.[1] ?? '';
      const acs = /AssertionConsumerServiceURL="([^"]+)"/.exec(authnRequest)?.[1] ?? '';
      const now = new Date();
      const until = new Date(now.getTime() + 5 * 60_000).toISOString();
      const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${requestId}" Version="2.0" IssueInstant="${now.toISOString()}" Destination="${acs}" InResponseTo="${requestId}">`
        + '<saml:Issuer>https://idp.test/saml</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>'
        + `<saml:Assertion ID="_a${requestId}" Version="2.0" IssueInstant="${now.toISOString()}"><saml:Issuer>https://idp.test/saml</saml:Issuer>`
        + `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">jan-digid-7</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${until}" Recipient="${acs}" InResponseTo="${requestId}"/></saml:SubjectConfirmation></saml:Subject>`
        + `<saml:Conditions NotBefore="${now.toISOString()}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${SP_ENTITY}</saml:Audience></saml:AudienceRestriction></saml:Conditions>`
        + `<saml:AuthnStatement AuthnInstant="${now.toISOString()}"><saml:AuthnContext><saml:AuthnContextClassRef>${CLASS_HIGH}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`
        + `<saml:AttributeStatement><saml:Attribute Name="urn:nl-eid-gdi:1.0:id:BSN"><saml:AttributeValue>${BSN}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement></saml:Assertion></samlp:Response>`;
      const sp = samlify.ServiceProvider({ entityID: SP_ENTITY, assertionConsumerService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', Location: acs }], wantAssertionsSigned: true, wantMessageSigned: false });
      const { context } = await idp.createLoginResponse(sp, { extract: { request: { id: requestId } } }, 'post', {}, () => ({ id: requestId, context: xml }));
      const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`;
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Test DigiD</title><form method="post" action="${acs}">${field('SAMLResponse', context)}${field('RelayState', url.searchParams.get('RelayState') ?? '')}<button id="login">Log in as Jan</button></form>`);
    })().catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  return idp;
}

/** The OpenID provider's interaction: one button that logs Jan in with the high level and grants the scopes. */
function interactions(provider: Provider, request: IncomingMessage, response: ServerResponse): boolean {
  const url = new URL(request.url ?? '/', issuer);
  const match = /^\/interaction\/([^/]+)(\/login)?$/.exec(url.pathname);
  if (match === null) return false;
  void (async () => {
    const details = await provider.interactionDetails(request, response);
    if (match[2] === undefined) {
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Test IdP</title><form method="post" action="/interaction/${details.uid}/login"><button id="login">Log in as Jan</button></form>`);
      return;
    }
    const grant = new provider.Grant({ accountId: 'jan-oidc-7', clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    await provider.interactionFinished(request, response, { login: { accountId: 'jan-oidc-7', acr: 'urn:test:high' }, consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: false });
  })().catch((error: unknown) => response.writeHead(500).end(String(error)));
  return true;
}

async function listen(httpServer: Server): Promise<string> {
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'paraph-journeys-'));
  const [idpKeys, spKeys] = await Promise.all([keyPair('idp'), keyPair('sp')]);
  samlIdp = createServer();
  samlIdpUrl = await listen(samlIdp);
  const idp = startSamlIdp(idpKeys!);

  opServer = createServer();
  issuer = await listen(opServer);
  const port = await freePort();
  const paraphUrl = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'paraph', client_secret: 'paraph-secret-0123456789abcdef', redirect_uris: [`${paraphUrl}/sign/identity/return`], response_types: ['code'], grant_types: ['authorization_code'] }],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id, given_name: 'Jan', family_name: 'Jansen' }) }),
    claims: { acr: null, openid: ['sub'], profile: ['given_name', 'family_name'] },
    conformIdTokenClaims: false,
    acrValues: ['urn:test:high'],
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['a-test-cookie-key'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
  });
  const callback = provider.callback();
  opServer.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!interactions(provider, request, response)) callback(request, response);
  });

  dataDir = await tempDataDir();
  const config = loadConfig({ env: { HOST: '127.0.0.1', PORT: String(port), PARAPH_DATA_DIR: dataDir, PARAPH_USER_TOKEN: USER_TOKEN, PARAPH_APP_KEY: APP_KEY, PARAPH_FILE_REPLACE_GUARD_MS: '0' } });
  server = await startServer(config, {
    keyKind: 'ecdsa-p256',
    logger: false,
    worker: false,
    identityProviders: [
      createSamlIdentityProvider({
        type: 'DigiD',
        spEntityId: SP_ENTITY,
        idp: await parseIdpMetadata(idp.getMetadata()),
        signingKey: spKeys!.key,
        signingCertificate: spKeys!.cert,
        levels: { [CLASS_HIGH]: 'Hoog' },
      }, { publicUrl: () => server.url, clock: () => new Date() }),
      createProviderChoice('OpenID Providers', [{
        name: 'Test IdP',
        provider: createOidcIdentityProvider({ type: 'OpenID Providers', name: 'Test IdP', issuer, clientId: 'paraph', clientSecret: 'paraph-secret-0123456789abcdef', allowHttp: true, acrValues: ['urn:test:high'], acrLevels: { 'urn:test:high': 'High' } }),
      }]),
    ],
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  for (const httpServer of [samlIdp, opServer]) {
    await new Promise<void>((resolve) => {
      httpServer?.closeAllConnections();
      httpServer?.close(() => resolve());
    });
  }
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
      await logInThroughProvider(page, token, samlIdpUrl);
      await scribbleAndSign(page);
    });
    await expectSignedWithEvidence(tx.id, ['SAML 2.0', 'https://idp.test/saml', 'jan-digid-7', 'Hoog']);
  });

  it('an OpenID Connect verification, then a Scribble: invitation to status 30, evidence on the receipt', async () => {
    const tx = await createSigningTransaction(server.url, { seal: false, signers: [{ Email: 'jan@example.com', Language: 'en-US', Verifications: [{ Type: 'OpenID Providers', ProviderName: 'Test IdP' }, { Type: 'Scribble' }] }] });
    const { token, signUrl } = tx.signers[0]!;
    await inChromium(async (page) => {
      await page.goto(signUrl);
      await logInThroughProvider(page, token, issuer);
      await scribbleAndSign(page);
    });
    await expectSignedWithEvidence(tx.id, ['OpenID Connect', 'Test IdP', 'jan-oidc-7', 'High']);
  });
});
