/**
 * JSON shapes of the transaction endpoints (spec §2.2–§2.7, §4.1–§4.3, §4.7; decisions.md §1–§2) as TypeBox
 * schemas. They check the shape only (types, known properties, formats, enums); the business rules (11-proef,
 * verification order, defaults, limits that depend on other fields) are the domain's. The same schemas feed request
 * validation and the OpenAPI document.
 */
import { Type, type TSchema } from 'typebox';
import { LANGUAGES, VERIFICATION_TYPES } from '../domain/transaction.js';

/** A string enum as plain JSON Schema `enum` (clearer validation messages than an anyOf of literals). */
export function stringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}): TSchema {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

const Str = (options: Record<string, unknown> = {}) => Type.String(options);
const Attributes = Type.Record(Type.String(), Type.String());
const opt = Type.Optional;

/**
 * The fields each verification type accepts (spec §2.6). Read-only fields are accepted too, because clients send a
 * transaction back as they got it; the service overwrites them.
 */
const VERIFICATION_FIELDS: Record<(typeof VERIFICATION_TYPES)[number], Record<string, TSchema>> = {
  Scribble: { RequireHandsignature: Type.Boolean(), ScribbleNameFixed: Type.Boolean(), ScribbleName: Str({ maxLength: 255 }) },
  Consent: {},
  PhoneNumber: { Number: Str({ maxLength: 32 }) },
  Email: {},
  IPAddress: { IPAddress: Str() },
  SigningCertificate: { Issuer: Str(), Subject: Str(), Thumbprint: Str() },
  DigiD: { Bsn: Str({ maxLength: 9 }), Betrouwbaarheidsniveau: Str() },
  eHerkenning: { Uid: Str(), EntityConcernIdKvkNr: Str({ maxLength: 32 }) },
  'eIDAS Login': { Uid: Str(), Level: Str(), FirstName: Str(), LastName: Str(), DateOfBirth: Str(), Attributes },
  iDeal: { Iban: Str({ maxLength: 34 }), AccountHolderName: Str(), AccountHolderCity: Str() },
  iDIN: {
    AccountHolderName: Str(),
    AccountHolderAddress1: Str(),
    AccountHolderAddress2: Str(),
    AccountHolderDateOfBirth: Str(),
    Attributes,
  },
  'itsme Identification': { PhoneNumber: Str({ maxLength: 32 }), Attributes },
  'itsme sign': { Issuer: Str(), Subject: Str(), Thumbprint: Str() },
  SURFnet: { Uid: Str(), Attributes },
  'CSC Qualified': { Provider: Str(), Issuer: Str(), Subject: Str(), Thumbprint: Str() },
  Onfido: { WorkflowId: Str({ format: 'uuid' }) },
  'OpenID Providers': { ProviderName: Str({ maxLength: 255 }) },
};

/** A Verification object: one branch per `Type`, each with its own fields (ajv `discriminator`). */
export const VerificationSchema = Type.Unsafe<{ Type: string } & Record<string, unknown>>({
  type: 'object',
  discriminator: { propertyName: 'Type' },
  required: ['Type'],
  oneOf: VERIFICATION_TYPES.map((type) => ({
    type: 'object',
    properties: { Type: { const: type }, ...Object.fromEntries(Object.entries(VERIFICATION_FIELDS[type]).map(([k, v]) => [k, v])) },
    required: ['Type'],
    additionalProperties: false,
  })),
});

/** An Authentication object (spec §2.7; decisions.md §6). */
export const AuthenticationSchema = Type.Unsafe<{ Type: string } & Record<string, unknown>>({
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
      properties: { Type: { const: 'DigiD' }, Bsn: { type: 'string', maxLength: 9 }, Betrouwbaarheidsniveau: { type: 'string' } },
      required: ['Type'],
      additionalProperties: false,
    },
  ],
});

/** `Context`: any JSON object, returned as sent. */
export const ContextSchema = Type.Record(Type.String(), Type.Unknown(), { description: 'Any JSON object, returned as sent (max 64 KiB).' });

const Timestamp = Str({ format: 'date-time' });
const Url = Str({ format: 'uri', maxLength: 2048 });

/** A signer as a client sends it on create (spec §2.3 plus decisions.md §2). */
export const SignerRequestSchema = Type.Object(
  {
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
    SendSignRequest: opt(Type.Boolean()),
    SendSignConfirmation: opt(Type.Boolean()),
    SignRequestMessage: opt(Str({ maxLength: 10_000 })),
    SignRequestSubject: opt(Str({ maxLength: 255 })),
    DaysToRemind: opt(Type.Integer()),
    Language: opt(stringEnum(LANGUAGES)),
    ScribbleName: opt(Str({ maxLength: 255 })),
    ScribbleNameFixed: opt(Type.Boolean()),
    Reference: opt(Str({ maxLength: 255 })),
    ReturnUrl: opt(Url),
    Expires: opt(Timestamp),
    IntroText: opt(Str({ maxLength: 10_000 })),
    AllowDelegation: opt(Type.Boolean()),
    Context: opt(ContextSchema),
  },
  { additionalProperties: false },
);

/** A receiver as a client sends it (spec §2.4). */
export const ReceiverRequestSchema = Type.Object(
  {
    Name: opt(Str({ maxLength: 255 })),
    Email: Str({ format: 'email', maxLength: 320 }),
    Language: opt(stringEnum(LANGUAGES)),
    Message: opt(Str({ maxLength: 10_000 })),
    Subject: opt(Str({ maxLength: 255 })),
    Reference: opt(Str({ maxLength: 255 })),
    Context: opt(ContextSchema),
  },
  { additionalProperties: false },
);

/** POST /api/transaction body (spec §2.2, §4.1). */
export const CreateTransactionSchema = Type.Object(
  {
    Seal: opt(Type.Boolean()),
    Signers: opt(Type.Array(SignerRequestSchema, { maxItems: 100 })),
    Receivers: opt(Type.Array(ReceiverRequestSchema, { maxItems: 100 })),
    Reference: opt(Str({ maxLength: 255 })),
    PostbackUrl: opt(Url),
    SignRequestMode: opt(Type.Integer({ minimum: 0, maximum: 2 })),
    DaysToExpire: opt(Type.Integer({ minimum: 0, maximum: 90 })),
    SendEmailNotifications: opt(Type.Boolean()),
    Language: opt(stringEnum(LANGUAGES)),
    Context: opt(ContextSchema),
  },
  { additionalProperties: false },
);

/** DELETE /api/transaction/{id} optional body (spec §4.3). */
export const DeleteTransactionSchema = Type.Object(
  {
    SendNotifications: opt(Type.Boolean()),
    Reason: opt(Str({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

/** The `{transactionId}` path parameter. */
export const TransactionParamsSchema = Type.Object({ transactionId: Str({ minLength: 1, maxLength: 64 }) });

/** The `{transactionId}/file/{fileId}` path parameters. */
export const FileParamsSchema = Type.Object({
  transactionId: Str({ minLength: 1, maxLength: 64 }),
  fileId: Str({ description: 'Percent-encoded; at most 255 characters, no control characters nor : * ? \\ / " < > |' }),
});

/** ErrorModel (spec §2.9). */
export const ErrorModelSchema = Type.Object({ Message: Str() });

const Activity = Type.Object({
  Id: Str(),
  Code: Type.Integer(),
  Activity: Str(),
  Info: opt(Str()),
  CreatedDateTime: Timestamp,
});

/** FileEntry (spec §2.5). */
export const FileEntrySchema = Type.Object({
  Links: Type.Array(Type.Object({ Rel: Str(), Type: Str(), Link: Url })),
  DisplayName: Str({ maxLength: 255 }),
});

/** The transaction as responses carry it (documentation only: version 1 writes null for absent properties). */
export const TransactionResponseSchema = Type.Object({
  Id: Str(),
  Status: Type.Integer({ description: '5 WaitingForDocument, 10 WaitingForSigner, 20 InProgress, 30 Signed, 40 Rejected, 50 Expired, 60 Cancelled, 70 Failed' }),
  Seal: Type.Boolean(),
  Files: opt(Type.Record(Type.String(), FileEntrySchema)),
  Signers: opt(
    Type.Array(
      Type.Object(
        {
          ...SignerRequestSchema.properties,
          Id: Str(),
          SignUrl: opt(Url),
          Activities: opt(Type.Array(Activity)),
          RejectReason: opt(Str()),
          SignedDateTime: opt(Timestamp),
          RejectDateTime: opt(Timestamp),
          CreatedDateTime: opt(Timestamp),
          ModifiedDateTime: opt(Timestamp),
        },
        { additionalProperties: true },
      ),
    ),
  ),
  Receivers: opt(Type.Array(Type.Object({ ...ReceiverRequestSchema.properties, Id: Str(), Activities: opt(Type.Array(Activity)) }))),
  Reference: opt(Str()),
  PostbackUrl: opt(Url),
  SignRequestMode: opt(Type.Integer()),
  DaysToExpire: opt(Type.Integer()),
  SendEmailNotifications: opt(Type.Boolean()),
  Language: opt(Str()),
  CreatedDateTime: opt(Timestamp),
  ModifiedDateTime: opt(Timestamp),
  CanceledDateTime: opt(Timestamp),
  CancelationReason: opt(Str()),
  Context: opt(ContextSchema),
});
