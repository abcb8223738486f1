/**
 * How the stores write and read account credentials and admin audit entries: times as milliseconds since the epoch,
 * absent values as NULL (shared by the SQLite and PostgreSQL stores, which differ only in their SQL dialect).
 */
import type { AccountCredential, CredentialKind } from '../domain/account.js';
import type { JsonValue } from '../domain/transaction.js';
import type { AccountReader } from './sealed-secrets.js';
import type { AdminAuditEntry, CredentialMatch } from './store.js';

/** A row of `account_credentials` (PostgreSQL hands BIGINT back as text). */
export interface CredentialRow {
  id: string;
  account_id: string;
  kind: string;
  hash: string;
  label: string | null;
  created_at: number | string;
  rotated_at: number | string | null;
  replaced_by: string | null;
  valid_until: number | string | null;
  revoked_at: number | string | null;
}

/** The columns of `account_credentials`, in the order {@link credentialValues} gives them. */
export const CREDENTIAL_COLUMNS = 'id, account_id, kind, hash, label, created_at, rotated_at, replaced_by, valid_until, revoked_at';

const ms = (d: Date | undefined): number | null => (d === undefined ? null : d.getTime());
const date = (v: number | string | null): Date | undefined => (v === null ? undefined : new Date(Number(v)));

export function credentialValues(c: AccountCredential): (string | number | null)[] {
  return [c.id, c.accountId, c.kind, c.hash, c.label ?? null, c.createdAt.getTime(), ms(c.rotatedAt), c.replacedBy ?? null, ms(c.validUntil), ms(c.revokedAt)];
}

export function credentialFromRow(row: CredentialRow): AccountCredential {
  const rotatedAt = date(row.rotated_at);
  const validUntil = date(row.valid_until);
  const revokedAt = date(row.revoked_at);
  return {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind as CredentialKind,
    hash: row.hash,
    ...(row.label !== null ? { label: row.label } : {}),
    createdAt: new Date(Number(row.created_at)),
    ...(rotatedAt ? { rotatedAt } : {}),
    ...(row.replaced_by !== null ? { replacedBy: row.replaced_by } : {}),
    ...(validUntil ? { validUntil } : {}),
    ...(revokedAt ? { revokedAt } : {}),
  };
}

/** The first credentials of an account created with a key pair (their creation time is the account's). */
export function firstCredentials(accountId: string, userTokenHash: string, appKeyHash: string, createdDateTime: string): AccountCredential[] {
  const parsed = Date.parse(createdDateTime);
  const createdAt = new Date(Number.isNaN(parsed) ? 0 : parsed);
  return [
    { id: `first-user-token-${accountId}`, accountId, kind: 'user-token', hash: userTokenHash, createdAt },
    { id: `first-app-key-${accountId}`, accountId, kind: 'app-key', hash: appKeyHash, createdAt },
  ];
}

/** A row of `admin_audit`. */
export interface AdminAuditRow {
  id: number | string;
  at: number | string;
  actor: string;
  action: string;
  account_id: string | null;
  credential_id: string | null;
  data: string;
}

export function adminAuditFromRow(row: AdminAuditRow): AdminAuditEntry {
  const data = JSON.parse(row.data) as JsonValue;
  return {
    id: Number(row.id),
    at: new Date(Number(row.at)),
    actor: row.actor,
    action: row.action,
    ...(row.account_id !== null ? { accountId: row.account_id } : {}),
    ...(row.credential_id !== null ? { credentialId: row.credential_id } : {}),
    ...(data !== null ? { data } : {}),
  };
}

/** A row of the query that authenticates a request: the account and its matching user token and app key. */
export interface CredentialMatchRow {
  account_id: string;
  data: string;
  user_id: string;
  user_hash: string;
  app_id: string;
  app_hash: string;
}

export function credentialMatchFromRow(row: CredentialMatchRow, accounts: AccountReader): CredentialMatch {
  return {
    account: accounts.account(row.account_id, row.data),
    userToken: { id: row.user_id, hash: row.user_hash },
    appKey: { id: row.app_id, hash: row.app_hash },
  };
}
