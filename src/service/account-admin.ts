/**
 * Account administration (docs/design/accounts.md): create, change, disable accounts; issue, rotate and revoke their
 * application keys and user tokens; set their postback secret. Used by the admin API and the `paraph account` CLI
 * alike. Every change is an admin audit entry naming who did it, what and when, never a secret; a new secret is
 * returned once, to be shown once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { isCredentialValid, withPostbackSecret, type Account, type AccountBranding, type AccountCredential, type AccountLimits, type CredentialKind } from '../domain/account.js';
import { formatTime, type JsonValue } from '../domain/transaction.js';
import { ValidationError } from '../errors.js';
import type { AdminAuditEntry } from '../store/store.js';
import { dropAccountLogo, storeAccountLogo } from './branding/account-logo.js';
import { fetchLogo, type LogoFetchOptions } from './branding/fetch-logo.js';
import { checkLogo } from './branding/normalize-logo.js';
import { credentialHash, newCredentialSecret, type CredentialDeps } from './keys/credentials.js';
import { ServiceError } from './service-error.js';

/** An admin audit entry as the store keeps it (named here for the HTTP layer, which does not reach into the store). */
export type { AdminAuditEntry } from '../store/store.js';

/** The purpose a sealed admin token is sealed under (`paraph seal-secret --for admin-token`). */
export const ADMIN_TOKEN_PURPOSE = 'admin-token';

/** Who acts: `admin` (the admin API), `cli`, or a name the caller gives. */
export type AdminActor = string;

/** What an account is made or changed with; `null` removes an optional setting. */
export interface AccountSettingsInput {
  readonly Name?: string;
  readonly NotificationEmail?: string | null;
  readonly Branding?: AccountBranding | null;
  readonly Limits?: AccountLimits | null;
}

/** What changing an account's settings needs besides the store: how Branding.LogoUrl may be fetched. */
export interface AccountAdminDeps extends CredentialDeps {
  /** The postback policy (the same guard): default https and public addresses only. */
  readonly logoFetch?: LogoFetchOptions;
}

/** The overlap of a rotated credential when the caller names none: a day, time to roll the new key out. */
const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;
/** At most 30 days. */
const MAX_ROTATION_OVERLAP_SECONDS = 30 * 86_400;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ONE_LINE = /^[^\p{Cc}\p{Zl}\p{Zp}]+$/u;

/** Every problem of `input`, named by its field. */
function settingsProblems(input: AccountSettingsInput, creating: boolean, allowHttp: boolean): string[] {
  const issues: string[] = [];
  const text = (name: string, value: string | undefined, max: number): void => {
    if (value === undefined) return;
    if (value.trim() === '' || value.length > max || !ONE_LINE.test(value)) issues.push(`${name}: one line of 1 to ${max} characters`);
  };
  const email = (name: string, value: string | undefined): void => {
    if (value !== undefined && (value.length > 254 || !EMAIL.test(value))) issues.push(`${name}: an e-mail address (name@domain)`);
  };
  if (creating && input.Name === undefined) issues.push('Name: required (the organisation\'s name)');
  text('Name', input.Name, 255);
  email('NotificationEmail', input.NotificationEmail ?? undefined);
  const b = input.Branding ?? undefined;
  if (b !== undefined) {
    text('Branding.DisplayName', b.DisplayName, 255);
    if (b.LogoUrl !== undefined && !isLogoUrl(b.LogoUrl, allowHttp)) issues.push(`Branding.LogoUrl: an ${allowHttp ? 'http(s)' : 'https'} URL of at most 2048 characters`);
    if (b.Color !== undefined && !/^#[0-9a-fA-F]{6}$/.test(b.Color)) issues.push('Branding.Color: #rrggbb');
    email('Branding.ReplyTo', b.ReplyTo);
  }
  const l = input.Limits ?? undefined;
  if (l !== undefined) {
    for (const [name, value, max] of [
      ['StorageBytes', l.StorageBytes, 2 ** 52],
      ['MaxFileBytes', l.MaxFileBytes, 2 ** 40],
      ['RequestsPerMinute', l.RequestsPerMinute, 10_000_000],
    ] as const) {
      if (value !== undefined && (!Number.isSafeInteger(value) || value < 1 || value > max)) issues.push(`Limits.${name}: a whole number from 1 to ${max}`);
    }
  }
  return issues;
}

function isLogoUrl(value: string, allowHttp: boolean): boolean {
  if (value.length > 2048) return false;
  try {
    const protocol = new URL(value).protocol;
    return protocol === 'https:' || (allowHttp && protocol === 'http:');
  } catch {
    return false;
  }
}

function validate(deps: AccountAdminDeps, input: AccountSettingsInput, creating: boolean): void {
  const issues = settingsProblems(input, creating, deps.logoFetch?.policy?.allowHttp === true);
  if (issues.length > 0) throw new ValidationError(issues, 'INVALID_REQUEST');
}

/** `account` with `input` applied (`null` removes). */
function applySettings(account: Account, input: AccountSettingsInput): Account {
  const next: Account = { ...account, ...(input.Name !== undefined ? { Name: input.Name } : {}) };
  for (const key of ['NotificationEmail', 'Branding', 'Limits'] as const) {
    const value = input[key];
    if (value === undefined) continue;
    if (value === null) delete next[key];
    else (next as unknown as Record<string, unknown>)[key] = value;
  }
  return next;
}

/** What the names of the changed settings were (for the audit: which settings, not their values' secrets). */
function changedSettings(input: AccountSettingsInput): JsonValue {
  return Object.keys(input).filter((k) => input[k as keyof AccountSettingsInput] !== undefined);
}

async function audit(deps: CredentialDeps, actor: AdminActor, action: string, accountId: string, extra: { credentialId?: string; data?: JsonValue } = {}): Promise<void> {
  await deps.store.appendAdminAudit({ at: deps.clock(), actor, action, accountId, ...extra });
}

/** The account `id`. @throws ServiceError `NO_SUCH_ACCOUNT`. */
export async function showAccount(deps: CredentialDeps, id: string): Promise<Account> {
  const account = await deps.store.getAccount(id);
  if (account === undefined) throw new ServiceError('NO_SUCH_ACCOUNT', `No account has the Id ${JSON.stringify(id)}.`);
  return account;
}

/** Every account, oldest first. */
export function listAccounts(deps: CredentialDeps): Promise<Account[]> {
  return deps.store.listAccounts();
}

/** A new account with a new postback secret (returned once). */
export async function createAccount(deps: AccountAdminDeps, actor: AdminActor, input: AccountSettingsInput): Promise<{ account: Account; postbackSecret: string }> {
  validate(deps, input, true);
  const logoUrl = input.Branding?.LogoUrl;
  const logo = logoUrl === undefined ? undefined : await checkLogo(await fetchLogo(logoUrl, deps.logoFetch));
  const postbackSecret = randomBytes(24).toString('base64url');
  const account = applySettings({ Id: randomUUID(), Name: '', PostbackSecret: postbackSecret, CreatedDateTime: formatTime(deps.clock()) }, input);
  await deps.store.createAccount(account);
  await audit(deps, actor, 'account.created', account.Id, { data: { Name: account.Name, settings: changedSettings(input) } });
  return { account: logo === undefined ? account : await storeAccountLogo(deps, actor, account, logo, 'Url'), postbackSecret };
}

/**
 * Changes the account's name, notification address, branding or limits. A new Branding.LogoUrl is fetched and the
 * image checked first (nothing changes when either fails); branding without the LogoUrl a logo came from removes it.
 *
 * @throws ValidationError `INVALID_REQUEST`; ServiceError `LOGO_FETCH_FAILED`, `LOGO_INVALID`, `LOGO_TOO_LARGE`.
 */
export async function updateAccountSettings(deps: AccountAdminDeps, actor: AdminActor, id: string, input: AccountSettingsInput): Promise<Account> {
  validate(deps, input, false);
  const account = await showAccount(deps, id);
  const logoUrl = input.Branding === undefined ? account.Branding?.LogoUrl : (input.Branding?.LogoUrl ?? undefined);
  const fetchNew = input.Branding !== undefined && logoUrl !== undefined && (logoUrl !== account.Branding?.LogoUrl || account.Logo?.Source !== 'Url');
  const logo = fetchNew ? await checkLogo(await fetchLogo(logoUrl, deps.logoFetch)) : undefined;
  let next = applySettings(account, input);
  // One write of the account: with the new LogoUrl comes the logo fetched from it.
  if (logo !== undefined) next = await storeAccountLogo(deps, actor, next, logo, 'Url');
  else await deps.store.updateAccount(next);
  await audit(deps, actor, 'account.updated', id, { data: { settings: changedSettings(input) } });
  if (logo === undefined && logoUrl === undefined && account.Logo?.Source === 'Url') next = await dropAccountLogo(deps, actor, next);
  return next;
}

/**
 * Sets the account's logo from an uploaded PNG or JPEG, checked first; it replaces one from Branding.LogoUrl (the URL
 * is dropped). @throws ServiceError `LOGO_INVALID`, `LOGO_TOO_LARGE`; nothing is stored then.
 */
export async function setAccountLogo(deps: CredentialDeps, actor: AdminActor, id: string, bytes: Uint8Array): Promise<Account> {
  await showAccount(deps, id);
  const logo = await checkLogo(bytes);
  const account = await showAccount(deps, id);
  const { LogoUrl: _url, ...branding } = account.Branding ?? {};
  const { Branding: _b, ...rest } = account;
  return storeAccountLogo(deps, actor, Object.keys(branding).length > 0 ? { ...rest, Branding: branding } : rest, logo, 'Upload');
}

/** Removes the account's logo, and the Branding.LogoUrl it may have come from. */
export async function removeAccountLogo(deps: CredentialDeps, actor: AdminActor, id: string): Promise<Account> {
  const account = await showAccount(deps, id);
  if (account.Branding?.LogoUrl === undefined) return dropAccountLogo(deps, actor, account);
  const { LogoUrl: _url, ...branding } = account.Branding;
  const { Branding: _b, ...rest } = account;
  const next = Object.keys(branding).length > 0 ? { ...rest, Branding: branding } : rest;
  await deps.store.updateAccount(next);
  return dropAccountLogo(deps, actor, next);
}

/** Disables (or enables again) the account: while disabled none of its credentials authenticates. */
export async function setAccountDisabled(deps: CredentialDeps, actor: AdminActor, id: string, disabled: boolean): Promise<Account> {
  const account = await showAccount(deps, id);
  const { Disabled: _was, ...rest } = account;
  const next: Account = disabled ? { ...rest, Disabled: true } : rest;
  await deps.store.updateAccount(next);
  await audit(deps, actor, disabled ? 'account.disabled' : 'account.enabled', id);
  return next;
}

/**
 * Sets the account's postback secret to `secret`, or a new random one; returns it (shown once). The replaced secret
 * still signs postbacks, next to the new one, for `overlapSeconds` (0: not at all), time for receivers to switch.
 */
export async function setAccountPostbackSecret(
  deps: CredentialDeps,
  actor: AdminActor,
  id: string,
  secret?: string,
  overlapSeconds: number = DEFAULT_ROTATION_OVERLAP_SECONDS,
): Promise<string> {
  const problems: string[] = [];
  if (secret !== undefined && (secret.length < 16 || secret.length > 256 || !/^[\x21-\x7e]+$/.test(secret))) {
    problems.push('Secret: 16 to 256 printable ASCII characters without spaces (or leave it out to have one generated)');
  }
  if (!Number.isSafeInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_ROTATION_OVERLAP_SECONDS) {
    problems.push(`OverlapSeconds: a whole number from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}`);
  }
  if (problems.length > 0) throw new ValidationError(problems, 'INVALID_REQUEST');
  const account = await showAccount(deps, id);
  const next = secret ?? randomBytes(24).toString('base64url');
  const updated = withPostbackSecret(account, next, deps.clock(), overlapSeconds);
  await deps.store.updateAccount(updated);
  await audit(deps, actor, 'account.postback-secret-set', id, {
    data: { generated: secret === undefined, ...(updated.PreviousPostbackSecretValidUntil !== undefined ? { previousValidUntil: updated.PreviousPostbackSecretValidUntil } : {}) },
  });
  return next;
}

/** A credential and, when it was just made, its secret (shown once). */
export interface IssuedCredential {
  readonly credential: AccountCredential;
  readonly secret: string;
}

/** Issues a new application key or user token for the account. */
export async function issueCredential(deps: CredentialDeps, actor: AdminActor, accountId: string, kind: CredentialKind, label?: string): Promise<IssuedCredential> {
  if (label !== undefined && (label.trim() === '' || label.length > 255 || !ONE_LINE.test(label))) {
    throw new ValidationError(['Label: one line of 1 to 255 characters'], 'INVALID_REQUEST');
  }
  await showAccount(deps, accountId);
  const secret = newCredentialSecret();
  const credential: AccountCredential = {
    id: randomUUID(),
    accountId,
    kind,
    hash: credentialHash(deps, secret),
    ...(label !== undefined ? { label } : {}),
    createdAt: deps.clock(),
  };
  await deps.store.addCredential(credential);
  await audit(deps, actor, 'credential.issued', accountId, { credentialId: credential.id, data: { kind, ...(label !== undefined ? { label } : {}) } });
  return { credential, secret };
}

/** The account's credentials, oldest first (hashes included: the caller's view drops them). */
export async function listAccountCredentials(deps: CredentialDeps, accountId: string): Promise<AccountCredential[]> {
  await showAccount(deps, accountId);
  return deps.store.listCredentials(accountId);
}

async function credentialOf(deps: CredentialDeps, accountId: string, credentialId: string): Promise<AccountCredential> {
  const found = (await listAccountCredentials(deps, accountId)).find((c) => c.id === credentialId);
  if (found === undefined) throw new ServiceError('CREDENTIAL_NOT_FOUND', `The account ${accountId} has no credential with the Id ${JSON.stringify(credentialId)}.`);
  return found;
}

/**
 * Replaces an active credential with a new one of the same kind: the old one keeps authenticating for
 * `overlapSeconds` (0: it stops at once), time to roll the new one out. @throws ServiceError `CREDENTIAL_NOT_ACTIVE`.
 */
export async function rotateCredential(
  deps: CredentialDeps,
  actor: AdminActor,
  accountId: string,
  credentialId: string,
  overlapSeconds: number = DEFAULT_ROTATION_OVERLAP_SECONDS,
): Promise<IssuedCredential & { previous: AccountCredential }> {
  if (!Number.isSafeInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_ROTATION_OVERLAP_SECONDS) {
    throw new ValidationError([`OverlapSeconds: a whole number from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}`], 'INVALID_REQUEST');
  }
  const old = await credentialOf(deps, accountId, credentialId);
  const now = deps.clock();
  const secret = newCredentialSecret();
  const replacement: AccountCredential = {
    id: randomUUID(),
    accountId,
    kind: old.kind,
    hash: credentialHash(deps, secret),
    ...(old.label !== undefined ? { label: old.label } : {}),
    createdAt: now,
  };
  const validUntil = new Date(now.getTime() + overlapSeconds * 1000);
  if (!isCredentialValid(old, now) || old.rotatedAt !== undefined || !(await deps.store.rotateCredential(old.id, now, validUntil, replacement))) {
    throw new ServiceError('CREDENTIAL_NOT_ACTIVE', `The credential ${old.id} was revoked or rotated already: rotate the one that replaced it, or issue a new one.`);
  }
  await audit(deps, actor, 'credential.rotated', accountId, { credentialId: old.id, data: { replacedBy: replacement.id, overlapSeconds } });
  return { credential: replacement, secret, previous: { ...old, rotatedAt: now, replacedBy: replacement.id, validUntil } };
}

/** Revokes a credential: it stops authenticating at once (a revoked one stays revoked). */
export async function revokeCredential(deps: CredentialDeps, actor: AdminActor, accountId: string, credentialId: string): Promise<AccountCredential> {
  const old = await credentialOf(deps, accountId, credentialId);
  const now = deps.clock();
  await deps.store.revokeCredential(old.id, now);
  await audit(deps, actor, 'credential.revoked', accountId, { credentialId: old.id });
  return { ...old, revokedAt: old.revokedAt ?? now };
}

/** The admin audit log, oldest first. */
export function listAdminAudit(deps: CredentialDeps, options: { afterId?: number; limit: number; accountId?: string }): Promise<AdminAuditEntry[]> {
  return deps.store.listAdminAudit(options);
}
