/**
 * node-saml configured for one SAML provider of paraph (docs/verifications.md#saml-20): shared by the service provider
 * on the serving thread (AuthnRequests, metadata) and the thread that checks the posted responses
 * (saml-response-worker.ts). node-saml is loaded on first use.
 */
import type * as NodeSaml from '@node-saml/node-saml';
import type { SamlProviderSettings } from './saml-identity-provider.js';

/** How long an issued AuthnRequest may be answered. */
export const REQUEST_LIFETIME_MS = 30 * 60_000;

let library: Promise<typeof NodeSaml> | undefined;
function nodeSaml(): Promise<typeof NodeSaml> {
  library ??= import('@node-saml/node-saml');
  return library;
}

/**
 * A node-saml instance for one request. `requestId` is the only InResponseTo it accepts: the request a signer's step
 * issued, kept in their sign session, not in node-saml's process memory. Validity times are judged on the service's
 * clock; the request's age is checked by paraph on that clock before node-saml sees the response.
 */
export async function samlFor(settings: SamlProviderSettings, clock: () => Date, acsUrl: string, requestId: string): Promise<NodeSaml.SAML> {
  const { SAML, ValidateInResponseTo } = await nodeSaml();
  class ClockedSaml extends SAML {
    protected override checkTimestampsValidityError(_wallClockMs: number, notBefore: string, notOnOrAfter: string, maxTimeLimitMs?: number): Error | null {
      return super.checkTimestampsValidityError(clock().getTime(), notBefore, notOnOrAfter, maxTimeLimitMs);
    }
  }
  const cacheProvider: NodeSaml.CacheProvider = {
    saveAsync: async (key, value) => (key === requestId ? { value, createdAt: 0 } : null),
    // node-saml compares the stored time with the wall clock: the age was checked already, so hand it "now".
    getAsync: async (key) => (requestId !== '' && key === requestId ? new Date().toISOString() : null),
    removeAsync: async (key) => key,
  };
  return new ClockedSaml({
    issuer: settings.spEntityId,
    audience: settings.spEntityId,
    callbackUrl: acsUrl,
    entryPoint: settings.idp.ssoRedirectUrl,
    idpIssuer: settings.idp.entityId,
    idpCert: [...settings.idp.signingCertificates],
    privateKey: settings.signingKey,
    publicCert: settings.signingCertificate,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    ...(settings.decryptionKey !== undefined ? { decryptionPvk: settings.decryptionKey } : {}),
    identifierFormat: null,
    ...(settings.authnContext !== undefined && settings.authnContext.length > 0
      ? { authnContext: [...settings.authnContext], racComparison: 'minimum' as const }
      : { disableRequestedAuthnContext: true }),
    // Either the response or the assertion must be signed (node-saml refuses a response with neither).
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_LIFETIME_MS,
    acceptedClockSkewMs: (settings.clockSkewSeconds ?? 60) * 1000,
    generateUniqueId: () => requestId,
    cacheProvider,
  });
}
