/**
 * The text catalogues: every language of the API (docs/design/api.md#languages) has every key of the en-US reference,
 * no key besides, no empty text, and in every text exactly the placeholders of the en-US text (none dropped, none
 * invented); every placeholder of a page text is one the page scripts or renderers fill. Language resolution: exact
 * codes, primary subtags, Accept-Language headers by quality, en-US otherwise.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/i18n/languages.js';
import { CATALOGUES, catalogueFor, matchLanguage, resolveLanguage } from '../../src/i18n/catalogue.js';
import { renderMailText } from '../../src/events/mail-templates.js';

type Tree = { readonly [key: string]: string | Tree };

/** Every text of a catalogue by its dotted key. */
function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out.set(prefix + key, value);
    else for (const [k, v] of flatten(value, `${prefix}${key}.`)) out.set(k, v);
  }
  return out;
}

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string).sort();
const reference = flatten(CATALOGUES['en-US'] as unknown as Tree);

describe('text catalogues', () => {
  it('cover every language the API accepts', () => {
    expect(Object.keys(CATALOGUES).sort()).toEqual([...LANGUAGES].sort());
  });

  for (const language of LANGUAGES) {
    it(`${language}: every key, no other key, no empty text, the same placeholders as en-US`, () => {
      const texts = flatten(CATALOGUES[language] as unknown as Tree);
      expect([...texts.keys()].sort()).toEqual([...reference.keys()].sort());
      for (const [key, text] of texts) {
        expect(text.trim(), key).not.toBe('');
        expect(placeholders(text), `${language} ${key}: ${text}`).toEqual(placeholders(reference.get(key) as string));
      }
      expect(texts.get('page.lang')).toBe(language);
      if (language !== 'en-US') {
        // A few words are the same in two languages (Code, Documents, Status, Info); a copied block of English, whose
        // texts are phrases, is not.
        const same = [...texts].filter(([key, text]) => text === reference.get(key) && /\s/.test(text.trim()) && !/^(page\.lang|page\.documents|page\.greeting|mail\.(code|documents))$/.test(key));
        expect(same.length, same.map(([k]) => k).join(', ')).toBeLessThan(6);
      }
    });
  }

  it('every placeholder is filled by the code that renders the text', () => {
    const sources = ['src/http/sign-page/sign-page.js', 'src/http/show-page-html.ts', 'src/events/mail-templates.ts'].map((f) => readFileSync(f, 'utf8')).join('\n');
    const used = new Set([...reference].flatMap(([, text]) => placeholders(text)));
    for (const name of used) {
      // A value handed to fmt/fill as `{ name: … }` (or `{ name }`), or replaced directly as '{name}'.
      expect(new RegExp(`[{,]\\s*${name}\\b\\s*[:,}]|'\\{${name}\\}'`).test(sources), name).toBe(true);
    }
  });

  it('mails: each language renders its own text for every kind, placeholders filled', () => {
    const kinds = ['invitation', 'reminder', 'confirmation', 'documents', 'receipt', 'cancellation', 'notification', 'verification-code'] as const;
    for (const language of LANGUAGES) {
      for (const kind of kinds) {
        const mail = renderMailText({ kind, language, reference: 'REF-7', documents: ['a.pdf'], signUrl: 'https://x.test/sign/t', code: '123456' });
        expect(mail.subject + mail.text, `${language} ${kind}`).not.toMatch(/\{\w+\}/);
        expect(mail.text).toContain(CATALOGUES[language].mail.intro[kind]);
        if (kind !== 'verification-code') expect(mail.subject).toContain('REF-7');
      }
    }
  });

  it('resolves languages: exact, by primary subtag, by Accept-Language quality, else en-US', () => {
    expect(resolveLanguage('nl-NL')).toBe('nl-NL');
    expect(resolveLanguage('de-AT')).toBe('de-DE');
    expect(resolveLanguage('fr-CH,fr;q=0.9,en;q=0.8')).toBe('fr-FR');
    expect(resolveLanguage('ja-JP, pl;q=0.3, it;q=0.6')).toBe('it-IT');
    expect(resolveLanguage('ja, zh;q=0.5, *;q=0.1')).toBe('en-US');
    expect(resolveLanguage('es;q=0, en;q=0.2')).toBe('en-US');
    expect(resolveLanguage(undefined)).toBe('en-US');
    expect(catalogueFor('PL-pl').page.lang).toBe('pl-PL');
    fc.assert(
      fc.property(fc.constantFrom(...LANGUAGES), fc.boolean(), fc.string({ maxLength: 20 }), (language, upper, noise) => {
        expect(matchLanguage(upper ? language.toUpperCase() : language.toLowerCase())).toBe(language);
        expect(LANGUAGES).toContain(resolveLanguage(noise));
      }),
    );
  });
});
