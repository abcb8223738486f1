/**
 * The tolerant reader of request bodies (docs/design/api.md#tolerant-reader): a `null` property
 * means "absent" (the Python client and the .NET v4 client send every unset property as `null`), except inside a
 * `Context`, which is stored and returned exactly as sent; and a nesting limit, checked before anything walks the
 * value recursively, so that a 4,200-deep `Context` is a 400 naming its path rather than a stack overflow. Pure.
 */

/** Deepest nesting of a whole request body (objects and arrays), counted from the body itself as level 1. */
export const MAX_BODY_DEPTH = 64;
/** Deepest nesting inside a `Context` value (the Context object itself is level 1). */
export const MAX_CONTEXT_DEPTH = 32;

/** Properties whose values are free JSON, returned as sent: nulls inside them stay. */
const VERBATIM_PROPERTIES: ReadonlySet<string> = new Set(['Context']);

/**
 * The first nesting problem of a parsed JSON body as a message naming its path, or undefined. The walk stops
 * descending at the limit, so its own recursion is bounded whatever the input.
 *
 * @example nestingProblem({ Context: deep }, 'Transaction') // 'Context: nested more than 32 levels deep; …'
 */
export function nestingProblem(value: unknown, root: string): string | undefined {
  return walkDepth(value, root, '', 1, undefined);
}

function walkDepth(value: unknown, root: string, path: string, depth: number, contextDepth: number | undefined): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (contextDepth !== undefined && contextDepth > MAX_CONTEXT_DEPTH) {
    return `${contextPathOf(path)}: nested more than ${MAX_CONTEXT_DEPTH} levels deep; at most ${MAX_CONTEXT_DEPTH} levels are accepted`;
  }
  if (depth > MAX_BODY_DEPTH) {
    return `${path === '' ? root : path}: nested more than ${MAX_BODY_DEPTH} levels deep; at most ${MAX_BODY_DEPTH} levels are accepted`;
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i): [string, unknown] => [`[${i}]`, item])
    : Object.entries(value).map(([key, item]): [string, unknown] => [path === '' ? key : `.${key}`, item]);
  for (const [segment, item] of entries) {
    const key = segment.startsWith('.') ? segment.slice(1) : segment;
    const entersContext = contextDepth === undefined && !Array.isArray(value) && VERBATIM_PROPERTIES.has(key);
    const problem = walkDepth(item, root, path + segment, depth + 1, entersContext ? 1 : contextDepth === undefined ? undefined : contextDepth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** `Signers[0].Context.a.b` → `Signers[0].Context`: the message names the Context, not the whole chain. */
function contextPathOf(path: string): string {
  const match = /^(.*?\bContext)(?=$|[.[])/.exec(path);
  return match?.[1] ?? path;
}

/**
 * A copy of a parsed JSON body without its `null` properties (at any depth, except inside `Context`). Array items
 * that are `null` stay, so that `Signers: [null]` is still refused by the schema with its path. Call
 * {@link nestingProblem} first: the walk recurses.
 *
 * @example dropNullProperties({ Id: null, Signers: [{ Email: 'a@example.com', Mobile: null }] })
 * // { Signers: [{ Email: 'a@example.com' }] }
 */
export function dropNullProperties<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => dropNullProperties(item)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null) continue;
    // defineProperty: a key such as `__proto__` stays an ordinary property.
    Object.defineProperty(copy, key, {
      value: VERBATIM_PROPERTIES.has(key) ? item : dropNullProperties(item),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy as T;
}
