/**
 * An API account, one organisation (docs/design/accounts.md). Its credentials (application keys, user tokens) are
 * kept apart from it, as keyed hashes ({@link AccountCredential}).
 */
export interface Account {
  Id: string;
  /** The organisation's name. */
  Name: string;
  /**
   * Hashes of a first user token and app key to register with the account when it is created (the pair a bootstrap
   * account starts with); accounts made through the admin API get their credentials issued afterwards.
   */
  UserTokenHash?: string;
  AppKeyHash?: string;
  /** Shared secret of the postback Checksum and HMAC (docs/design/events.md#checksum). */
  PostbackSecret?: string;
  /**
   * The secret replaced by the last change of PostbackSecret, still signing postbacks next to it until
   * PreviousPostbackSecretValidUntil (docs/design/events.md#secret-rotation).
   */
  PreviousPostbackSecret?: string;
  PreviousPostbackSecretValidUntil?: string;
  /** Response version of postback bodies (docs/design/api.md#versions); default 1. */
  PostbackVersion?: 1 | 2;
  /**
   * Where sender notifications go (transactions with `SendEmailNotifications`, docs/design/events.md#mail); none
   * without it.
   */
  NotificationEmail?: string;
  /** A disabled account's credentials authenticate nothing (its data stays). */
  Disabled?: boolean;
  /** How the account's mails and signing pages present the sender. */
  Branding?: AccountBranding;
  /** Limits that replace the service-wide ones for this account. */
  Limits?: AccountLimits;
  /**
   * The account's logo, checked (docs/design/accounts.md#logo): its bytes are kept apart, named by their SHA-256,
   * and served by the service itself, so no signer's browser or mail client asks a third party for it.
   */
  Logo?: AccountLogo;
  /** The account's own qualified seal: every seal of the account uses it (docs/design/accounts.md#seals). */
  QualifiedSeal?: AccountQualifiedSeal;
  CreatedDateTime: string;
}

/**
 * Where an account's qualified seal key is and the certificate it was found with. Its secrets (the PKCS#12 file and
 * password, the PIN) are kept sealed with the master key (`…Sealed`); the rest is shown to the admin API.
 */
export type AccountQualifiedSeal = AccountQualifiedSealPkcs12 | AccountQualifiedSealPkcs11;

interface QualifiedSealCommon {
  /** New with every configuration: a process that opened an older one opens this one instead. */
  Id: string;
  /** The seal certificate when it was set: subject, serial (hex), issuer, end of validity. */
  Certificate: { Subject: string; Serial: string; Issuer: string; NotAfter: string };
  SetDateTime: string;
}

export interface AccountQualifiedSealPkcs12 extends QualifiedSealCommon {
  Kind: 'Pkcs12';
  Pkcs12Sealed: string;
  PasswordSealed: string;
}

export interface AccountQualifiedSealPkcs11 extends QualifiedSealCommon {
  Kind: 'Pkcs11';
  /** Path of the PKCS#11 module on every machine the service runs on. */
  Module: string;
  TokenLabel?: string;
  SlotIndex?: number;
  KeyLabel?: string;
  PinSealed: string;
}

/** A stored logo: what it is, where it came from (an upload, or Branding.LogoUrl fetched once) and when. */
export interface AccountLogo {
  /** Hex SHA-256 of the stored bytes. */
  Sha256: string;
  ContentType: 'image/png' | 'image/jpeg';
  Width: number;
  Height: number;
  Source: 'Upload' | 'Url';
  SetDateTime: string;
}

export interface AccountBranding {
  DisplayName?: string;
  /** An https URL of the logo, fetched once when it is set; the service keeps and serves the bytes. */
  LogoUrl?: string;
  /** `#rrggbb`. */
  Color?: string;
  ReplyTo?: string;
}

export interface AccountLimits {
  /** Bytes of uploads the account may keep stored. */
  StorageBytes?: number;
  /** Largest PDF upload, in bytes. */
  MaxFileBytes?: number;
  /** API requests per minute. */
  RequestsPerMinute?: number;
}

/** What a credential is presented as: `Application: APPKey …` or `Authorization: APIKey …`. */
export type CredentialKind = 'app-key' | 'user-token';

/** One application key or user token of an account, as stored: never the secret, only its keyed hash. */
export interface AccountCredential {
  readonly id: string;
  readonly accountId: string;
  readonly kind: CredentialKind;
  readonly hash: string;
  readonly label?: string;
  readonly createdAt: Date;
  /** When it was rotated, and the credential that replaced it. */
  readonly rotatedAt?: Date;
  readonly replacedBy?: string;
  /** A rotated credential authenticates until then (the overlap). */
  readonly validUntil?: Date;
  readonly revokedAt?: Date;
}

/** Whether `credential` authenticates at `now`: not revoked and, once rotated, within its overlap. */
export function isCredentialValid(credential: AccountCredential, now: Date): boolean {
  if (credential.revokedAt !== undefined) return false;
  return credential.validUntil === undefined || now.getTime() < credential.validUntil.getTime();
}

/** The secrets postbacks of `account` are signed with at `now`: its secret and, within the overlap, the one it replaced. */
export function postbackSecretsAt(account: Pick<Account, 'PostbackSecret' | 'PreviousPostbackSecret' | 'PreviousPostbackSecretValidUntil'>, now: Date): { secret: string; previous?: string } {
  const secret = account.PostbackSecret ?? '';
  const previous = account.PreviousPostbackSecret;
  const until = account.PreviousPostbackSecretValidUntil === undefined ? Number.NaN : Date.parse(account.PreviousPostbackSecretValidUntil);
  if (previous === undefined || previous === '' || previous === secret || !(now.getTime() < until)) return { secret };
  return { secret, previous };
}

/**
 * `account` with `secret` as its postback secret, the replaced one kept valid for `overlapSeconds` after `now` (none
 * with 0 or when there was none).
 */
export function withPostbackSecret(account: Account, secret: string, now: Date, overlapSeconds: number): Account {
  const { PreviousPostbackSecret: _p, PreviousPostbackSecretValidUntil: _u, ...rest } = account;
  const old = account.PostbackSecret;
  if (old === undefined || old === '' || old === secret || overlapSeconds <= 0) return { ...rest, PostbackSecret: secret };
  return { ...rest, PostbackSecret: secret, PreviousPostbackSecret: old, PreviousPostbackSecretValidUntil: new Date(now.getTime() + overlapSeconds * 1000).toISOString() };
}
