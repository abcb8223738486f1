/**
 * The JSON shapes of the admin API (docs/design/accounts.md#admin-api) as TypeBox schemas: request bodies and path
 * parameters, which fastify validates, and the answers, which the OpenAPI document describes.
 */
import { Type } from 'typebox';
import type { Account, AccountCredential } from '../domain/account.js';
import type { AdminAuditEntry } from '../service/account-admin.js';
import { qualifiedSealSummary } from '../service/account-seal-admin.js';
import { logoPath } from '../service/branding/account-logo.js';

const opt = Type.Optional;
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const BrandingSchema = Type.Object(
  {
    DisplayName: opt(Type.String({ minLength: 1, maxLength: 255 })),
    LogoUrl: opt(Type.String({ maxLength: 2048, description: 'https URL' })),
    Color: opt(Type.String({ pattern: '^#[0-9a-fA-F]{6}$' })),
    ReplyTo: opt(Type.String({ maxLength: 254 })),
  },
  { additionalProperties: false },
);

const LimitsSchema = Type.Object(
  {
    StorageBytes: opt(Type.Integer({ minimum: 1 })),
    MaxFileBytes: opt(Type.Integer({ minimum: 1 })),
    RequestsPerMinute: opt(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** POST /api/admin/accounts. */
export const CreateAccountSchema = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 255, description: "The organisation's name" }),
    NotificationEmail: opt(Type.String({ maxLength: 254 })),
    Branding: opt(BrandingSchema),
    Limits: opt(LimitsSchema),
  },
  { additionalProperties: false },
);

/** PATCH /api/admin/accounts/{accountId}: what is given changes, `null` removes. */
export const UpdateAccountSchema = Type.Object(
  {
    Name: opt(Type.String({ minLength: 1, maxLength: 255 })),
    NotificationEmail: opt(Nullable(Type.String({ maxLength: 254 }))),
    Branding: opt(Nullable(BrandingSchema)),
    Limits: opt(Nullable(LimitsSchema)),
  },
  { additionalProperties: false },
);

/** PUT /api/admin/accounts/{accountId}/postback-secret: without `Secret` one is generated. */
export const PostbackSecretSchema = Type.Object(
  {
    Secret: opt(Type.String({ minLength: 16, maxLength: 256 })),
    OverlapSeconds: opt(Type.Integer({ minimum: 0, maximum: 30 * 86_400, description: 'How long postbacks are also signed with the replaced secret (default PARAPH_POSTBACK_SECRET_OVERLAP_SECONDS)' })),
  },
  { additionalProperties: false },
);

/** PUT /api/admin/accounts/{accountId}/qualified-seal: a PKCS#12 file or a PKCS#11 key; the secrets are stored sealed. */
export const QualifiedSealSchema = Type.Union([
  Type.Object(
    {
      Kind: Type.Literal('Pkcs12'),
      Pkcs12: Type.String({ minLength: 4, maxLength: 90_000, description: 'The .p12/.pfx file, base64 (at most 64 KiB)' }),
      Password: Type.String({ maxLength: 1024 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      Kind: Type.Literal('Pkcs11'),
      Module: Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute path of the PKCS#11 module: one of PARAPH_PKCS11_MODULES' }),
      TokenLabel: opt(Type.String({ minLength: 1, maxLength: 32 })),
      SlotIndex: opt(Type.Integer({ minimum: 0, maximum: 1023, description: 'When no TokenLabel is given' })),
      KeyLabel: opt(Type.String({ minLength: 1, maxLength: 255, description: 'CKA_LABEL of the key (default: the only key)' })),
      Pin: Type.String({ minLength: 1, maxLength: 256 }),
    },
    { additionalProperties: false },
  ),
]);

/** POST /api/admin/accounts/{accountId}/credentials. */
export const IssueCredentialSchema = Type.Object(
  {
    Kind: Type.Union([Type.Literal('AppKey'), Type.Literal('UserToken')], { description: 'An application key (Application: APPKey …) or a user token (Authorization: APIKey …)' }),
    Label: opt(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

/** POST …/credentials/{credentialId}/rotate. */
export const RotateCredentialSchema = Type.Object(
  { OverlapSeconds: opt(Type.Integer({ minimum: 0, maximum: 30 * 86_400, description: 'How long the old one keeps working (default 86400)' })) },
  { additionalProperties: false },
);

export const AccountParamsSchema = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 64 }) });
export const CredentialParamsSchema = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 64 }), credentialId: Type.String({ minLength: 1, maxLength: 128 }) });
export const AuditQuerySchema = Type.Object(
  {
    after: opt(Type.String({ pattern: '^[0-9]{1,15}$', description: 'Only entries after this Id' })),
    limit: opt(Type.String({ pattern: '^[0-9]{1,4}$', description: 'At most this many, 1 to 1000 (default 100)' })),
    accountId: opt(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

const DateTime = { type: 'string', format: 'date-time' } as const;

/** The answer schemas (OpenAPI only). */
export const ACCOUNT_VIEW = {
  type: 'object',
  required: ['Id', 'Name', 'Disabled', 'HasPostbackSecret', 'CreatedDateTime'],
  properties: {
    Id: { type: 'string' },
    Name: { type: 'string' },
    NotificationEmail: { type: 'string' },
    Disabled: { type: 'boolean' },
    Branding: { type: 'object' },
    Limits: { type: 'object' },
    HasPostbackSecret: { type: 'boolean' },
    QualifiedSeal: {
      type: 'object',
      description: "The account's own qualified seal: where the key is and its certificate (never its secrets)",
      properties: {
        Kind: { enum: ['Pkcs12', 'Pkcs11'] },
        Module: { type: 'string' },
        TokenLabel: { type: 'string' },
        SlotIndex: { type: 'integer' },
        KeyLabel: { type: 'string' },
        Certificate: {
          type: 'object',
          properties: { Subject: { type: 'string' }, Serial: { type: 'string' }, Issuer: { type: 'string' }, NotAfter: DateTime },
        },
        SetDateTime: DateTime,
      },
    },
    Logo: {
      type: 'object',
      description: "The account's logo as the service keeps and serves it (PUT /api/admin/accounts/{id}/logo, or Branding.LogoUrl fetched once)",
      properties: {
        Url: { type: 'string', description: 'Where the service serves it, under its public URL; changes with the image' },
        Sha256: { type: 'string' },
        ContentType: { enum: ['image/png', 'image/jpeg'] },
        Width: { type: 'integer' },
        Height: { type: 'integer' },
        Source: { enum: ['Upload', 'Url'] },
        SetDateTime: DateTime,
      },
    },
    PreviousPostbackSecretValidUntil: { ...DateTime, description: 'While set and in the future, postbacks are also signed with the replaced secret' },
    PostbackSecret: { type: 'string', description: 'Only in the answer that set it: shown once' },
    CreatedDateTime: DateTime,
  },
} as const;

export const CREDENTIAL_VIEW = {
  type: 'object',
  required: ['Id', 'AccountId', 'Kind', 'Status', 'CreatedDateTime'],
  properties: {
    Id: { type: 'string' },
    AccountId: { type: 'string' },
    Kind: { enum: ['AppKey', 'UserToken'] },
    Label: { type: 'string' },
    Status: { enum: ['Active', 'Rotated', 'Expired', 'Revoked'], description: 'Rotated: still valid until ValidUntil' },
    CreatedDateTime: DateTime,
    RotatedDateTime: DateTime,
    ReplacedBy: { type: 'string' },
    ValidUntil: DateTime,
    RevokedDateTime: DateTime,
    Secret: { type: 'string', description: 'Only in the answer that issued it: shown once, stored only as a keyed hash' },
  },
} as const;

export const AUDIT_VIEW = {
  type: 'object',
  required: ['Id', 'DateTime', 'Actor', 'Action'],
  properties: {
    Id: { type: 'integer' },
    DateTime: DateTime,
    Actor: { type: 'string' },
    Action: { type: 'string' },
    AccountId: { type: 'string' },
    CredentialId: { type: 'string' },
    Data: {},
  },
} as const;

/** An account as the admin API shows it: never its postback secret. */
export function accountView(account: Account): Record<string, unknown> {
  return {
    Id: account.Id,
    Name: account.Name,
    ...(account.NotificationEmail !== undefined ? { NotificationEmail: account.NotificationEmail } : {}),
    Disabled: account.Disabled === true,
    ...(account.Branding !== undefined ? { Branding: account.Branding } : {}),
    ...(account.Limits !== undefined ? { Limits: account.Limits } : {}),
    HasPostbackSecret: account.PostbackSecret !== undefined && account.PostbackSecret !== '',
    ...(account.QualifiedSeal !== undefined ? { QualifiedSeal: qualifiedSealSummary(account.QualifiedSeal) } : {}),
    ...(account.Logo !== undefined ? { Logo: { Url: logoPath(account.Id, account.Logo), ...account.Logo } } : {}),
    ...(account.PreviousPostbackSecretValidUntil !== undefined ? { PreviousPostbackSecretValidUntil: account.PreviousPostbackSecretValidUntil } : {}),
    CreatedDateTime: account.CreatedDateTime,
  };
}

/** A credential as the admin API shows it: never its hash. */
export function credentialView(c: AccountCredential, now: Date): Record<string, unknown> {
  const status =
    c.revokedAt !== undefined ? 'Revoked' : c.validUntil !== undefined && c.validUntil.getTime() <= now.getTime() ? 'Expired' : c.rotatedAt !== undefined ? 'Rotated' : 'Active';
  return {
    Id: c.id,
    AccountId: c.accountId,
    Kind: c.kind === 'app-key' ? 'AppKey' : 'UserToken',
    ...(c.label !== undefined ? { Label: c.label } : {}),
    Status: status,
    CreatedDateTime: c.createdAt.toISOString(),
    ...(c.rotatedAt !== undefined ? { RotatedDateTime: c.rotatedAt.toISOString() } : {}),
    ...(c.replacedBy !== undefined ? { ReplacedBy: c.replacedBy } : {}),
    ...(c.validUntil !== undefined ? { ValidUntil: c.validUntil.toISOString() } : {}),
    ...(c.revokedAt !== undefined ? { RevokedDateTime: c.revokedAt.toISOString() } : {}),
  };
}

export function auditView(e: AdminAuditEntry): Record<string, unknown> {
  return {
    Id: e.id,
    DateTime: e.at.toISOString(),
    Actor: e.actor,
    Action: e.action,
    ...(e.accountId !== undefined ? { AccountId: e.accountId } : {}),
    ...(e.credentialId !== undefined ? { CredentialId: e.credentialId } : {}),
    ...(e.data !== undefined ? { Data: e.data } : {}),
  };
}
