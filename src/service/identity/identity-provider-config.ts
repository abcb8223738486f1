/**
 * The identity providers of the service from its configuration file (`PARAPH_IDENTITY_PROVIDERS_FILE`,
 * docs/verifications.md#configuration): one entry per verification Type (several named entries for `OpenID Providers`),
 * each with its protocol. Client secrets are never written in clear in the file: either sealed under the master key
 * (`paraph seal-secret`) or named by an environment variable. Each protocol has a builder in {@link PROTOCOLS};
 * `openid-connect` and `saml` ship.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ServiceError } from '../service-error.js';
import { isSealed, type MasterKey } from '../../store/master-key.js';
import type { IdentityProvider } from '../delivery/verification-senders.js';
import { createOidcIdentityProvider, type OidcProviderSettings } from './oidc-identity-provider.js';
import { createProviderChoice } from './provider-choice.js';
import { parseIdpMetadata } from './saml-idp-metadata.js';
import { createSamlIdentityProvider, type SamlEnvironment, type SamlProviderSettings } from './saml-identity-provider.js';

/** Purpose a client secret is sealed under (`paraph seal-secret`). */
export const CLIENT_SECRET_PURPOSE = 'identity-client-secret';

/** What a protocol builder gets: the entry as written, and its client secret opened. */
interface ProviderEntry {
  readonly where: string;
  readonly raw: Readonly<Record<string, unknown>>;
  readonly secret: string | undefined;
  /** Opens another sealed value of the entry (`key`, or the environment variable named by `<key>Env`). */
  readonly sealed: (key: string) => string | undefined;
  /** Directory of the configuration file (relative paths in it are read from there). */
  readonly baseDir: string;
  readonly environment: SamlEnvironment;
}

type Built = IdentityProvider & { readonly name?: string };

/** Builders per `protocol` value. */
const PROTOCOLS: Readonly<Record<string, (entry: ProviderEntry) => Built | Promise<Built>>> = {
  'openid-connect': (entry) => {
    const settings = oidcSettings(entry);
    return Object.assign(createOidcIdentityProvider(settings), settings.name !== undefined ? { name: settings.name } : {});
  },
  saml: async (entry) => {
    const settings = await samlSettings(entry);
    return Object.assign(createSamlIdentityProvider(settings, entry.environment), settings.name !== undefined ? { name: settings.name } : {});
  },
};

/**
 * Reads the providers of `path`.
 *
 * @throws ServiceError `INVALID_IDENTITY_PROVIDERS` naming every problem of the file (path of the entry and the fix).
 */
export async function loadIdentityProviders(
  path: string,
  secrets: MasterKey | undefined,
  env: Readonly<Record<string, string | undefined>>,
  environment: SamlEnvironment = { publicUrl: () => '', clock: () => new Date() },
): Promise<IdentityProvider[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw invalid([`${path}: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const list = typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { providers?: unknown }).providers)
    ? (parsed as { providers: unknown[] }).providers
    : undefined;
  if (list === undefined) throw invalid([`${path}: expected {"providers": [ … ]}`]);
  const issues: string[] = [];
  const built: Built[] = [];
  for (const [index, item] of list.entries()) {
    const where = `${path}: providers[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      issues.push(`${where}: must be an object`);
      continue;
    }
    const raw = item as Record<string, unknown>;
    const protocol = raw.protocol ?? 'openid-connect';
    const builder = typeof protocol === 'string' ? PROTOCOLS[protocol] : undefined;
    if (builder === undefined) {
      issues.push(`${where}.protocol: ${JSON.stringify(protocol)} is not supported (use ${Object.keys(PROTOCOLS).join(', ')})`);
      continue;
    }
    const accounts = readStringArray(raw, where, 'Accounts', issues);
    if (accounts !== undefined && (accounts.length === 0 || accounts.some((id) => id.trim() === ''))) issues.push(`${where}.Accounts: account ids (leave it out for a provider of every account)`);
    try {
      const sealed = (key: string) => sealedValue(where, raw, key, secrets, env);
      const provider = await builder({ where, raw, secret: sealed('clientSecret'), sealed, baseDir: dirname(resolve(path)), environment });
      built.push(accounts === undefined ? provider : Object.assign(provider, { accounts }));
    } catch (error) {
      issues.push(error instanceof ServiceError ? error.message : `${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (issues.length > 0) throw invalid(issues);
  return group(built, issues);
}

/**
 * One provider per Type and set of accounts; several named ones of the same Type for the same accounts become a choice
 * by `ProviderName`. An account may have one provider of a Type of its own.
 */
function group(built: readonly Built[], issues: string[]): IdentityProvider[] {
  const byScope = new Map<string, Built[]>();
  for (const provider of built) {
    const scope = JSON.stringify([provider.type, [...(provider.accounts ?? [])].sort()]);
    byScope.set(scope, [...(byScope.get(scope) ?? []), provider]);
  }
  const out: IdentityProvider[] = [];
  const ownTypes = new Set<string>();
  for (const providers of byScope.values()) {
    const { type, accounts } = providers[0]!;
    for (const account of accounts ?? []) {
      const key = JSON.stringify([account, type]);
      if (ownTypes.has(key)) issues.push(`${type}: account ${JSON.stringify(account)} is named by two providers of this Type with different Accounts; list the providers of one Type for an account with the same Accounts`);
      ownTypes.add(key);
    }
    if (providers.length === 1 && providers[0]!.name === undefined) {
      out.push(providers[0]!);
      continue;
    }
    const names = providers.map((p) => p.name);
    if (names.some((n) => n === undefined) || new Set(names).size !== names.length) {
      issues.push(`${type}: several providers of one Type each need a distinct "name" (matched against the Verification's ProviderName)`);
      continue;
    }
    const choice = createProviderChoice(type, providers.map((p) => ({ name: p.name as string, provider: p })));
    out.push(accounts === undefined ? choice : Object.assign(choice, { accounts }));
  }
  if (issues.length > 0) throw invalid(issues);
  return out;
}

/** A secret of the entry: `key` sealed (`paraph seal-secret`), or the environment variable `<key>Env` names. */
function sealedValue(where: string, raw: Readonly<Record<string, unknown>>, key: string, secrets: MasterKey | undefined, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const envKey = `${key}Env`;
  if (raw[envKey] !== undefined) {
    const name = raw[envKey];
    const value = typeof name === 'string' ? env[name] : undefined;
    if (value === undefined || value === '') throw invalid([`${where}.${envKey}: the environment variable ${JSON.stringify(name)} is not set`]);
    return value;
  }
  const sealed = raw[key];
  if (sealed === undefined) return undefined;
  if (!isSealed(sealed)) {
    throw invalid([`${where}.${key}: write it sealed (paraph seal-secret) or name an environment variable with ${envKey}; a secret in clear is not accepted`]);
  }
  if (secrets === undefined) throw invalid([`${where}.${key}: a sealed secret needs the service's master key`]);
  return secrets.open(sealed, CLIENT_SECRET_PURPOSE);
}

/** The settings of a `saml` entry; IdP metadata and certificates inline or as files next to the configuration. */
async function samlSettings({ where, raw, sealed, baseDir }: ProviderEntry): Promise<SamlProviderSettings> {
  const issues: string[] = [];
  const text = (key: string, required: boolean): string | undefined => readText(raw, where, key, required, issues);
  /** `key` inline, or read from the file `<key>File` names. */
  const inlineOrFile = async (key: string, required: boolean): Promise<string | undefined> => {
    const file = raw[`${key}File`];
    if (file === undefined) return text(key, required);
    if (typeof file !== 'string') {
      issues.push(`${where}.${key}File: a file path`);
      return undefined;
    }
    try {
      return await readFile(resolve(baseDir, file), 'utf8');
    } catch (error) {
      issues.push(`${where}.${key}File: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };
  const type = text('type', true);
  const name = text('name', false);
  const spEntityId = text('spEntityId', true);
  const metadataXml = await inlineOrFile('idpMetadata', true);
  const signingCertificate = await inlineOrFile('spCertificate', true);
  const decryptionCertificate = await inlineOrFile('spDecryptionCertificate', false);
  const signingKey = sealed('spPrivateKey');
  if (signingKey === undefined) issues.push(`${where}.spPrivateKey: required, the SP signing key (PEM) sealed with paraph seal-secret (or spPrivateKeyEnv)`);
  const decryptionKey = sealed('spDecryptionKey');
  if ((decryptionKey === undefined) !== (decryptionCertificate === undefined)) issues.push(`${where}.spDecryptionKey: give it together with spDecryptionCertificate`);
  for (const [key, pem] of [['spCertificate', signingCertificate], ['spDecryptionCertificate', decryptionCertificate]] as const) {
    if (pem !== undefined && !pem.includes('-----BEGIN CERTIFICATE-----')) issues.push(`${where}.${key}: a PEM certificate`);
  }
  const attributes = readStringMap(raw, where, 'attributes', issues);
  const levels = readStringMap(raw, where, 'levels', issues);
  const authnContext = readStringArray(raw, where, 'authnContext', issues);
  const skew = raw.clockSkewSeconds;
  if (skew !== undefined && (typeof skew !== 'number' || !(skew >= 0 && skew <= 300))) issues.push(`${where}.clockSkewSeconds: a number of seconds from 0 to 300`);
  let idp: SamlProviderSettings['idp'] | undefined;
  if (metadataXml !== undefined) {
    try {
      idp = await parseIdpMetadata(metadataXml);
    } catch (error) {
      issues.push(`${where}.idpMetadata: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (issues.length > 0 || type === undefined || spEntityId === undefined || idp === undefined || signingKey === undefined || signingCertificate === undefined) throw invalid(issues);
  return {
    type,
    spEntityId,
    idp,
    signingKey,
    signingCertificate,
    ...(name !== undefined ? { name } : {}),
    ...(decryptionKey !== undefined && decryptionCertificate !== undefined ? { decryptionKey, decryptionCertificate } : {}),
    ...(attributes !== undefined ? { attributes } : {}),
    ...(levels !== undefined ? { levels } : {}),
    ...(authnContext !== undefined ? { authnContext } : {}),
    ...(typeof skew === 'number' ? { clockSkewSeconds: skew } : {}),
  };
}

function oidcSettings({ where, raw, secret }: ProviderEntry): OidcProviderSettings {
  const issues: string[] = [];
  const text = (key: string, required: boolean): string | undefined => readText(raw, where, key, required, issues);
  const type = text('type', true);
  const issuer = text('issuer', true);
  const clientId = text('clientId', true);
  const name = text('name', false);
  const scope = text('scope', false);
  const allowHttp = raw.allowHttp === true;
  if (issuer !== undefined) {
    const url = URL.canParse(issuer) ? new URL(issuer) : undefined;
    if (url === undefined || (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))) issues.push(`${where}.issuer: an https:// URL (got ${JSON.stringify(issuer)})`);
  }
  const claims = readStringMap(raw, where, 'claims', issues);
  const acrLevels = readStringMap(raw, where, 'acrLevels', issues);
  const acrValues = readStringArray(raw, where, 'acrValues', issues);
  const timeout = raw.timeoutSeconds;
  if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0 && timeout <= 120))) issues.push(`${where}.timeoutSeconds: a number of seconds from 1 to 120`);
  if (raw.userinfo !== undefined && typeof raw.userinfo !== 'boolean') issues.push(`${where}.userinfo: true or false`);
  if (issues.length > 0 || type === undefined || issuer === undefined || clientId === undefined) throw invalid(issues);
  return {
    type,
    issuer,
    clientId,
    ...(secret !== undefined ? { clientSecret: secret } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(scope !== undefined ? { scope } : {}),
    ...(acrValues !== undefined ? { acrValues } : {}),
    ...(acrLevels !== undefined ? { acrLevels } : {}),
    ...(claims !== undefined ? { claims } : {}),
    ...(raw.userinfo === true ? { userinfo: true } : {}),
    ...(typeof timeout === 'number' ? { timeoutSeconds: timeout } : {}),
    ...(allowHttp ? { allowHttp } : {}),
  };
}

/** `raw[key]` as an object of strings; undefined when absent, or with an issue noted when it is something else. */
function readStringMap(raw: Readonly<Record<string, unknown>>, where: string, key: string, issues: string[]): Record<string, string> | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    issues.push(`${where}.${key}: an object of strings`);
    return undefined;
  }
  return value as Record<string, string>;
}

/** `raw[key]` as a non-empty string; undefined when absent and not `required`, or with an issue noted otherwise. */
function readText(raw: Readonly<Record<string, unknown>>, where: string, key: string, required: boolean, issues: string[]): string | undefined {
  const value = raw[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    issues.push(`${where}.${key}: ${required ? 'required, ' : ''}a non-empty string`);
    return undefined;
  }
  return value;
}

/** `raw[key]` as an array of strings; undefined when absent, or with an issue noted when it is something else. */
function readStringArray(raw: Readonly<Record<string, unknown>>, where: string, key: string, issues: string[]): string[] | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    issues.push(`${where}.${key}: an array of strings`);
    return undefined;
  }
  return value as string[];
}

function invalid(issues: readonly string[]): ServiceError {
  return new ServiceError('INVALID_IDENTITY_PROVIDERS', issues.join('; '), { origin: 'internal' });
}
