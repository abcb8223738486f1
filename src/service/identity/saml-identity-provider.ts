/**
 * A SAML 2.0 service provider for one verification Type (docs/verifications.md#saml-20), built on
 * `@node-saml/node-saml`: a signed AuthnRequest sent by the HTTP-Redirect binding, the answer posted to paraph's
 * assertion consumer service (HTTP-POST binding). The response is accepted only when the response or the assertion is
 * signed by a certificate of the identity provider's metadata (the assertion read is the one the signature covers; a
 * response with several assertions is refused), its issuer is the provider's, the audience is our entity id, the
 * Destination and the bearer confirmation's Recipient are our assertion consumer service, InResponseTo is the request
 * issued for this signer's step (kept in the sign session), the validity times hold on the service's clock, the
 * assertion id has not been accepted before, and no XML comment or DOCTYPE is in it (comments sit outside the signed
 * content and are a classic way to change what a reader sees). node-saml checks the response on a worker thread under
 * a time budget (saml-response-check.ts).
 */
import { randomBytes } from 'node:crypto';
import type { IdentityCompleteRequest, IdentityProvider, IdentityResult } from '../delivery/verification-senders.js';
import { identityEvidence } from './identity-evidence.js';
import type { IdpMetadata } from './saml-idp-metadata.js';
import { checkSamlResponse, type CheckedSamlProfile } from './saml-response-check.js';
import { REQUEST_LIFETIME_MS, samlFor } from './saml-instance.js';

/** The path of paraph's assertion consumer service (HTTP-POST binding), shared by every SAML provider. */
export const SAML_ACS_PATH = '/sign/identity/saml/acs';
/** The path under which each SAML provider's service-provider metadata is served (`/<Type>`). */
export const SAML_METADATA_PATH = '/sign/identity/saml/metadata';

/** The attribute name that stands for the assertion's subject NameID in a mapping. */
const NAME_ID = 'NameID';

/** One configured SAML identity provider. */
export interface SamlProviderSettings {
  readonly type: string;
  readonly name?: string;
  /** paraph's entity id at this provider (also the audience the assertions must name). */
  readonly spEntityId: string;
  readonly idp: IdpMetadata;
  /** PEM private key that signs the AuthnRequests, and its certificate (published in the metadata). */
  readonly signingKey: string;
  readonly signingCertificate: string;
  /** PEM key that decrypts encrypted assertions, and its certificate (published in the metadata). */
  readonly decryptionKey?: string;
  readonly decryptionCertificate?: string;
  /** Field → attribute name overrides of the Type's default mapping (`""` drops a field, `NameID` is the subject). */
  readonly attributes?: Readonly<Record<string, string>>;
  /** AuthnContextClassRef values asked for (RequestedAuthnContext, comparison minimum). */
  readonly authnContext?: readonly string[];
  /** AuthnContextClassRef → `Level`; when given, a class not listed is refused. */
  readonly levels?: Readonly<Record<string, string>>;
  /** Clock skew tolerated on the validity times (default 60 s). */
  readonly clockSkewSeconds?: number;
  /** Time budget of checking one posted response, off the serving thread (default 3 s). */
  readonly checkBudgetMs?: number;
}

/** What the provider needs of the running service. */
export interface SamlEnvironment {
  /** The service's public URL (it can be learnt after start). */
  readonly publicUrl: () => string;
  readonly clock: () => Date;
}

/** A SAML provider also serves its service-provider metadata. */
export interface SamlIdentityProvider extends IdentityProvider {
  readonly protocol: 'saml';
  serviceProviderMetadata(): Promise<string>;
}

/** Cap of the accepted-assertion memory (oldest forgotten first; InResponseTo still binds each to one step). */
const REPLAY_MEMORY = 10_000;

/** Default attribute names per Type (common ones first); brokers differ, so each is overridable. */
const COMMON_ATTRIBUTES: Readonly<Record<string, string>> = {
  Uid: NAME_ID,
  FirstName: 'urn:oid:2.5.4.42',
  LastName: 'urn:oid:2.5.4.4',
};
const ATTRIBUTES_BY_TYPE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  DigiD: { Bsn: 'urn:nl-eid-gdi:1.0:id:BSN' },
  eHerkenning: { EntityConcernIdKvkNr: 'urn:etoegang:1.9:EntityConcernedID:KvKnr' },
  'eIDAS Login': {
    Uid: 'http://eidas.europa.eu/attributes/naturalperson/PersonIdentifier',
    FirstName: 'http://eidas.europa.eu/attributes/naturalperson/CurrentGivenName',
    LastName: 'http://eidas.europa.eu/attributes/naturalperson/CurrentFamilyName',
    DateOfBirth: 'http://eidas.europa.eu/attributes/naturalperson/DateOfBirth',
  },
  SURFnet: { Uid: 'urn:oid:1.3.6.1.4.1.5923.1.1.1.6', Email: 'urn:oid:0.9.2342.19200300.100.1.3' },
};

/** The attribute mapping for `type` with `overrides` (a value "" drops a field). */
function samlAttributeMapping(type: string, overrides: Readonly<Record<string, string>> = {}): Record<string, string> {
  const merged = { ...COMMON_ATTRIBUTES, ...(ATTRIBUTES_BY_TYPE[type] ?? {}), ...overrides };
  return Object.fromEntries(Object.entries(merged).filter(([, name]) => name !== ''));
}

/** A service provider for `settings`. */
export function createSamlIdentityProvider(settings: SamlProviderSettings, env: SamlEnvironment): SamlIdentityProvider {
  const mapping = samlAttributeMapping(settings.type, settings.attributes);
  const accepted = new Map<string, number>();
  const acsUrl = () => `${env.publicUrl()}${SAML_ACS_PATH}`;
  return {
    type: settings.type,
    protocol: 'saml',
    async begin({ state }) {
      const requestId = `_${randomBytes(20).toString('hex')}`;
      const saml = await samlFor(settings, env.clock, acsUrl(), requestId);
      const redirectUrl = await saml.getAuthorizeUrlAsync(state, undefined, {});
      return { redirectUrl, pending: { protocol: 'saml', requestId, issuedAt: env.clock().toISOString(), spEntityId: settings.spEntityId } };
    },
    async complete(request) {
      return await completeLogin(settings, env, mapping, accepted, acsUrl(), request);
    },
    async serviceProviderMetadata() {
      const saml = await samlFor(settings, env.clock, acsUrl(), '');
      return saml.generateServiceProviderMetadata(settings.decryptionCertificate ?? null, settings.signingCertificate);
    },
  };
}
async function completeLogin(
  settings: SamlProviderSettings,
  env: SamlEnvironment,
  mapping: Readonly<Record<string, string>>,
  accepted: Map<string, number>,
  acsUrl: string,
  request: IdentityCompleteRequest,
): Promise<IdentityResult> {
  const { protocol, requestId, issuedAt, spEntityId } = request.pending;
  if (protocol !== 'saml' || requestId === undefined || issuedAt === undefined || spEntityId !== settings.spEntityId) {
    throw new Error('the login was not started for this provider');
  }
  const now = env.clock().getTime();
  if (now - Date.parse(issuedAt) > REQUEST_LIFETIME_MS) throw new Error('the login took too long: start it again');
  const encoded = request.query.SAMLResponse;
  if (typeof encoded !== 'string' || encoded === '') throw new Error('the provider did not post a SAMLResponse');
  const xml = Buffer.from(encoded, 'base64').toString('utf8');
  if (xml.includes('<!--') || /<!DOCTYPE/i.test(xml)) throw new Error('the SAML response holds an XML comment or DOCTYPE, which is not accepted');
  const destination = /^\s*(?:<\?xml[^>]*\?>\s*)?<(?:[A-Za-z_][\w.-]*:)?Response\b[^>]*?\sDestination\s*=\s*"([^"]*)"/.exec(xml)?.[1];
  if (destination !== undefined && destination !== acsUrl) throw new Error(`the response is addressed to ${destination}, not to this service`);

  const profile = await checkSamlResponse({ settings, nowMs: now, acsUrl, requestId, samlResponse: encoded }, settings.checkBudgetMs);
  if (profile === null) throw new Error('the SAML response holds no assertion');
  if (profile.assertionXml.includes('<!--')) throw new Error('the assertion holds an XML comment, which is not accepted');
  if (profile.issuer !== settings.idp.entityId) throw new Error(`the assertion was issued by ${JSON.stringify(profile.issuer)}, not by the configured provider`);
  const assertion = profile.assertion as XmlNode | undefined;
  if (assertion === undefined) throw new Error('the SAML response holds no assertion');
  if (!hasBearerFor(assertion, acsUrl)) throw new Error('the assertion has no bearer confirmation for this service (Recipient)');

  const assertionId = assertion.$?.ID;
  if (assertionId === undefined || assertionId === '') throw new Error('the assertion has no ID');
  forgetExpired(accepted, now);
  if (accepted.has(assertionId)) throw new Error('this assertion was used before');
  accepted.set(assertionId, expiryOf(assertion, now));
  if (accepted.size > REPLAY_MEMORY) accepted.delete(accepted.keys().next().value as string);

  const classRef = text(children(children(children(assertion, 'AuthnStatement')[0], 'AuthnContext')[0], 'AuthnContextClassRef')[0]);
  const level = assuranceLevel(settings, classRef);
  const fields = mapAttributes(profile, mapping);
  if (level !== undefined) fields.Level = level;
  const head = { protocol: 'SAML 2.0', provider: settings.name ?? settings.idp.entityId, issuer: settings.idp.entityId, subject: profile.nameID };
  return { evidence: identityEvidence(head, level, fields), fields };
}

/** An element of the verified assertion as node-saml's xml2js parse gives it. */
interface XmlNode {
  readonly $?: Readonly<Record<string, string>>;
  readonly _?: string;
  readonly [child: string]: unknown;
}

function children(node: XmlNode | undefined, name: string): XmlNode[] {
  const value = node?.[name];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
}

function text(node: XmlNode | string | undefined): string | undefined {
  if (typeof node === 'string') return node;
  return typeof node?._ === 'string' ? node._.trim() : undefined;
}

function hasBearerFor(assertion: XmlNode, acsUrl: string): boolean {
  return children(children(assertion, 'Subject')[0], 'SubjectConfirmation').some((confirmation) =>
    confirmation.$?.Method === 'urn:oasis:names:tc:SAML:2.0:cm:bearer'
    && children(confirmation, 'SubjectConfirmationData').some((data) => data.$?.Recipient === acsUrl));
}

/** Until when an accepted assertion id is remembered: its latest NotOnOrAfter, else an hour. */
function expiryOf(assertion: XmlNode, now: number): number {
  const times = [
    ...children(assertion, 'Conditions').map((c) => c.$?.NotOnOrAfter),
    ...children(children(assertion, 'Subject')[0], 'SubjectConfirmation').flatMap((c) => children(c, 'SubjectConfirmationData')).map((d) => d.$?.NotOnOrAfter),
  ].map((t) => (t === undefined ? Number.NaN : Date.parse(t))).filter((t) => Number.isFinite(t));
  return times.length > 0 ? Math.max(...times) : now + 60 * 60_000;
}

function forgetExpired(accepted: Map<string, number>, now: number): void {
  for (const [id, until] of accepted) if (until < now) accepted.delete(id);
}

function assuranceLevel(settings: SamlProviderSettings, classRef: string | undefined): string | undefined {
  if (settings.levels === undefined) return classRef;
  const level = classRef === undefined ? undefined : settings.levels[classRef];
  if (level === undefined) throw new Error(`the login's assurance level (AuthnContextClassRef ${JSON.stringify(classRef ?? null)}) is not one this verification accepts`);
  return level;
}

/**
 * The read-only fields from the assertion's attributes (the first value of each) and NameID. A DigiD-style sector
 * prefix (`s00000000:`) before a BSN is dropped.
 */
function mapAttributes(profile: CheckedSamlProfile, mapping: Readonly<Record<string, string>>): Record<string, string> {
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const fields: Record<string, string> = {};
  for (const [field, name] of Object.entries(mapping)) {
    const raw = name === NAME_ID ? profile.nameID : attributes[name];
    const first = Array.isArray(raw) ? raw[0] : raw;
    const value = typeof first === 'string' ? first : text(first as XmlNode | undefined);
    if (value === undefined || value.trim() === '') continue;
    fields[field] = field === 'Bsn' ? value.trim().replace(/^s\d{8}:/, '') : value.trim();
  }
  return fields;
}
