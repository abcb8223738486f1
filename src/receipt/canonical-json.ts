/**
 * Canonical JSON: one byte-exact text per JSON value, so that a hash over it means the same thing everywhere
 * (audit trail, docs/design/receipt.md#canonical-json). The text is RFC 8785 (JSON Canonicalization Scheme, JCS),
 * written by the `canonicalize` package, so a third party can re-compute the audit chain with any JCS library.
 *
 * Stricter than JCS on input: values JSON cannot carry faithfully (undefined, NaN, Infinity, functions, bigint, dates,
 * class instances, cycles, array holes) are refused rather than silently dropped or coerced, because a hash over a
 * silently changed value proves nothing.
 */
import { createRequire } from 'node:module';
import { ParaphError } from '../errors.js';

// canonicalize 2.x (the line that supports Node 20) is CommonJS whose typings declare an ES default export.
const canonicalize = createRequire(import.meta.url)('canonicalize') as (value: unknown) => string | undefined;

/** A value canonical JSON can encode. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * Encodes `value` as RFC 8785 canonical JSON.
 *
 * @throws ParaphError `CANONICAL_JSON_UNSUPPORTED` naming the path of the first value that is not plain JSON.
 * @example canonicalJson({ b: [1, 'x'], a: null }) === '{"a":null,"b":[1,"x"]}'
 */
export function canonicalJson(value: unknown): string {
  assertPlainJson(value, '$', new Set());
  const text = canonicalize(value);
  // Unreachable after the check above (only undefined and functions yield no text), kept for the type.
  if (text === undefined) unsupported('$', 'a value without a JSON text');
  return text;
}

function assertPlainJson(value: unknown, path: string, ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) unsupported(path, String(value));
      return;
    case 'object':
      break;
    default:
      unsupported(path, typeof value);
  }
  if (value === null) return;
  if (ancestors.has(value)) unsupported(path, 'a circular reference');
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      // A hole would silently become null.
      if (!(i in value)) unsupported(`${path}[${i}]`, 'an array hole');
      assertPlainJson(value[i], `${path}[${i}]`, ancestors);
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      unsupported(path, `an instance of ${(value as { constructor?: { name?: string } }).constructor?.name ?? 'a class'}`);
    }
    const record = value as Record<string, unknown>;
    // A toJSON method would make the text differ from the value that was checked.
    if (typeof record['toJSON'] === 'function') unsupported(`${path}.toJSON`, 'a function');
    for (const key of Object.keys(record)) assertPlainJson(record[key], `${path}.${key}`, ancestors);
  }
  ancestors.delete(value);
}

function unsupported(path: string, what: string): never {
  throw new ParaphError(
    'CANONICAL_JSON_UNSUPPORTED',
    `${path} is ${what}, which canonical JSON cannot encode: use null, a boolean, a finite number, a string, an array or a plain object.`,
  );
}
