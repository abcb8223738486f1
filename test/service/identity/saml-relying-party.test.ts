/**
 * The SAML 2.0 service provider inside the service (docs/verifications.md#saml-20), against an identity provider built
 * on samlify with its own key. Every answer is posted to paraph's real assertion consumer service over HTTP. A signed
 * response, a signed assertion and an encrypted signed assertion pass with the attributes mapped, the level from the
 * AuthnContext and the evidence recorded; a wrong audience, an expired assertion, a replay, an unsigned response, a
 * wrong InResponseTo and the classic signature-wrapping shapes are refused, audited, and leave nothing in the
 * Verification.
 */
import { verify } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningServer } from '../../../src/server.js';
import { CATALOGUES } from '../../../src/i18n/catalogue.js';
import { parseIdpMetadata } from '../../../src/service/identity/saml-idp-metadata.js';
import { createSamlIdentityProvider } from '../../../src/service/identity/saml-identity-provider.js';
import { samlify, selfSignedKeyPair, type KeyPair } from '../../helpers/identity-providers.js';
import { call, startTestService, tempDataDir } from '../../helpers/service-harness.js';
import { createSigningTransaction } from '../signer/signer-fixture.js';

const IDP_ENTITY = 'https://idp.test/saml';
const SP_ENTITY = 'https://paraph.test/sp';
const BSN = '111222333';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const CLASS_HIGH = 'urn:oasis:names:tc:SAML:2.0:ac:classes:Smartcard';

/** Response checks whose thread has loaded node-saml and is checking (the thread says `ready`). */
const checking = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:worker_threads', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:worker_threads')>();
  class ObservedWorker extends original.Worker {
    constructor(...args: ConstructorParameters<typeof original.Worker>) {
      super(...args);
      const data = args[1]?.workerData as { samlResponse?: unknown } | undefined;
      if (data?.samlResponse !== undefined) this.on('message', (reply: { kind?: unknown }) => { if (reply.kind === 'ready') checking.count += 1; });
    }
  }
  return { ...original, Worker: ObservedWorker };
});

let keys: { idp: KeyPair; other: KeyPair; spSign: KeyPair; spDecrypt: KeyPair };
let workDir: string;
let dataDir: string;
let server: RunningServer;
/** The SAML provider's clock runs ahead of the wall clock by this much (samlify stamps its assertions with the wall clock). */
let clockOffsetMs = 0;

function testIdp(signing: KeyPair, encrypt = false) {
  return samlify.IdentityProvider({
    entityID: IDP_ENTITY,
    privateKey: signing.key,
    signingCert: signing.cert,
    singleSignOnService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: 'https://idp.test/sso' }],
    singleLogoutService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: 'https://idp.test/slo' }],
    isAssertionEncrypted: encrypt,
  });
}

/** samlify's view of paraph: which parts it signs is what the variants change. */
function testSp(signAssertion: boolean, signResponse: boolean) {
  return samlify.ServiceProvider({
    entityID: SP_ENTITY,
    assertionConsumerService: [{ Binding: POST, Location: `${server.url}/sign/identity/saml/acs` }],
    wantAssertionsSigned: signAssertion,
    wantMessageSigned: signResponse,
    encryptCert: keys.spDecrypt.cert,
  });
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'paraph-saml-'));
  const [idp, other, spSign, spDecrypt] = await Promise.all(['idp', 'other', 'sp-sign', 'sp-decrypt'].map((name) => selfSignedKeyPair(workDir, name)));
  keys = { idp: idp!, other: other!, spSign: spSign!, spDecrypt: spDecrypt! };
  dataDir = await tempDataDir();
  const provider = createSamlIdentityProvider({
    type: 'DigiD',
    spEntityId: SP_ENTITY,
    idp: await parseIdpMetadata(testIdp(keys.idp).getMetadata()),
    signingKey: keys.spSign.key,
    signingCertificate: keys.spSign.cert,
    decryptionKey: keys.spDecrypt.key,
    decryptionCertificate: keys.spDecrypt.cert,
    attributes: { Bsn: 'urn:nl-eid-gdi:1.0:id:BSN' },
    authnContext: ['urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract'],
    levels: { [CLASS_HIGH]: 'Hoog', 'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract': 'Substantieel' },
  }, { publicUrl: () => server.url, clock: () => new Date(Date.now() + clockOffsetMs) });
  server = (await startTestService({ dataDir, identityProviders: [provider] })).server;
});

afterAll(async () => {
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A started transaction whose signer has DigiD then Consent. */
async function signer(): Promise<{ token: string; id: string }> {
  const tx = await createSigningTransaction(server.url, { signers: [{ Email: 'jan@example.com', Verifications: [{ Type: 'DigiD', Bsn: BSN }, { Type: 'Consent' }] }] });
  return { token: tx.signers[0]!.token, id: tx.id };
}

/** Starts the step; checks paraph's AuthnRequest (redirect binding, signed with the SP key) and returns its ID and RelayState. */
async function startLogin(token: string): Promise<{ requestId: string; relayState: string }> {
  const started = await call(server.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'DigiD' } });
  expect(started.status).toBe(200);
  const url = new URL(started.json.RedirectUrl as string);
  expect(`${url.origin}${url.pathname}`).toBe('https://idp.test/sso');
  const raw = url.search.slice(1).split('&');
  const part = (name: string) => raw.find((p) => p.startsWith(`${name}=`)) ?? '';
  const signed = [part('SAMLRequest'), part('RelayState'), part('SigAlg')].join('&');
  expect(verify('sha256', Buffer.from(signed), keys.spSign.cert, Buffer.from(url.searchParams.get('Signature') ?? '', 'base64'))).toBe(true);
  const request = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  expect(request).toContain(`<saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${SP_ENTITY}</saml:Issuer>`);
  expect(request).toContain(`AssertionConsumerServiceURL="${server.url}/sign/identity/saml/acs"`);
  const requestId = /\bID="([^"]+)"/.exec(request)?.[1] ?? '';
  return { requestId, relayState: url.searchParams.get('RelayState') ?? '' };
}

interface ResponseShape {
  requestId: string;
  audience?: string;
  recipient?: string;
  notOnOrAfter?: Date;
  nameId?: string;
  assertionId?: string;
  classRef?: string;
}

/** The IdP's response XML before signing. */
function responseXml(shape: ResponseShape): string {
  const now = new Date();
  const until = (shape.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
  const acs = `${server.url}/sign/identity/saml/acs`;
  const assertionId = shape.assertionId ?? `_a${Math.random().toString(16).slice(2)}`;
  return `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${Math.random().toString(16).slice(2)}" Version="2.0" IssueInstant="${now.toISOString()}" Destination="${acs}" InResponseTo="${shape.requestId}">`
    + `<saml:Issuer>${IDP_ENTITY}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>`
    + assertionXml({ ...shape, id: assertionId, now, until, acs })
    + '</samlp:Response>';
}

function assertionXml(shape: ResponseShape & { id: string; now: Date; until: string; acs: string }): string {
  return `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${shape.id}" Version="2.0" IssueInstant="${shape.now.toISOString()}">`
    + `<saml:Issuer>${IDP_ENTITY}</saml:Issuer>`
    + `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${shape.nameId ?? 'jan@example.com.evil.test'}</saml:NameID>`
    + `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${shape.until}" Recipient="${shape.recipient ?? shape.acs}" InResponseTo="${shape.requestId}"/></saml:SubjectConfirmation></saml:Subject>`
    + `<saml:Conditions NotBefore="${shape.now.toISOString()}" NotOnOrAfter="${shape.until}"><saml:AudienceRestriction><saml:Audience>${shape.audience ?? SP_ENTITY}</saml:Audience></saml:AudienceRestriction></saml:Conditions>`
    + `<saml:AuthnStatement AuthnInstant="${shape.now.toISOString()}"><saml:AuthnContext><saml:AuthnContextClassRef>${shape.classRef ?? CLASS_HIGH}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`
    + `<saml:AttributeStatement><saml:Attribute Name="urn:nl-eid-gdi:1.0:id:BSN"><saml:AttributeValue>${BSN}</saml:AttributeValue></saml:Attribute>`
    + '<saml:Attribute Name="urn:oid:2.5.4.42"><saml:AttributeValue>Jan</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>'
    + '</saml:Assertion>';
}

/** The response as the IdP sends it: `sign` says what samlify signs; base64 of the XML. */
async function issue(shape: ResponseShape, sign: { assertion: boolean; response: boolean; encrypt?: boolean; key?: KeyPair }): Promise<string> {
  const xml = responseXml(shape);
  if (!sign.assertion && !sign.response) return Buffer.from(xml).toString('base64');
  const idp = testIdp(sign.key ?? keys.idp, sign.encrypt === true);
  const { context } = await idp.createLoginResponse(testSp(sign.assertion, sign.response), { extract: { request: { id: shape.requestId } } }, 'post', {}, () => ({ id: 'x', context: xml }));
  return context;
}

async function post(samlResponse: string, relayState: string): Promise<Response> {
  return await fetch(`${server.url}/sign/identity/saml/acs`, { method: 'POST', body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: relayState }), redirect: 'manual' });
}

async function identityAudit(id: string): Promise<{ result: string; evidence: Record<string, string> }[]> {
  const audit = await server.store.listAuditEntries(id);
  return audit.filter((e) => e.type === 'verification.performed').map((e) => e.data as { result: string; evidence: Record<string, string> });
}

/** Expects the step refused with `code`, audited (with `reason`) as failed, and nothing of the assertion in the Verification. */
async function expectRefused(response: Response, code: string, id: string, reason: RegExp): Promise<void> {
  expect(response.status).toBe(400);
  expect(response.headers.get('x-paraph-error')).toBe(code);
  expect((await identityAudit(id)).map((e) => e.result)).toEqual(['failed']);
  expect((await identityAudit(id))[0]?.evidence.reason).toMatch(reason);
  const stored = await server.store.getTransaction(id);
  expect(stored?.Signers[0]?.Verifications[0]).toEqual({ Type: 'DigiD', Bsn: BSN });
}

/** Base64 of a response XML changed by `edit`. */
function edited(encoded: string, edit: (xml: string) => string): string {
  const xml = Buffer.from(encoded, 'base64').toString('utf8');
  const changed = edit(xml);
  expect(changed).not.toBe(xml);
  return Buffer.from(changed).toString('base64');
}

describe('SAML 2.0 service provider', () => {
  it('serves its metadata with the entity id, the ACS and both certificates', async () => {
    const response = await fetch(`${server.url}/sign/identity/saml/metadata/DigiD`);
    expect(response.status).toBe(200);
    const xml = await response.text();
    expect(xml).toContain(`entityID="${SP_ENTITY}"`);
    expect(xml).toContain(`Location="${server.url}/sign/identity/saml/acs"`);
    expect(xml).toContain('AuthnRequestsSigned="true"');
    const body = (pem: string) => pem.replace(/-----[^-]+-----|\s/g, '');
    expect(xml.replace(/\s/g, '')).toContain(body(keys.spSign.cert));
    expect(xml.replace(/\s/g, '')).toContain(body(keys.spDecrypt.cert));
    expect((await fetch(`${server.url}/sign/identity/saml/metadata/iDIN`)).status).toBe(404);
  });

  it.each([
    ['a signed response', { assertion: false, response: true }],
    ['a signed assertion', { assertion: true, response: false }],
    ['an encrypted signed assertion', { assertion: true, response: false, encrypt: true }],
  ])('%s passes: attributes mapped, level from the AuthnContext, evidence recorded', async (_name, sign) => {
    const { token, id } = await signer();
    const { requestId, relayState } = await startLogin(token);
    const response = await post(await issue({ requestId }, sign), relayState);
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get('location') ?? '', `${server.url}/sign/identity/saml/acs`).pathname).toBe(`/sign/${token}`);
    const [entry] = await identityAudit(id);
    expect(entry).toEqual({
      signerId: 'Signer1',
      verification: 'DigiD',
      result: 'passed',
      evidence: { protocol: 'SAML 2.0', provider: IDP_ENTITY, issuer: IDP_ENTITY, subject: 'jan@example.com.evil.test', level: 'Hoog', Uid: 'jan@example.com.evil.test', FirstName: 'Jan', Bsn: '…333' },
    });
    const stored = await server.store.getTransaction(id);
    expect(stored?.Signers[0]?.Verifications[0]).toEqual({ Type: 'DigiD', Bsn: BSN, Betrouwbaarheidsniveau: 'Hoog' });
  });

  it('a replayed response is refused: the step it answered is used up', async () => {
    const { token, id } = await signer();
    const { requestId, relayState } = await startLogin(token);
    const answer = await issue({ requestId }, { assertion: true, response: false });
    expect((await post(answer, relayState)).status).toBe(303);
    const again = await post(answer, relayState);
    expect(again.status).toBe(400);
    expect(again.headers.get('x-paraph-error')).toBe('IDENTITY_STATE_INVALID');
    expect((await identityAudit(id)).map((e) => e.result)).toEqual(['passed']);
  });

  it('an assertion id accepted once is refused for another request', async () => {
    const first = await signer();
    const one = await startLogin(first.token);
    expect((await post(await issue({ requestId: one.requestId, assertionId: '_same' }, { assertion: true, response: false }), one.relayState)).status).toBe(303);
    const second = await signer();
    const two = await startLogin(second.token);
    await expectRefused(await post(await issue({ requestId: two.requestId, assertionId: '_same' }, { assertion: true, response: false }), two.relayState), 'IDENTITY_NOT_ESTABLISHED', second.id, /used before/);
  });

  it.each([
    ['a wrong audience', { audience: 'https://someone-else.test' }, { assertion: true, response: false }, /audience mismatch/],
    ['a wrong recipient', { recipient: 'https://someone-else.test/acs' }, { assertion: true, response: false }, /Recipient/],
    ['an unsigned response', {}, { assertion: false, response: false }, /Invalid signature/],
    ['a signature by a key not in the metadata', {}, { assertion: true, response: true, key: 'other' }, /Invalid signature/],
    ['a level the verification does not accept', { classRef: 'urn:oasis:names:tc:SAML:2.0:ac:classes:Password' }, { assertion: true, response: false }, /assurance level/],
  ] as const)('%s is refused and nothing is trusted', async (_name, shape, sign, reason) => {
    const { token, id } = await signer();
    const { requestId, relayState } = await startLogin(token);
    const answer = await issue({ requestId, ...shape }, { assertion: sign.assertion, response: sign.response, ...('key' in sign ? { key: keys.other } : {}) });
    await expectRefused(await post(answer, relayState), 'IDENTITY_NOT_ESTABLISHED', id, reason);
  });

  it('an expired assertion is refused on the provider\'s clock', async () => {
    const { token, id } = await signer();
    const { requestId, relayState } = await startLogin(token);
    const answer = await issue({ requestId }, { assertion: true, response: false });
    clockOffsetMs = 10 * 60_000;
    try {
      await expectRefused(await post(answer, relayState), 'IDENTITY_NOT_ESTABLISHED', id, /No valid subject confirmation/);
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('a response to another request (InResponseTo) is refused', async () => {
    const { token, id } = await signer();
    const { relayState } = await startLogin(token);
    await expectRefused(await post(await issue({ requestId: '_not-our-request' }, { assertion: true, response: true }), relayState), 'IDENTITY_NOT_ESTABLISHED', id, /InResponseTo is not valid/);
  });

  describe('signature wrapping', () => {
    const evil = (requestId: string) => responseXml({ requestId, nameId: 'mallory', assertionId: '_evil' }).replace(/^.*?(<saml:Assertion )/, '$1').replace('</samlp:Response>', '');
    it.each([
      ['an unsigned assertion before the signed one', (xml: string, bad: string) => xml.replace('<saml:Assertion ', `${bad}<saml:Assertion `), /multiple assertions/],
      ['an unsigned assertion after the signed one', (xml: string, bad: string) => xml.replace('</saml:Assertion>', `</saml:Assertion>${bad}`), /multiple assertions/],
      ['the signed assertion moved into Extensions, an evil one in its place', (xml: string, bad: string) => {
        const signed = /<saml:Assertion [\s\S]*<\/saml:Assertion>/.exec(xml)?.[0] ?? '';
        return xml.replace(signed, bad).replace('<samlp:Status>', `<samlp:Extensions>${signed}</samlp:Extensions><samlp:Status>`);
      }, /Invalid signature/],
      ['a comment injected into the signed NameID', (xml: string) => xml.replace('jan@example.com.evil.test</saml:NameID>', 'jan@example.com<!---->.evil.test</saml:NameID>'), /XML comment/],
    ])('%s is refused', async (_name, wrap, reason) => {
      const { token, id } = await signer();
      const { requestId, relayState } = await startLogin(token);
      const answer = edited(await issue({ requestId }, { assertion: true, response: false }), (xml) => wrap(xml, evil(requestId)));
      await expectRefused(await post(answer, relayState), 'IDENTITY_NOT_ESTABLISHED', id, reason);
    });
  });
});

describe('hostile input at the assertion consumer service', () => {
  it('a form larger than 256 KB is refused with 413 and a page, before anything is parsed', async () => {
    const { token, id } = await signer();
    const { relayState } = await startLogin(token);
    const response = await post('A'.repeat(300 * 1024), relayState);
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain('Your identity could not be confirmed');
    expect(await identityAudit(id)).toEqual([]);
  });

  it('a response costly to check is refused off the serving thread: /health answers while it is checked', async () => {
    const { token, id } = await signer();
    const { requestId, relayState } = await startLogin(token);
    // Thousands of children of one element: node-saml's XPath look-ups over them take seconds.
    const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r" Version="2.0" InResponseTo="${requestId}">${'<a ID="_r"><b/></a>'.repeat(9000)}</samlp:Response>`;
    const order: string[] = [];
    const posted = post(Buffer.from(xml).toString('base64'), relayState).then((response) => {
      order.push('acs');
      return response;
    });
    // Once the check's thread is at work, the serving thread still answers.
    const before = checking.count;
    await expect.poll(() => checking.count, { timeout: 30_000 }).toBeGreaterThan(before);
    const health = await fetch(`${server.url}/health`);
    order.push('health');
    expect(health.status).toBe(200);
    const response = await posted;
    expect(order).toEqual(['health', 'acs']);
    await expectRefused(response, 'IDENTITY_NOT_ESTABLISHED', id, /took longer than|refused/);
  });

  it('while four responses are being checked a fifth is answered 503 with a page; once they end, a login passes again', async () => {
    const busy = await Promise.all([1, 2, 3, 4].map(async () => {
      const { token, id } = await signer();
      const { requestId, relayState } = await startLogin(token);
      const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r" Version="2.0" InResponseTo="${requestId}">${'<a ID="_r"><b/></a>'.repeat(9000)}</samlp:Response>`;
      return { id, relayState, encoded: Buffer.from(xml).toString('base64') };
    }));
    const fifth = await signer();
    const fifthLogin = await startLogin(fifth.token);
    const fifthAnswer = await issue({ requestId: fifthLogin.requestId }, { assertion: true, response: false });

    const before = checking.count;
    const posted = busy.map((b) => post(b.encoded, b.relayState));
    // All four threads have node-saml loaded and are at work on a response that takes seconds to check.
    await expect.poll(() => checking.count, { timeout: 60_000 }).toBe(before + 4);
    const refused = await post(fifthAnswer, fifthLogin.relayState);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('x-paraph-error')).toBe('IDENTITY_PROVIDER_UNAVAILABLE');
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await refused.text()).toContain(CATALOGUES['nl-NL'].page.apiErrors.identityUnavailable);
    expect((await identityAudit(fifth.id)).map((e) => e.result)).toEqual(['failed']);

    for (const [i, answer] of (await Promise.all(posted)).entries()) await expectRefused(answer, 'IDENTITY_NOT_ESTABLISHED', busy[i]!.id, /took longer than|refused/);
    // The refused login is used up; started again, it passes now that the checks have ended.
    const again = await startLogin(fifth.token);
    expect((await post(await issue({ requestId: again.requestId }, { assertion: true, response: false }), again.relayState)).status).toBe(303);
    expect((await identityAudit(fifth.id)).map((e) => e.result)).toEqual(['failed', 'passed']);
  });

  it('a deeply nested response is refused', async () => {
    const { token, id } = await signer();
    const { requestId, relayState } = await startLogin(token);
    const depth = 20_000;
    const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r" Version="2.0" InResponseTo="${requestId}">${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</samlp:Response>`;
    await expectRefused(await post(Buffer.from(xml).toString('base64'), relayState), 'IDENTITY_NOT_ESTABLISHED', id, /refused|could not be checked|stopped/);
  });
});
