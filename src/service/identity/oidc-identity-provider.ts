/**
 * An OpenID Connect relying party for one verification Type (docs/verifications.md#openid-connect), built on
 * `openid-client`: discovery of the issuer, the authorization code flow with PKCE (S256), `state` and `nonce`, the ID
 * token checked for issuer, audience, expiry, nonce and its signature against the provider's published keys (a key id
 * not seen yet makes the key set be fetched again once it is a minute old), `acr` turned into the assurance level,
 * userinfo when configured, and the claims mapped into the Verification's read-only fields. The PKCE verifier and the
 * nonce stay on the server (the sign session); the browser carries only the state. `openid-client` is loaded on first
 * use, so a service without OpenID Connect providers never loads it.
 */
import type * as Oidc from 'openid-client';
import { ServiceError } from '../service-error.js';
import type { IdentityCompleteRequest, IdentityProvider, IdentityResult } from '../delivery/verification-senders.js';
import { claimMapping, mapClaims, type ClaimMapping } from './claim-mapping.js';
import { identityEvidence } from './identity-evidence.js';

/** One configured OpenID Connect provider. */
export interface OidcProviderSettings {
  /** The verification Type it performs, e.g. `itsme Identification`. */
  readonly type: string;
  /** For `OpenID Providers`: the name a Verification's `ProviderName` picks it by. */
  readonly name?: string;
  /** Issuer identifier; its `/.well-known/openid-configuration` is read on first use. */
  readonly issuer: string;
  readonly clientId: string;
  /** Without one the client is public (PKCE only). */
  readonly clientSecret?: string;
  /** Scopes asked for (default `openid profile`; `openid` is always included). */
  readonly scope?: string;
  /** Asked for as `acr_values` (e.g. a minimum assurance level). */
  readonly acrValues?: readonly string[];
  /**
   * `acr` value → assurance level recorded as `Level`. When given, an `acr` not listed is refused; without it the
   * `acr` itself is the level.
   */
  readonly acrLevels?: Readonly<Record<string, string>>;
  /** Field → claim overrides of the default mapping of the Type. */
  readonly claims?: ClaimMapping;
  /** Also read the userinfo endpoint (its claims fill fields the ID token lacks). */
  readonly userinfo?: boolean;
  /** Seconds to wait for any answer of the provider (default 10). */
  readonly timeoutSeconds?: number;
  /** Accept an `http:` issuer (tests and local development only). */
  readonly allowHttp?: boolean;
}

/** The relying-party library, loaded once on first use. */
let library: Promise<typeof Oidc> | undefined;
function openidClient(): Promise<typeof Oidc> {
  library ??= import('openid-client');
  return library;
}

/** How long a discovered configuration (and the key set cached with it) is reused. */
const DISCOVERY_TTL_MS = 60 * 60_000;
const DEFAULT_TIMEOUT_SECONDS = 10;

/** A relying party for `settings`. Nothing is fetched until the first signer starts the step. */
export function createOidcIdentityProvider(settings: OidcProviderSettings): IdentityProvider {
  const discovery = discoveryCache(settings);
  const mapping = claimMapping(settings.type, settings.claims);
  const scope = scopeOf(settings.scope);
  return {
    type: settings.type,
    async begin({ callbackUrl, state }) {
      const config = await discovery.get();
      const oidc = await openidClient();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      const parameters: Record<string, string> = {
        redirect_uri: callbackUrl,
        scope,
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        ...(settings.acrValues !== undefined && settings.acrValues.length > 0 ? { acr_values: settings.acrValues.join(' ') } : {}),
      };
      const url = oidc.buildAuthorizationUrl(config, parameters);
      return { redirectUrl: url.href, pending: { codeVerifier, nonce, state, issuer: settings.issuer } };
    },
    async complete(request) {
      return await completeLogin(settings, mapping, await discovery.get(), request);
    },
  };
}

async function completeLogin(settings: OidcProviderSettings, mapping: ClaimMapping, config: Oidc.Configuration, request: IdentityCompleteRequest): Promise<IdentityResult> {
  const oidc = await openidClient();
  const { codeVerifier, nonce, state, issuer } = request.pending;
  if (codeVerifier === undefined || nonce === undefined || state === undefined || issuer !== settings.issuer) {
    throw new Error('the login was not started for this provider');
  }
  if (request.url === '') throw new Error('the provider did not return to the registered address');
  const tokens = await guarded(() => oidc.authorizationCodeGrant(config, new URL(request.url), {
    pkceCodeVerifier: codeVerifier,
    expectedNonce: nonce,
    expectedState: state,
    idTokenExpected: true,
  }));
  const idClaims = tokens.claims();
  if (idClaims === undefined) throw new Error('the provider sent no ID token');
  let claims: Record<string, unknown> = { ...idClaims };
  if (settings.userinfo === true) {
    // Subject checked against the ID token's; ID token claims win where both speak.
    const info = await guarded(() => oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub));
    claims = { ...info, ...idClaims };
  }
  const acr = typeof idClaims.acr === 'string' ? idClaims.acr : undefined;
  const level = assuranceLevel(settings, acr);
  const fields = mapClaims(claims, mapping);
  if (level !== undefined) fields.Level = level;
  const head = { protocol: 'OpenID Connect', provider: settings.name ?? idClaims.iss, issuer: idClaims.iss, subject: idClaims.sub };
  return { evidence: identityEvidence(head, level, fields), fields };
}

/** The level for `acr`: its configured name, the `acr` itself without a table; refused when the table lacks it. */
function assuranceLevel(settings: OidcProviderSettings, acr: string | undefined): string | undefined {
  if (settings.acrLevels === undefined) return acr;
  const level = acr === undefined ? undefined : settings.acrLevels[acr];
  if (level === undefined) throw new Error(`the login's assurance level (acr ${JSON.stringify(acr ?? null)}) is not one this verification accepts`);
  return level;
}

function scopeOf(configured: string | undefined): string {
  const scopes = new Set((configured ?? 'openid profile').split(/\s+/).filter((s) => s !== ''));
  scopes.add('openid');
  return [...scopes].join(' ');
}

/** Discovery once, reused for an hour; a failed discovery is not kept (the next signer tries again). */
function discoveryCache(settings: OidcProviderSettings): { get(): Promise<Oidc.Configuration> } {
  let cached: { at: number; config: Promise<Oidc.Configuration> } | undefined;
  return {
    get() {
      const now = Date.now();
      if (cached === undefined || now - cached.at > DISCOVERY_TTL_MS) {
        const config = guarded(() => discover(settings));
        cached = { at: now, config };
        config.catch(() => {
          if (cached?.config === config) cached = undefined;
        });
      }
      return cached.config;
    },
  };
}

async function discover(settings: OidcProviderSettings): Promise<Oidc.Configuration> {
  const oidc = await openidClient();
  const timeout = settings.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const auth = settings.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(settings.clientSecret);
  const config = await oidc.discovery(new URL(settings.issuer), settings.clientId, undefined, auth, {
    timeout,
    ...(settings.allowHttp === true ? { execute: [oidc.allowInsecureRequests] } : {}),
  });
  config.timeout = timeout;
  // Tokens come straight from the token endpoint, yet the signature is what makes them evidence: always check it.
  oidc.enableNonRepudiationChecks(config);
  return config;
}

/**
 * Runs a request to the provider; a provider that cannot be reached or does not answer in time becomes
 * `IDENTITY_PROVIDER_UNAVAILABLE`; any other failure (a refused or invalid answer) is passed on.
 */
async function guarded<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (isUnreachable(error)) {
      throw new ServiceError('IDENTITY_PROVIDER_UNAVAILABLE', `The identity provider did not answer (${describe(error)}): try again in a moment.`, { cause: error });
    }
    const refusal = providerRefusal(error);
    if (refusal !== undefined) {
      // The provider's own refusal, e.g. access_denied when the user cancelled.
      throw new Error(`the provider answered ${refusal.error}${refusal.description ? `: ${refusal.description}` : ''}`, { cause: error });
    }
    throw error;
  }
}

/** The OAuth error of openid-client's ResponseBodyError / AuthorizationResponseError, else undefined. */
function providerRefusal(error: unknown): { error: string; description?: string } | undefined {
  if (!(error instanceof Error) || (error.name !== 'ResponseBodyError' && error.name !== 'AuthorizationResponseError')) return undefined;
  const { error: code, error_description: description } = error as Error & { error?: unknown; error_description?: unknown };
  if (typeof code !== 'string') return undefined;
  return typeof description === 'string' ? { error: code, description } : { error: code };
}

function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) return true;
  return error.cause !== undefined && error.cause !== error && isUnreachable(error.cause);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.name === 'TimeoutError' || error.name === 'AbortError' ? 'no answer in time' : error.message;
}
