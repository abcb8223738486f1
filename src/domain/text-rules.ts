/**
 * Which characters client text may hold. Control characters (C0, DEL, C1), the Unicode line and paragraph
 * separators and the bidirectional formatting characters (embeddings, overrides, isolates, marks) are refused in
 * every text property: they break e-mail headers, let a name or reference display as something else than what is
 * stored ("contract\u202Efdp.exe"), and must never reach a certificate subject. Multi-line text (messages, intro
 * texts, reasons, strings inside Context) may keep tab, line feed and carriage return.
 */

/** Signhost's text for such input, after the property's name. */
export const INVALID_CHARACTERS = 'Input contains one or more invalid characters.';

// eslint-disable-next-line no-control-regex
const FORBIDDEN_SINGLE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const FORBIDDEN_MULTI_LINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Whether a one-line text (a name, subject, reference, e-mail address) holds a refused character. */
export function hasForbiddenCharacters(text: string): boolean {
  return FORBIDDEN_SINGLE_LINE.test(text);
}

/** Whether a multi-line text (a message, intro text, reason) holds a refused character; tab, LF and CR are fine. */
export function hasForbiddenMultiLineCharacters(text: string): boolean {
  return FORBIDDEN_MULTI_LINE.test(text);
}

/** The text with every refused character removed: the last guard before a value goes into a certificate. */
export function withoutForbiddenCharacters(text: string): string {
  return text.replace(new RegExp(FORBIDDEN_SINGLE_LINE.source, 'g'), '');
}

/**
 * The path of the first string in a JSON value (keys included) holding a refused multi-line character, or undefined.
 * `Context.a[2]` style, below `path`.
 */
export function forbiddenCharacterPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return hasForbiddenMultiLineCharacters(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = forbiddenCharacterPath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (hasForbiddenCharacters(key)) return path;
      const found = forbiddenCharacterPath(item, `${path}.${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
