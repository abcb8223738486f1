import { describe, expect, it } from 'vitest';
import { RECEIPT_LANGUAGES, receiptTextFor, type ReceiptText } from '../../src/receipt/receipt-text.js';
import { AUDIT_EVENT_TYPES } from '../../src/receipt/audit-log.js';
import { LANGUAGES } from '../../src/i18n/languages.js';

/** Every leaf of a text tree as `path → value`, functions called with sample arguments. */
function leaves(node: unknown, path = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof node === 'string') out.set(path, node);
  else if (typeof node === 'function') out.set(path, String((node as (...a: number[]) => unknown)(12345, 3)));
  else if (Array.isArray(node)) node.forEach((v, i) => leaves(v, `${path}[${i}]`).forEach((s, k) => out.set(k, s)));
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) leaves(v, path ? `${path}.${k}` : k).forEach((s, key) => out.set(key, s));
  }
  return out;
}

describe('receiptTextFor', () => {
  it('speaks every language of the signing page', () => {
    expect([...RECEIPT_LANGUAGES].sort()).toEqual([...LANGUAGES].sort());
  });

  it('picks the language by primary subtag and falls back to en-US', () => {
    for (const tag of ['nl-NL', 'nl-nl', 'nl-BE', 'nl']) expect(receiptTextFor(tag).language).toBe('nl-NL');
    for (const tag of ['de-DE', 'de-AT', 'de']) expect(receiptTextFor(tag).language).toBe('de-DE');
    for (const tag of ['fr-FR', 'fr-BE', 'es-ES', 'es-MX', 'it-IT', 'it-CH', 'pl-PL', 'pl']) {
      expect(receiptTextFor(tag).language).toBe(`${tag.slice(0, 2)}-${{ fr: 'FR', es: 'ES', it: 'IT', pl: 'PL' }[tag.slice(0, 2)]}`);
    }
    for (const tag of ['en-US', 'en-GB', 'nld', 'deu', '', 'xx', 'sv-SE', 'constructor', 'to']) {
      expect(receiptTextFor(tag).language).toBe('en-US');
    }
  });

  it('has exactly the keys of en-US in every language, none empty, and its own title', () => {
    const english = leaves(receiptTextFor('en-US'));
    const titles = new Set<string>();
    for (const language of RECEIPT_LANGUAGES) {
      const text: ReceiptText = receiptTextFor(language);
      expect(text.language).toBe(language);
      const own = leaves(text);
      expect([...own.keys()].sort(), language).toEqual([...english.keys()].sort());
      for (const [key, value] of own) expect(value.trim(), `${language} ${key}`).not.toBe('');
      titles.add(text.title);
    }
    expect(titles.size).toBe(RECEIPT_LANGUAGES.length);
  });

  it('has a distinct label for every audit event type and formats numbers per language', () => {
    for (const language of RECEIPT_LANGUAGES) {
      const labels = AUDIT_EVENT_TYPES.map((type) => receiptTextFor(language).events[type]);
      expect(labels.every((l) => l.trim().length > 0), language).toBe(true);
      expect(new Set(labels).size, language).toBe(labels.length);
      expect(receiptTextFor(language).labels.bytes(1234567), language).toContain((1234567).toLocaleString(language));
    }
  });
});
