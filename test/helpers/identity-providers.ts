/**
 * Real identity-provider software for the identity tests, on 127.0.0.1: an OpenID provider (`oidc-provider`, an
 * OpenID Certified implementation) and a SAML 2.0 identity provider built on samlify, each with its own keys and a
 * login page of one button (`#login`) that logs the test person in.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/** A private key and its self-signed certificate, both PEM. */
export interface KeyPair {
  readonly key: string;
  readonly cert: string;
}

/** An RSA key with a self-signed certificate for `CN=<name>`, made by openssl in `dir`. */
export async function selfSignedKeyPair(dir: string, name: string): Promise<KeyPair> {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.pem`);
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-subj', `/CN=${name}`, '-days', '2']);
  return { key: await readFile(key, 'utf8'), cert: await readFile(cert, 'utf8') };
}

/**
 * The part of samlify the tests use. Loaded with require: samlify's own declarations pull the DOM library into the
 * whole project's type check.
 */
export interface Samlify {
  setSchemaValidator(validator: { validate: (xml: string) => Promise<string> }): void;
  IdentityProvider(settings: Record<string, unknown>): SamlifyIdp;
  ServiceProvider(settings: Record<string, unknown>): unknown;
}

export interface SamlifyIdp {
  getMetadata(): string;
  createLoginResponse(sp: unknown, requestInfo: unknown, binding: 'post', user: object, replace: () => { id: string; context: string }): Promise<{ context: string }>;
}

/** samlify, with its schema validator stubbed: the tests read paraph's AuthnRequests themselves. */
export const samlify: Samlify = (() => {
  const loaded = createRequire(import.meta.url)('samlify') as Samlify;
  loaded.setSchemaValidator({ validate: async () => 'skipped' });
  return loaded;
})();

/** A server on 127.0.0.1 and its base URL. */
export interface RunningProvider {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export interface OidcProviderOptions {
  /** paraph's base URL: its `/sign/identity/return` is the client's one redirect URI. */
  readonly paraphUrl: string;
  /** The account that logs in (the ID token's `sub`). */
  readonly accountId: string;
  /** Claims of that account beyond `sub`. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** Scope → claims it releases (`openid: ['sub']` and `acr` are always there). */
  readonly scopes: Readonly<Record<string, readonly string[]>>;
  /** The `acr` of every login. */
  readonly acr: string;
}

/** The client paraph is registered as at {@link startOidcProvider}'s provider. */
export const OIDC_CLIENT = { clientId: 'paraph', clientSecret: 'paraph-secret-0123456789abcdef' } as const;

/**
 * `oidc-provider` with its own RS256 key, {@link OIDC_CLIENT} registered, and an interaction page whose `#login`
 * button logs `accountId` in with `acr` and grants the scopes asked for.
 */
export async function startOidcProvider(options: OidcProviderOptions): Promise<RunningProvider> {
  const server = createServer();
  const issuer = await listen(server);
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [{ client_id: OIDC_CLIENT.clientId, client_secret: OIDC_CLIENT.clientSecret, redirect_uris: [`${options.paraphUrl}/sign/identity/return`], response_types: ['code'], grant_types: ['authorization_code'] }],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ ...options.claims, sub: id }) }),
    claims: { acr: null, openid: ['sub'], ...Object.fromEntries(Object.entries(options.scopes).map(([scope, claims]) => [scope, [...claims]])) },
    conformIdTokenClaims: false,
    acrValues: [options.acr],
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['a-test-cookie-key'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
  });
  const callback = provider.callback();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const match = /^\/interaction\/([^/]+)(\/login)?$/.exec(new URL(request.url ?? '/', issuer).pathname);
    if (match === null) {
      callback(request, response);
      return;
    }
    void (async () => {
      const details = await provider.interactionDetails(request, response);
      if (match[2] === undefined) {
        response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Test IdP</title><form method="post" action="/interaction/${details.uid}/login"><button id="login">Log in</button></form>`);
        return;
      }
      const grant = new provider.Grant({ accountId: options.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      await provider.interactionFinished(request, response, { login: { accountId: options.accountId, acr: options.acr }, consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: false });
    })().catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  return { url: issuer, close: closer(server) };
}

export interface SamlIdpOptions {
  readonly entityId: string;
  /** The identity provider's signing key. */
  readonly keys: KeyPair;
  /** paraph's SP entity id: the audience of every assertion. */
  readonly spEntityId: string;
  /** The subject's persistent NameID. */
  readonly nameId: string;
  readonly authnContextClassRef: string;
  /** Attribute name → value of every assertion. */
  readonly attributes: Readonly<Record<string, string>>;
}

/** A SAML identity provider on 127.0.0.1 and its metadata (for paraph's configuration). */
export interface RunningSamlIdp extends RunningProvider {
  readonly metadata: string;
}

/**
 * A samlify identity provider whose single sign-on address (`/sso`, redirect binding) reads paraph's AuthnRequest and
 * shows a `#login` button that posts a response with a signed assertion to the request's assertion consumer service.
 */
export async function startSamlIdp(options: SamlIdpOptions): Promise<RunningSamlIdp> {
  const server = createServer();
  const url = await listen(server);
  const idp = samlify.IdentityProvider({
    entityID: options.entityId,
    privateKey: options.keys.key,
    signingCert: options.keys.cert,
    singleSignOnService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: `${url}/sso` }],
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const at = new URL(request.url ?? '/', url);
      const authnRequest = inflateRawSync(Buffer.from(at.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
      const requestId = /\bID="([^"]+)"/.exec(authnRequest)?.[1] ?? '';
      const acs = /AssertionConsumerServiceURL="([^"]+)"/.exec(authnRequest)?.[1] ?? '';
      const xml = loginResponseXml(options, requestId, acs, new Date());
      const sp = samlify.ServiceProvider({ entityID: options.spEntityId, assertionConsumerService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', Location: acs }], wantAssertionsSigned: true, wantMessageSigned: false });
      const { context } = await idp.createLoginResponse(sp, { extract: { request: { id: requestId } } }, 'post', {}, () => ({ id: requestId, context: xml }));
      const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`;
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Test IdP</title><form method="post" action="${acs}">${field('SAMLResponse', context)}${field('RelayState', at.searchParams.get('RelayState') ?? '')}<button id="login">Log in</button></form>`);
    })().catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  return { url, metadata: idp.getMetadata(), close: closer(server) };
}

function loginResponseXml(options: SamlIdpOptions, requestId: string, acs: string, now: Date): string {
  const issued = now.toISOString();
  const until = new Date(now.getTime() + 5 * 60_000).toISOString();
  const attributes = Object.entries(options.attributes).map(([name, value]) => `<saml:Attribute Name="${name}"><saml:AttributeValue>${value}</saml:AttributeValue></saml:Attribute>`).join('');
  return `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${requestId}" Version="2.0" IssueInstant="${issued}" Destination="${acs}" InResponseTo="${requestId}">`
    + `<saml:Issuer>${options.entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>`
    + `<saml:Assertion ID="_a${requestId}" Version="2.0" IssueInstant="${issued}"><saml:Issuer>${options.entityId}</saml:Issuer>`
    + `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${options.nameId}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${until}" Recipient="${acs}" InResponseTo="${requestId}"/></saml:SubjectConfirmation></saml:Subject>`
    + `<saml:Conditions NotBefore="${issued}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${options.spEntityId}</saml:Audience></saml:AudienceRestriction></saml:Conditions>`
    + `<saml:AuthnStatement AuthnInstant="${issued}"><saml:AuthnContext><saml:AuthnContextClassRef>${options.authnContextClassRef}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`
    + `<saml:AttributeStatement>${attributes}</saml:AttributeStatement></saml:Assertion></samlp:Response>`;
}
