/**
 * The one declaration of the transaction's client-facing shape (docs/design/api.md) as TypeBox
 * schemas: request validation and the OpenAPI document use the schemas, the request types are their `Static<>`, and
 * the stored types (transaction.ts) take their client fields from the same declarations. The schemas check the shape
 * only (types, known properties, formats, enums); the business rules (11-proef, verification order, defaults, limits
 * that depend on other fields) are transaction-rules.ts's.
 */
import { Type, type Static, type TObject, type TOptional, type TSchema, type TUnsafe } from 'typebox';
import { LANGUAGES } from '../i18n/languages.js';
import { VERIFICATION_TYPES, type JsonObject, type JsonValue } from './transaction.js';

/** A string enum as plain JSON Schema `enum` (clearer validation messages than an anyOf of literals). */
export function stringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

const Str = (options: Record<string, unknown> = {}) => Type.String(options);
const opt = Type.Optional;
/**
 * A property clients may send back (a whole model, docs/design/api.md#response-values) but not set: accepted and
 * ignored.
 */
const readOnly = <T extends TSchema>(schema: T) =>
  Type.Optional({ ...schema, readOnly: true, description: 'Read-only: accepted when sent back, ignored.' } as T);
/** Identity attributes a provider returns: any JSON values (the itsme and Onfido clients type them as objects). */
const Attributes = Type.Record(Type.String(), Type.Unknown());
const Timestamp = Str({ format: 'date-time' });
const Url = Str({ format: 'uri', maxLength: 2048 });

/**
 * The fields each verification type accepts (Signhost's OpenAPI and the official clients' models,
 * docs/design/signer-api.md#verification-types). Read-only fields (filled in by the identity provider or the service)
 * are accepted because clients send a transaction back as they got it; the service ignores them (transaction-rules.ts
 * drops them).
 */
export const VERIFICATION_FIELDS: Record<(typeof VERIFICATION_TYPES)[number], Record<string, TSchema>> = {
  Scribble: { RequireHandsignature: opt(Type.Boolean()), ScribbleNameFixed: opt(Type.Boolean()), ScribbleName: opt(Str({ maxLength: 255 })) },
  Consent: {},
  PhoneNumber: { Number: opt(Str({ maxLength: 32 })), SecureDownload: opt(Type.Boolean()) },
  Email: { Email: opt(Str({ format: 'email', maxLength: 320 })) },
  IPAddress: { IPAddress: readOnly(Str()) },
  SigningCertificate: { Issuer: readOnly(Str()), Subject: readOnly(Str()), Thumbprint: readOnly(Str()) },
  DigiD: { Bsn: opt(Str({ maxLength: 9 })), Betrouwbaarheidsniveau: readOnly(Str()), SecureDownload: opt(Type.Boolean()) },
  eHerkenning: { Uid: readOnly(Str()), EntityConcernIdKvkNr: opt(Str({ maxLength: 32 })) },
  'eIDAS Login': {
    Uid: readOnly(Str()),
    Level: readOnly(Type.Union([Str(), Type.Integer()])),
    FirstName: readOnly(Str()),
    LastName: readOnly(Str()),
    DateOfBirth: readOnly(Str()),
    Attributes: readOnly(Attributes),
  },
  iDeal: { Iban: opt(Str({ maxLength: 34 })), AccountHolderName: readOnly(Str()), AccountHolderCity: readOnly(Str()) },
  iDIN: {
    AccountHolderName: readOnly(Str()),
    AccountHolderAddress1: readOnly(Str()),
    AccountHolderAddress2: readOnly(Str()),
    AccountHolderDateOfBirth: readOnly(Str()),
    Attributes: readOnly(Attributes),
  },
  'itsme Identification': { PhoneNumber: opt(Str({ maxLength: 32 })), Attributes: readOnly(Attributes) },
  'itsme sign': { Issuer: readOnly(Str()), Subject: readOnly(Str()), Thumbprint: readOnly(Str()) },
  SURFnet: { Uid: readOnly(Str()), Attributes: readOnly(Attributes) },
  'CSC Qualified': {
    Provider: readOnly(Str()),
    Issuer: readOnly(Str()),
    Subject: readOnly(Str()),
    Thumbprint: readOnly(Str()),
    AdditionalUserData: readOnly(Attributes),
  },
  Onfido: {
    WorkflowId: opt(Str({ format: 'uuid' })),
    WorkflowRunId: readOnly(Str({ format: 'uuid' })),
    Version: readOnly(Type.Integer()),
    Attributes: readOnly(Attributes),
  },
  'OpenID Providers': { ProviderName: opt(Str({ maxLength: 255 })) },
};

/**
 * A verification or authentication as sent: its `Type` and the fields of that type. The schema checks each type's
 * fields (one branch per type); statically they are JSON values.
 */
export interface VerificationRequest {
  Type: string;
  [field: string]: JsonValue | undefined;
}

/** A Verification object: one branch per `Type`, each with its own fields (ajv `discriminator`). */
export const VerificationSchema = Type.Unsafe<VerificationRequest>({
  type: 'object',
  discriminator: { propertyName: 'Type' },
  required: ['Type'],
  oneOf: VERIFICATION_TYPES.map((type) => ({
    type: 'object',
    properties: { Type: { const: type }, ...VERIFICATION_FIELDS[type] },
    required: ['Type'],
    additionalProperties: false,
  })),
});

/** An Authentication object (docs/design/signer-api.md#authentications). */
export const AuthenticationSchema = Type.Unsafe<VerificationRequest>({
  type: 'object',
  discriminator: { propertyName: 'Type' },
  required: ['Type'],
  oneOf: [
    {
      type: 'object',
      properties: { Type: { const: 'PhoneNumber' }, Number: { type: 'string', maxLength: 32 }, SecureDownload: { type: 'boolean' } },
      required: ['Type', 'Number'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        Type: { const: 'DigiD' },
        Bsn: { type: 'string', maxLength: 9 },
        Betrouwbaarheidsniveau: { type: 'string', readOnly: true },
        SecureDownload: { type: 'boolean' },
      },
      required: ['Type'],
      additionalProperties: false,
    },
  ],
});

/** `Context`: any JSON object, returned as sent. */
export const ContextSchema = Type.Unsafe<JsonObject>(
  Type.Record(Type.String(), Type.Unknown(), {
    description: 'Any JSON object, returned as sent (max 64 KiB, 32 levels deep); null inside it stays null.',
  }),
);

const ActivitySchema = Type.Object({
  Id: Str(),
  Code: Type.Integer({ description: 'Activity code (docs/statuses.md): 101 InvitationSent … 999 Failed' }),
  Activity: Str(),
  Info: opt(Str({ description: 'Omitted when there is none (e.g. the fileId for 105 DocumentOpened)' })),
  CreatedDateTime: Timestamp,
});

/** What a signer response carries beyond the request (Signhost's OpenAPI `Signer`): read-only on requests. */
const SIGNER_READ_ONLY = {
  Activities: Type.Array(ActivitySchema),
  RejectReason: Str(),
  DelegateReason: Str(),
  DelegateSignerEmail: Str(),
  DelegateSignerName: Str(),
  DelegateSignUrl: Str(),
  SignUrl: Url,
  ShowUrl: Url,
  ReceiptUrl: Url,
  SignedDateTime: Timestamp,
  RejectDateTime: Timestamp,
  CreatedDateTime: Timestamp,
  SignerDelegationDateTime: Timestamp,
  ModifiedDateTime: Timestamp,
} as const;

/** What a receiver response carries beyond the request. */
const RECEIVER_READ_ONLY = { Id: Str(), Activities: Type.Array(ActivitySchema), CreatedDateTime: Timestamp, ModifiedDateTime: Timestamp } as const;

/**
 * What a transaction response carries beyond the request. `CancelledDateTime` and `CancellationReason` are the
 * spellings of the .NET client's own model, which its v4 sends back when creating.
 */
const TRANSACTION_READ_ONLY = {
  Id: Str(),
  Status: Type.Integer(),
  Files: Type.Record(Type.String(), Type.Unknown()),
  CreatedDateTime: Timestamp,
  ModifiedDateTime: Timestamp,
  CanceledDateTime: Timestamp,
  CancelationReason: Str(),
  CancelledDateTime: Timestamp,
  CancellationReason: Str(),
} as const;

function readOnlyAll<T extends Record<string, TSchema>>(props: T): { [K in keyof T]: TOptional<T[K]> } {
  return Object.fromEntries(Object.entries(props).map(([key, schema]) => [key, readOnly(schema)])) as { [K in keyof T]: TOptional<T[K]> };
}

/** A signer's fields a client sets (plus the accepted extras, docs/design/api.md#tolerant-reader). */
export const SIGNER_WRITABLE = {
  Id: opt(Str({ description: 'Unique in the transaction, [A-Za-z0-9_-]{1,64}; assigned Signer1, Signer2, … when absent.' })),
  Email: Str({ format: 'email', maxLength: 320 }),
  Mobile: opt(Str({ maxLength: 32 })),
  Iban: opt(Str({ maxLength: 34 })),
  BSN: opt(Str({ maxLength: 9 })),
  Verifications: opt(Type.Array(VerificationSchema, { maxItems: 20 })),
  Authentications: opt(Type.Array(AuthenticationSchema, { maxItems: 10 })),
  RequireScribble: opt(Type.Boolean()),
  RequireScribbleName: opt(Type.Boolean()),
  RequireEmailVerification: opt(Type.Boolean()),
  RequireSmsVerification: opt(Type.Boolean()),
  RequireIdealVerification: opt(Type.Boolean()),
  RequireDigidVerification: opt(Type.Boolean()),
  RequireSurfnetVerification: opt(Type.Boolean()),
  SendSignRequest: opt(
    Type.Boolean({
      // Not as the `default` keyword: generators (openapi-typescript) would make a defaulted property required.
      description:
        'Whether the signer gets the sign request and reminders by e-mail (default true). SignRequestMessage is required unless SendSignRequest is false.',
    }),
  ),
  SendSignConfirmation: opt(Type.Boolean({ description: 'Default: the value of SendSignRequest.' })),
  SignRequestMessage: opt(Str({ maxLength: 10_000, description: 'Plain text; `\\n` makes a new line. Required when SendSignRequest true is sent.' })),
  SignRequestSubject: opt(Str({ maxLength: 64, description: 'Plain text, at most 64 characters; absent: the standard subject.' })),
  DaysToRemind: opt(
    Type.Integer({
      minimum: -1,
      description: 'Days between reminders while the signer has not signed: -1 none, 0 (or absent) the account default (7), N every N days; must be lower than DaysToExpire.',
    }),
  ),
  Language: opt(stringEnum(LANGUAGES)),
  ScribbleName: opt(Str({ maxLength: 255 })),
  ScribbleNameFixed: opt(Type.Boolean()),
  Reference: opt(Str({ maxLength: 255 })),
  ReturnUrl: opt(Url),
  Expires: opt(Timestamp),
  IntroText: opt(Str({ maxLength: 10_000 })),
  AllowDelegation: opt(Type.Boolean({ description: 'Stored and echoed; delegation itself is not offered.' })),
  Context: opt(ContextSchema),
};

/**
 * A signer as a client sends it on create (documented read-only properties ignored,
 * docs/design/api.md#tolerant-reader).
 */
export const SignerRequestSchema = Type.Object({ ...SIGNER_WRITABLE, ...readOnlyAll(SIGNER_READ_ONLY) }, { additionalProperties: false });

/** A receiver's fields a client sets (docs/design/api.md#response-values). */
export const RECEIVER_WRITABLE = {
  Name: opt(Str({ maxLength: 255 })),
  Email: Str({ format: 'email', maxLength: 320 }),
  Language: opt(stringEnum(LANGUAGES)),
  Message: opt(Str({ maxLength: 10_000 })),
  Subject: opt(Str({ maxLength: 64, description: 'Plain text, at most 64 characters; absent: the standard subject.' })),
  Reference: opt(Str({ maxLength: 255 })),
  Context: opt(ContextSchema),
};

/** A receiver as a client sends it (docs/design/api.md#response-values). */
export const ReceiverRequestSchema = Type.Object({ ...RECEIVER_WRITABLE, ...readOnlyAll(RECEIVER_READ_ONLY) }, { additionalProperties: false });

/** A transaction's own fields a client sets (docs/design/api.md#defaults), besides its signers and receivers. */
export const TRANSACTION_WRITABLE = {
  Seal: opt(Type.Boolean()),
  Reference: opt(Str({ maxLength: 255 })),
  PostbackUrl: opt(Url),
  SignRequestMode: opt(Type.Integer({ minimum: 0, maximum: 2, description: '1 all at start, 2 each in turn; 0 or absent means 2.' })),
  DaysToExpire: opt(Type.Integer({ minimum: 0, maximum: 90 })),
  SendEmailNotifications: opt(Type.Boolean({ description: 'Default true.' })),
  Language: opt(stringEnum(LANGUAGES)),
  Context: opt(ContextSchema),
};

/** POST /api/transaction body (docs/design/api.md#endpoints). */
export const CreateTransactionSchema = Type.Object(
  {
    ...TRANSACTION_WRITABLE,
    Signers: opt(Type.Array(SignerRequestSchema, { maxItems: 100 })),
    Receivers: opt(Type.Array(ReceiverRequestSchema, { maxItems: 100 })),
    ...readOnlyAll(TRANSACTION_READ_ONLY),
  },
  { additionalProperties: false },
);

/** A signer as sent on create, its JSON shape checked by {@link SignerRequestSchema}. */
export type SignerRequest = Static<typeof SignerRequestSchema>;
/** A receiver as sent on create. */
export type ReceiverRequest = Static<typeof ReceiverRequestSchema>;
/** The create request body, its JSON shape checked by {@link CreateTransactionSchema}. */
export type CreateTransactionRequest = Static<typeof CreateTransactionSchema>;

/** The client-set fields of a stored signer, as declared above (transaction.ts adds what the service sets). */
export type SignerFields = Static<TObject<typeof SIGNER_WRITABLE>>;
/** The client-set fields of a stored receiver. */
export type ReceiverFields = Static<TObject<typeof RECEIVER_WRITABLE>>;
/** The client-set fields of a stored transaction. */
export type TransactionFields = Static<TObject<typeof TRANSACTION_WRITABLE>>;

