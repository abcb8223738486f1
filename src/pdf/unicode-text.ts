/**
 * JSON may spell an unpaired UTF-16 surrogate (`"\ud800"`), which is no Unicode text: it cannot be written as UTF-8,
 * into a certificate's subject or into a PDF string. Request bodies are checked for them before anything uses a
 * value, so such a name is a 400 naming the property instead of a failure deep in signing.
 */

/**
 * The first string (or property name) of a parsed JSON value holding an unpaired surrogate, as a message naming
 * its path; undefined when every string is well formed. Walks the whole value: call it after the nesting limit.
 *
 * @example unpairedSurrogateProblem({ Signers: [{ ScribbleName: 'A\ud800' }] }, 'body')
 *   // 'Signers[0].ScribbleName: contains an unpaired UTF-16 surrogate (\\ud800); send valid Unicode text'
 */
export function unpairedSurrogateProblem(value: unknown, root: string): string | undefined {
  return walk(value, '', root);
}

function walk(value: unknown, path: string, root: string): string | undefined {
  if (typeof value === 'string') return describe(value, path === '' ? root : path);
  if (typeof value !== 'object' || value === null) return undefined;
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i): [string, unknown] => [`${path}[${i}]`, item])
    : Object.entries(value).map(([key, item]): [string, unknown] => [path === '' ? key : `${path}.${key}`, item]);
  for (const [itemPath, item] of entries) {
    const problem = (Array.isArray(value) ? undefined : describe(itemPath.slice(itemPath.lastIndexOf('.') + 1), `${itemPath} (the property name)`)) ?? walk(item, itemPath, root);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** A high surrogate not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function describe(text: string, where: string): string | undefined {
  const lone = LONE_SURROGATE.exec(text)?.[0];
  if (lone === undefined) return undefined;
  const code = `\\u${lone.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return `${where}: contains an unpaired UTF-16 surrogate (${code}); send valid Unicode text`;
}
