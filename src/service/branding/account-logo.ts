/**
 * An account's logo (docs/design/accounts.md#logo), for the admin API and the CLI: set from an upload or from
 * Branding.LogoUrl (fetched once), checked before anything is stored (checkLogo), kept in the settings table under
 * the account's key with its SHA-256, and read back for the signing page and the mails. Every change is an admin
 * audit entry.
 */
import { createHash } from 'node:crypto';
import type { Account, AccountLogo } from '../../domain/account.js';
import { formatTime } from '../../domain/transaction.js';
import type { Store } from '../../store/store.js';
import type { CredentialDeps } from '../keys/credentials.js';
import type { NormalizedLogo } from './logo-header.js';

/** The settings key of an account's logo bytes. */
function logoSettingKey(accountId: string): string {
  return `branding.logo.account.${accountId}`;
}

/** A stored logo's bytes. */
export interface LogoFile {
  readonly bytes: Uint8Array;
  readonly contentType: AccountLogo['ContentType'];
  readonly sha256: string;
}

/** The file extension a logo is served under. */
export function logoExtension(contentType: AccountLogo['ContentType']): 'png' | 'jpg' {
  return contentType === 'image/png' ? 'png' : 'jpg';
}

/** Where the service serves the account's logo (a path under the public URL); changes with the bytes. */
export function logoPath(accountId: string, logo: Pick<AccountLogo, 'Sha256' | 'ContentType'>): string {
  return `/sign/logo/${encodeURIComponent(accountId)}/${logo.Sha256}.${logoExtension(logo.ContentType)}`;
}

/**
 * Stores `logo` (already checked) as the account's and returns the account as stored. The bytes go first, then the
 * account that names them: a failure between the two leaves the old logo shown.
 */
export async function storeAccountLogo(deps: CredentialDeps, actor: string, account: Account, logo: NormalizedLogo, source: AccountLogo['Source']): Promise<Account> {
  const sha256 = createHash('sha256').update(logo.bytes).digest('hex');
  await deps.store.putSetting(logoSettingKey(account.Id), { sha256, contentType: logo.contentType, base64: Buffer.from(logo.bytes).toString('base64') });
  const next: Account = {
    ...account,
    Logo: { Sha256: sha256, ContentType: logo.contentType, Width: logo.width, Height: logo.height, Source: source, SetDateTime: formatTime(deps.clock()) },
  };
  await deps.store.updateAccount(next);
  await deps.store.appendAdminAudit({ at: deps.clock(), actor, action: 'account.logo-set', accountId: account.Id, data: { Sha256: sha256, ContentType: logo.contentType, Source: source } });
  return next;
}

/** The account without its logo (nothing stored when it had none). */
export async function dropAccountLogo(deps: CredentialDeps, actor: string, account: Account): Promise<Account> {
  const { Logo: had, ...rest } = account;
  if (had === undefined) return account;
  await deps.store.updateAccount(rest);
  await deps.store.putSetting(logoSettingKey(account.Id), null);
  await deps.store.appendAdminAudit({ at: deps.clock(), actor, action: 'account.logo-removed', accountId: account.Id, data: { Sha256: had.Sha256 } });
  return rest;
}

/** The account's logo bytes when their SHA-256 is `sha256` (an older logo's address finds nothing). */
export async function readAccountLogo(store: Pick<Store, 'getSetting'>, accountId: string, sha256?: string): Promise<LogoFile | undefined> {
  const stored = await store.getSetting(logoSettingKey(accountId));
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return undefined;
  const { sha256: storedSha, contentType, base64 } = stored;
  if (typeof storedSha !== 'string' || typeof base64 !== 'string' || (contentType !== 'image/png' && contentType !== 'image/jpeg')) return undefined;
  if (sha256 !== undefined && sha256 !== storedSha) return undefined;
  return { bytes: new Uint8Array(Buffer.from(base64, 'base64')), contentType, sha256: storedSha };
}
