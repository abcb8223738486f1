/**
 * Canonical JSON: one byte-exact text per JSON value, so that a hash over it means the same thing everywhere
 * (decisions.md §5, audit trail). Modelled on RFC 8785 (JCS): object keys sorted by UTF-16 code units, no
 * insignificant white space, numbers and strings written as ECMAScript's JSON.stringify writes them. Values JSON
 * cannot carry faithfully (undefined, NaN, Infinity, functions, bigint, dates, class instances, cycles) are refused
 * rather than silently dropped or coerced, because a hash over a silently changed value proves nothing.
 */
import { ParaphError } from '../errors.js';

/** A value canonical JSON can encode. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * Encodes `value` as canonical JSON.
 *
 * @throws ParaphError `CANONICAL_JSON_UNSUPPORTED` naming the path of the first value that is not plain JSON.
 * @example canonicalJson({ b: [1, 'x'], a: null }) === '{"a":null,"b":[1,"x"]}'
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, '$', parts, new Set());
  return parts.join('');
}

function write(value: unknown, path: string, out: string[], ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isFinite(value)) unsupported(path, String(value));
      out.push(JSON.stringify(value));
      return;
    case 'object':
      break;
    default:
      unsupported(path, typeof value);
  }
  if (value === null) {
    out.push('null');
    return;
  }
  if (ancestors.has(value)) unsupported(path, 'a circular reference');
  ancestors.add(value);
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      // Sparse arrays: a hole would silently become null in JSON.stringify.
      if (!(i in value)) unsupported(`${path}[${i}]`, 'an array hole');
      write(value[i], `${path}[${i}]`, out, ancestors);
    }
    out.push(']');
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      unsupported(path, `an instance of ${(value as { constructor?: { name?: string } }).constructor?.name ?? 'a class'}`);
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    out.push('{');
    keys.forEach((key, i) => {
      if (i > 0) out.push(',');
      out.push(JSON.stringify(key), ':');
      write(record[key], `${path}.${key}`, out, ancestors);
    });
    out.push('}');
  }
  ancestors.delete(value);
}

function unsupported(path: string, what: string): never {
  throw new ParaphError(
    'CANONICAL_JSON_UNSUPPORTED',
    `${path} is ${what}, which canonical JSON cannot encode: use null, a boolean, a finite number, a string, an array or a plain object.`,
  );
}
