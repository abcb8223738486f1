/**
 * Application keys and user tokens (docs/design/accounts.md#credentials): new ones are 256 random bits, stored only
 * as a keyed hash (HMAC-SHA-256 under the credential key: 32 random bytes kept in the store's settings, sealed with the
 * master key, so it survives a master key rotation), so a copy of the database without the master key cannot even
 * test a guessed key. Credentials stored before as a plain SHA-256 still match and are re-hashed with the key the
 * first time they authenticate.
 */
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import type { Account } from '../../domain/account.js';
import type { MasterKey } from '../../store/master-key.js';
import { StoreError, type Store } from '../../store/store.js';
import { sha256Hex } from '../context.js';

/** Makes the keyed hash of a credential. */
export interface CredentialKey {
  mac(secret: string): string;
}

/** What credential handling needs: a {@link ServiceContext} fits, and so does the CLI's opened store. */
export interface CredentialDeps {
  readonly store: Store;
  readonly clock: () => Date;
  /** Without it (stores opened without a master key) credentials are hashed with plain SHA-256. */
  readonly credentialKey?: CredentialKey;
}

/** The setting holding the credential key, sealed. */
const CREDENTIAL_KEY_SETTING = 'credential-hash-key';

/**
 * The store's credential key: created on first use (the first of several processes starting together wins) and
 * kept sealed under `masterKey`.
 */
export async function loadCredentialKey(store: Pick<Store, 'putSettingIfAbsent'>, masterKey: MasterKey): Promise<CredentialKey> {
  const purpose = `setting:${CREDENTIAL_KEY_SETTING}.key`;
  const stored = await store.putSettingIfAbsent(CREDENTIAL_KEY_SETTING, { key: masterKey.seal(randomBytes(32).toString('base64'), purpose) });
  const sealed = (stored as { key?: unknown } | null)?.key;
  if (typeof sealed !== 'string') throw new StoreError('MASTER_KEY_MISMATCH', `The setting ${CREDENTIAL_KEY_SETTING} holds no sealed key.`, { origin: 'internal' });
  const key = createSecretKey(Buffer.from(masterKey.open(sealed, purpose), 'base64'));
  return { mac: (secret) => createHmac('sha256', key).update(secret, 'utf8').digest('hex') };
}

/** A new application key or user token (43 URL-safe characters). */
export function newCredentialSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The hash a credential is stored under: keyed with the master key when there is one. */
export function credentialHash(deps: Pick<CredentialDeps, 'credentialKey'>, secret: string): string {
  return deps.credentialKey === undefined ? sha256Hex(secret) : deps.credentialKey.mac(secret);
}

/** Every hash `secret` may be stored under: the keyed one and the plain SHA-256 of credentials from before. */
export function candidateHashes(deps: Pick<CredentialDeps, 'credentialKey'>, secret: string): string[] {
  const keyed = credentialHash(deps, secret);
  const plain = sha256Hex(secret);
  return keyed === plain ? [keyed] : [keyed, plain];
}

/**
 * The account a user token and an app key authenticate now: both valid (not revoked; a rotated one within its
 * overlap), of the same account, which is not disabled. One store query per request (credentials and account
 * together), read afresh every time, so a revocation holds at once on every process sharing the store.
 */
export async function authenticateAccount(deps: CredentialDeps, userToken: string, appKey: string): Promise<Account | undefined> {
  const now = deps.clock();
  // The keyed hashes first: a legacy plain SHA-256 is upgraded at its first use, so later requests need one query
  // and no plain digest.
  const keyedUser = credentialHash(deps, userToken);
  const keyedApp = credentialHash(deps, appKey);
  let match = await deps.store.findAccountByCredentials([keyedUser], [keyedApp], now);
  if (match === undefined && deps.credentialKey !== undefined) {
    match = await deps.store.findAccountByCredentials(candidateHashes(deps, userToken), candidateHashes(deps, appKey), now);
  }
  if (match === undefined || match.account.Disabled === true) return undefined;
  if (match.userToken.hash !== keyedUser) await deps.store.rehashCredential(match.userToken.id, match.userToken.hash, keyedUser);
  if (match.appKey.hash !== keyedApp) await deps.store.rehashCredential(match.appKey.id, match.appKey.hash, keyedApp);
  return match.account;
}
