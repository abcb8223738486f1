/**
 * Turns JSON-schema validation errors into messages that name the field and the rule (docs/design/api.md#errors): the
 * field path written as a client reads it (`Signers[0].Email`), then the rule (`not a valid e-mail address`, `Null
 * values must not be sent`, `unknown property`). The error keeps the code `INVALID_REQUEST` and maps to 400.
 */
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { ValidationError } from '../errors.js';

const FORMAT_TEXT: Readonly<Record<string, string>> = {
  email: 'not a valid e-mail address',
  uri: 'not a valid absolute URL',
  'date-time': 'not a valid timestamp (ISO 8601 with offset)',
  uuid: 'not a valid UUID',
};

/** `/Signers/0/Verifications/1` → `Signers[0].Verifications[1]`; the root is `root`. */
export function fieldPath(instancePath: string, root: string): string {
  if (instancePath === '') return root;
  let out = '';
  for (const raw of instancePath.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

function join(path: string, child: string, root: string): string {
  return path === root ? child : `${path}.${child}`;
}

/** One message for one ajv error. */
function describeSchemaError(error: FastifySchemaValidationError & { data?: unknown }, root: string): string {
  const path = fieldPath(error.instancePath, root);
  const params = error.params as Record<string, unknown>;
  if (error.data === null) {
    return error.instancePath === '' ? `${root}: the request body must be a JSON object` : `${path}: Null values must not be sent`;
  }
  switch (error.keyword) {
    case 'required':
      return `${join(path, String(params.missingProperty), root)}: is required`;
    case 'additionalProperties':
      return `${join(path, String(params.additionalProperty), root)}: unknown property; only documented properties may be sent`;
    case 'type': {
      const type = String(params.type);
      // Signhost's texts where it publishes one.
      if (type === 'object' && /^\/Signers\/\d+$/.test(error.instancePath)) return 'Invalid signer structure provided.';
      if (type === 'object' && /^\/Receivers\/\d+$/.test(error.instancePath)) return 'Invalid receiver structure provided.';
      if (type === 'object' && /(^|\/)Context$/.test(error.instancePath)) return 'Only json objects are allowed in context properties';
      const article = /^[aeiou]/.test(type) ? 'an' : 'a';
      return `${path}: must be ${type === 'object' ? 'a JSON object' : type === 'array' ? 'a JSON array' : `${article} ${type}`}`;
    }
    case 'format':
      return `${path}: ${FORMAT_TEXT[String(params.format)] ?? `not a valid ${String(params.format)}`}`;
    case 'enum':
      return `${path}: must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${path}: must be ${JSON.stringify(params.allowedValue)}`;
    case 'discriminator':
      if (params.error === 'mapping') return `${join(path, 'Type', root)}: unknown type ${JSON.stringify(params.tagValue)}`;
      return `${join(path, 'Type', root)}: is required and must be a string`;
    case 'maxLength':
      return `${path}: must be at most ${String(params.limit)} characters`;
    case 'minLength':
      return `${path}: must be at least ${String(params.limit)} characters`;
    case 'maximum':
      return `${path}: must be at most ${String(params.limit)}`;
    case 'minimum':
      return `${path}: must be at least ${String(params.limit)}`;
    case 'maxItems':
      return `${path}: must have at most ${String(params.limit)} items`;
    case 'pattern':
      return `${path}: has an invalid format`;
    default:
      return `${path}: ${error.message ?? 'is invalid'}`;
  }
}

/** fastify `schemaErrorFormatter`: one ValidationError listing every schema error. */
export function formatSchemaErrors(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const root = dataVar === 'body' ? 'Transaction' : dataVar;
  const messages = [...new Set(errors.filter((e) => e.keyword !== 'oneOf').map((e) => describeSchemaError(e, root)))];
  return new ValidationError(messages.length > 0 ? messages : [`${root}: is invalid`], 'INVALID_REQUEST');
}
