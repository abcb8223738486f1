/**
 * The named schemas of the OpenAPI document (`components.schemas`): the transaction, signer, receiver,
 * activity and partial 410 view in both response versions, derived from the one list of keys the views render
 * (transaction-view.ts) so that version 1's nulls are stated exactly as served; one Verification schema per type
 * under a discriminator with a mapping; ErrorModel. The request bodies' components are request.schema.ts's.
 */
import { ACTIVITY_KEYS, PARTIAL_TRANSACTION_KEYS, RECEIVER_KEYS, SIGNER_KEYS, TRANSACTION_KEYS } from '../domain/transaction-view.js';
import { ActivityCode, TransactionStatus, VERIFICATION_TYPES, type VerificationType } from '../domain/transaction.js';
import { LANGUAGES } from '../i18n/languages.js';
import { AuthenticationSchema, ContextSchema, VERIFICATION_FIELDS } from '../domain/transaction-schema.js';
import { ErrorModelSchema } from './transaction.schema.js';

/** A JSON Schema as it goes into the document. */
export type JsonSchema = { readonly [key: string]: unknown };

/** `#/components/schemas/<name>`. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const str: JsonSchema = { type: 'string' };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const uri: JsonSchema = { type: 'string', format: 'uri' };
const bool: JsonSchema = { type: 'boolean' };
const int: JsonSchema = { type: 'integer' };
const list = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

/** The component name of a verification type (`eIDAS Login` → `VerificationEIDASLogin`). */
export function verificationComponentName(type: VerificationType): string {
  const words = type.split(/[^A-Za-z0-9]+/).map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return `Verification${words.join('')}`;
}

/**
 * A response object in one version. Version 1 carries every key, `null` when absent, except the keys in `nonNull`
 * (never absent) and `omittedWhenAbsent` (left out instead of null); version 2 omits every absent key.
 */
function versioned(
  properties: Readonly<Record<string, JsonSchema>>,
  options: { version: 1 | 2; nonNull: readonly string[]; omittedWhenAbsent?: readonly string[]; description: string },
): JsonSchema {
  const omitted = new Set(options.omittedWhenAbsent ?? []);
  const nonNull = new Set(options.nonNull);
  const props: Record<string, JsonSchema> = {};
  for (const [key, schema] of Object.entries(properties)) {
    props[key] = options.version === 1 && !nonNull.has(key) && !omitted.has(key) ? nullable(schema) : schema;
  }
  const required = Object.keys(properties).filter((key) => nonNull.has(key) || (options.version === 1 && !omitted.has(key)));
  return { type: 'object', description: options.description, properties: props, required, additionalProperties: false };
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string' && schema.$ref === undefined) return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

const ACTIVITY: Record<(typeof ACTIVITY_KEYS)[number], JsonSchema> = {
  Id: str,
  Code: ref('ActivityCode'),
  Activity: str,
  Info: { type: 'string', description: 'Omitted when there is none (e.g. the fileId for 105 DocumentOpened)' },
  CreatedDateTime: dateTime,
};

const SIGNER: Record<(typeof SIGNER_KEYS)[number], JsonSchema> = {
  Id: str,
  Email: { type: 'string', format: 'email' },
  Mobile: str,
  Iban: str,
  BSN: str,
  Verifications: list(ref('Verification')),
  Authentications: list(ref('Authentication')),
  RequireScribble: bool,
  RequireScribbleName: bool,
  RequireEmailVerification: bool,
  RequireSmsVerification: bool,
  RequireDigidVerification: bool,
  RequireSurfnetVerification: bool,
  RequireIdealVerification: bool,
  SendSignRequest: bool,
  SendSignConfirmation: bool,
  SignRequestMessage: str,
  SignRequestSubject: str,
  DaysToRemind: int,
  Language: ref('Language'),
  ScribbleName: str,
  ScribbleNameFixed: bool,
  Reference: str,
  ReturnUrl: uri,
  IntroText: str,
  AllowDelegation: bool,
  Expires: dateTime,
  Activities: list(ref('Activity')),
  RejectReason: str,
  SignUrl: uri,
  ShowUrl: uri,
  ReceiptUrl: uri,
  SignedDateTime: dateTime,
  RejectDateTime: dateTime,
  CreatedDateTime: dateTime,
  ModifiedDateTime: dateTime,
  Context: ref('Context'),
};
const SIGNER_NON_NULL = [
  'Id', 'Email', 'Verifications', 'Authentications', 'RequireScribble', 'RequireScribbleName', 'RequireEmailVerification',
  'RequireSmsVerification', 'RequireDigidVerification', 'RequireSurfnetVerification', 'RequireIdealVerification',
  'SendSignRequest', 'SendSignConfirmation', 'DaysToRemind', 'Language', 'ScribbleNameFixed', 'AllowDelegation',
  'Activities', 'CreatedDateTime', 'ModifiedDateTime',
] as const satisfies readonly (typeof SIGNER_KEYS)[number][];

const RECEIVER: Record<(typeof RECEIVER_KEYS)[number], JsonSchema> = {
  Id: str,
  Name: str,
  Email: { type: 'string', format: 'email' },
  Language: ref('Language'),
  Message: str,
  Subject: str,
  Reference: str,
  Activities: list(ref('Activity')),
  CreatedDateTime: dateTime,
  ModifiedDateTime: dateTime,
  Context: ref('Context'),
};
const RECEIVER_NON_NULL = ['Id', 'Email', 'Activities', 'CreatedDateTime', 'ModifiedDateTime'] as const satisfies readonly (typeof RECEIVER_KEYS)[number][];

const FILE_ENTRY: JsonSchema = {
  type: 'object',
  properties: {
    Links: list({
      type: 'object',
      properties: { Rel: { type: 'string', enum: ['file'] }, Type: { type: 'string', enum: ['application/pdf'] }, Link: uri },
      required: ['Rel', 'Type', 'Link'],
      additionalProperties: false,
    }),
    DisplayName: str,
  },
  required: ['Links', 'DisplayName'],
  additionalProperties: false,
};

const transactionProperties = (version: 1 | 2): Record<(typeof TRANSACTION_KEYS)[number], JsonSchema> => ({
  Id: { type: 'string', format: 'uuid' },
  Status: ref('Status'),
  Files: { type: 'object', additionalProperties: ref('FileEntry'), description: 'fileId → links and display name' },
  Seal: bool,
  Signers: list(ref(`SignerV${version}`)),
  Receivers: list(ref(`ReceiverV${version}`)),
  Reference: str,
  PostbackUrl: uri,
  SignRequestMode: { type: 'integer', enum: [1, 2], description: '1 all at start, 2 each in turn' },
  DaysToExpire: int,
  Language: ref('Language'),
  SendEmailNotifications: bool,
  CreatedDateTime: dateTime,
  ModifiedDateTime: dateTime,
  CanceledDateTime: dateTime,
  CancelationReason: { type: 'string', description: 'Omitted when there is none' },
  Context: ref('Context'),
});
const TRANSACTION_NON_NULL = [
  'Id', 'Status', 'Files', 'Seal', 'Signers', 'Receivers', 'SignRequestMode', 'DaysToExpire', 'Language',
  'SendEmailNotifications', 'CreatedDateTime', 'ModifiedDateTime',
] as const satisfies readonly (typeof TRANSACTION_KEYS)[number][];

const PARTIAL: Record<(typeof PARTIAL_TRANSACTION_KEYS)[number], JsonSchema> = {
  Id: { type: 'string', format: 'uuid' },
  Status: ref('Status'),
  Reference: str,
  CreatedDateTime: dateTime,
  ModifiedDateTime: dateTime,
  CanceledDateTime: dateTime,
  CancelationReason: str,
  Signers: list({ type: 'object', properties: { Id: str }, required: ['Id'], additionalProperties: false }),
};

const V1 = 'Version 1 (default, or `Accept: application/vnd.signhost.v1+json`): every property present, `null` when absent.';
const V2 = 'Version 2 (`Accept: application/vnd.signhost.v2+json`): absent properties omitted.';

/** A plain JSON copy (TypeBox marks its schemas with symbol keys, which JSON drops). */
export function plain(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema;
}

/** Every named schema of the document. */
export function componentSchemas(): Record<string, JsonSchema> {
  const verifications: Record<string, JsonSchema> = {};
  const mapping: Record<string, string> = {};
  for (const type of VERIFICATION_TYPES) {
    const name = verificationComponentName(type);
    mapping[type] = `#/components/schemas/${name}`;
    verifications[name] = {
      type: 'object',
      properties: { Type: { type: 'string', const: type }, ...plain(VERIFICATION_FIELDS[type]) },
      required: ['Type'],
      additionalProperties: false,
    };
  }
  const responses: Record<string, JsonSchema> = {};
  for (const version of [1, 2] as const) {
    const description = version === 1 ? V1 : V2;
    responses[`TransactionV${version}`] = versioned(transactionProperties(version), {
      version,
      nonNull: TRANSACTION_NON_NULL,
      omittedWhenAbsent: ['CancelationReason'],
      description: `A transaction. ${description}`,
    });
    responses[`SignerV${version}`] = versioned(SIGNER, { version, nonNull: SIGNER_NON_NULL, description: `A signer. ${description}` });
    responses[`ReceiverV${version}`] = versioned(RECEIVER, { version, nonNull: RECEIVER_NON_NULL, description: `A receiver. ${description}` });
    responses[`PartialTransactionV${version}`] = versioned(PARTIAL, {
      version,
      nonNull: ['Id', 'Status', 'CreatedDateTime', 'Signers'],
      omittedWhenAbsent: ['CancelationReason'],
      description: `What a cleaned transaction answers with (410 once its documents were cleaned; docs/statuses.md). ${description}`,
    });
  }
  for (const version of [1, 2] as const) {
    const transaction = responses[`TransactionV${version}`] as { properties: Record<string, JsonSchema>; required: string[] };
    responses[`PostbackV${version}`] = {
      ...transaction,
      description: `A postback body: the transaction as GET answers it in version ${version}, plus Checksum.`,
      properties: { ...transaction.properties, Checksum: { type: 'string', pattern: '^[0-9a-f]{40}$', description: 'Lowercase hex SHA-1 of `Id||Status|secret` (also the Checksum header)' } },
      required: [...transaction.required, 'Checksum'],
    };
  }
  return {
    Status: {
      type: 'integer',
      enum: Object.values(TransactionStatus),
      description: Object.entries(TransactionStatus)
        .map(([name, code]) => `${code} ${name}`)
        .join(', '),
    },
    ActivityCode: {
      type: 'integer',
      enum: Object.values(ActivityCode),
      description: Object.entries(ActivityCode)
        .map(([name, code]) => `${code} ${name}`)
        .join(', '),
    },
    Language: { type: 'string', enum: [...LANGUAGES] },
    Context: plain(ContextSchema),
    Activity: versioned(ACTIVITY, { version: 2, nonNull: ['Id', 'Code', 'Activity', 'CreatedDateTime'], description: 'An activity (the same in both versions: Info is omitted when there is none).' }),
    Verification: {
      type: 'object',
      description: 'A verification: one schema per Type.',
      oneOf: VERIFICATION_TYPES.map((type) => ref(verificationComponentName(type))),
      discriminator: { propertyName: 'Type', mapping },
    },
    ...verifications,
    Authentication: plain(AuthenticationSchema),
    FileEntry: FILE_ENTRY,
    ...responses,
    ErrorModel: plain(ErrorModelSchema),
  };
}

/** The Verification schema fastify validates with (inline branches), for the same replacement. */
export { VerificationSchema as InlineVerificationSchema } from '../domain/transaction-schema.js';
