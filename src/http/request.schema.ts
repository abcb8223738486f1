/**
 * The request bodies of the transaction API as the OpenAPI document states them: exactly what the service accepts.
 * fastify validates a body after the tolerant reader dropped its null properties (null means absent), so the schemas
 * it validates with forbid null; the document's copies allow null for every property that is not required, and keep
 * the read-only properties a client may send back (accepted and ignored). Unknown properties stay refused (400).
 * Verification and authentication objects get request components of their own: the response ones stay exact.
 */
import { VERIFICATION_TYPES } from '../domain/transaction.js';
import { AuthenticationSchema, CreateTransactionSchema, ReceiverRequestSchema, SignerRequestSchema, VERIFICATION_FIELDS } from '../domain/transaction-schema.js';
import { plain, ref, verificationComponentName, type JsonSchema } from './response.schema.js';
import { DeleteTransactionSchema, FileMetaDataSchema, LocationSchema } from './transaction.schema.js';

/** A schema that also allows null (once). */
function orNull(schema: JsonSchema): JsonSchema {
  if (schema.type === 'null') return schema;
  if (Array.isArray(schema.type)) return schema.type.includes('null') ? schema : { ...schema, type: [...(schema.type as string[]), 'null'] };
  if (typeof schema.type === 'string' && schema.enum === undefined && schema.const === undefined) return { ...schema, type: [schema.type, 'null'] };
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches?.some((b) => b.type === 'null')) return schema;
  if (schema.enum !== undefined && Array.isArray(schema.enum)) return { ...schema, type: [schema.type, 'null'], enum: [...(schema.enum as unknown[]), null] };
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * Every optional property of an object schema, at every level, may be null. `replace` puts a `$ref` where a named
 * schema goes (by property name), before nulls are allowed.
 */
function tolerant(schema: JsonSchema, replace: Readonly<Record<string, JsonSchema>> = {}): JsonSchema {
  const out: Record<string, unknown> = { ...schema };
  if (schema.properties !== undefined) {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const props: Record<string, JsonSchema> = {};
    for (const [key, value] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      const inner = replace[key] ?? tolerantChild(value, replace);
      props[key] = required.has(key) ? inner : orNull(inner);
    }
    out.properties = props;
  }
  if (schema.additionalProperties !== undefined && typeof schema.additionalProperties === 'object') {
    out.additionalProperties = tolerantChild(schema.additionalProperties as JsonSchema, replace);
  }
  // A record's values (TypeBox writes records as patternProperties) are properties too: null is absent there as well.
  if (schema.patternProperties !== undefined) {
    out.patternProperties = Object.fromEntries(
      Object.entries(schema.patternProperties as Record<string, JsonSchema>).map(([pattern, value]) => [pattern, orNull(tolerantChild(value, replace))]),
    );
  }
  return out;
}

function tolerantChild(schema: JsonSchema, replace: Readonly<Record<string, JsonSchema>>): JsonSchema {
  if (schema.type === 'array' && schema.items !== undefined) return { ...schema, items: tolerant(schema.items as JsonSchema, replace) };
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) return { ...schema, [key]: (schema[key] as JsonSchema[]).map((b) => tolerant(b, replace)) };
  }
  return tolerant(schema, replace);
}

/** `VerificationScribble` → `VerificationScribbleRequest`. */
const requestName = (name: string): string => `${name}Request`;

/** The named request schemas of the document. */
export function requestComponentSchemas(): Record<string, JsonSchema> {
  const verifications: Record<string, JsonSchema> = {};
  const mapping: Record<string, string> = {};
  for (const type of VERIFICATION_TYPES) {
    const name = requestName(verificationComponentName(type));
    mapping[type] = `#/components/schemas/${name}`;
    verifications[name] = tolerant({
      type: 'object',
      properties: { Type: { type: 'string', const: type }, ...plain(VERIFICATION_FIELDS[type]) },
      required: ['Type'],
      additionalProperties: false,
    });
  }
  const authentication = plain(AuthenticationSchema);
  const authBranches = (authentication.oneOf as JsonSchema[]).map((branch) => tolerant(branch));
  const signerRefs = {
    Verifications: { type: 'array', maxItems: 20, items: ref('VerificationRequest') },
    Authentications: { type: 'array', maxItems: 10, items: ref('AuthenticationRequest') },
    Context: ref('Context'),
  };
  return {
    CreateTransactionRequest: {
      ...tolerant(plain(CreateTransactionSchema), {
        Signers: { type: 'array', maxItems: 100, items: ref('SignerRequest') },
        Receivers: { type: 'array', maxItems: 100, items: ref('ReceiverRequest') },
        Context: ref('Context'),
      }),
      description: 'A new transaction. null means absent; read-only properties of a model sent back are accepted and ignored; other properties are refused (400).',
    },
    SignerRequest: tolerant(plain(SignerRequestSchema), signerRefs),
    ReceiverRequest: tolerant(plain(ReceiverRequestSchema), { Context: ref('Context') }),
    VerificationRequest: {
      type: 'object',
      description: 'A verification as sent: one schema per Type. IPAddress and SigningCertificate, which the service adds after signing, are accepted and ignored.',
      oneOf: VERIFICATION_TYPES.map((type) => ref(requestName(verificationComponentName(type)))),
      discriminator: { propertyName: 'Type', mapping },
    },
    ...verifications,
    AuthenticationRequest: { ...authentication, oneOf: authBranches },
    DeleteTransactionRequest: tolerant(plain(DeleteTransactionSchema)),
    FileMetaData: tolerant(plain(FileMetaDataSchema), { Location: ref('Location') }),
    Location: tolerant(plain(LocationSchema)),
  };
}
