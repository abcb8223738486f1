/**
 * What Search and the index are both reduced to before matching (search-folding.ts, docs/locations.md): Arabic and
 * Hebrew presentation forms match their base letters, bidirectional formatting marks are invisible to matching,
 * accented letters match however they are encoded, Arabic and Hebrew optional marks are ignored, and a word hyphenated
 * across lines is found with white space ignored.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldForSearch } from '../../src/pdf/search-folding.js';
import { glyphText } from '../../src/pdf/text-index/builder.js';
import { compactNeedle, normalizeSearchText, withoutSpaces } from '../../src/pdf/text-index/search.js';

/** Every Arabic presentation form (U+FB50–U+FDFF, U+FE70–U+FEFE) with the base letters NFKC gives it. */
const ARABIC_FORMS: ReadonlyArray<readonly [string, string]> = (() => {
  const forms: Array<readonly [string, string]> = [];
  for (const [from, to] of [
    [0xfb50, 0xfdff],
    [0xfe70, 0xfefe],
  ] as const) {
    for (let code = from; code <= to; code++) {
      const form = String.fromCodePoint(code);
      const base = form.normalize('NFKC');
      if (base !== form && !/\s/.test(base)) forms.push([form, base]);
    }
  }
  return forms;
})();

const BIDI_MARKS = ['\u200E', '\u200F', '\u061C', '\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069'];

describe('presentation forms and bidi marks', () => {
  it('knows hundreds of Arabic presentation forms', () => {
    expect(ARABIC_FORMS.length).toBeGreaterThan(500);
  });

  it('a string of Arabic presentation forms, bidi marks anywhere, matches its base-letter spelling, as search text and as page text', () => {
    const piece = fc.oneof(
      fc.constantFrom(...ARABIC_FORMS).map(([form, base]) => ({ shown: form, typed: base })),
      fc.constantFrom(...BIDI_MARKS).map((mark) => ({ shown: mark, typed: '' })),
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 24 }), (pieces) => {
        const shown = pieces.map((p) => p.shown).join('');
        const typed = pieces.map((p) => p.typed).join('');
        // What a user types (base letters) and what a reader copies (forms, marks) are the same search.
        expect(normalizeSearchText(shown)).toBe(normalizeSearchText(typed));
        // A glyph's text in the index is folded the same way.
        expect(pieces.map((p) => glyphText(p.shown)).join('')).toBe(foldForSearch(typed));
      }),
    );
  });

  it('leaves ordinary text alone but for its canonical decomposition', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const plain = text
          .normalize('NFD')
          .replace(/[\u0000-\u001F\u007F\u017F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\uFB00-\uFEFE\u064B-\u0652\u0670\u0591-\u05BD\u05BF\u05C1\u05C2\u05C4\u05C5\u05C7]/g, '');
        expect(foldForSearch(plain)).toBe(plain);
      }),
    );
  });

  it('expands Latin ligatures and the long s', () => {
    expect(normalizeSearchText('ﬁnd ﬀ ﬅ ſt')).toBe('find ff st st');
  });
});

describe('accents and optional marks', () => {
  const accented = fc.string({ unit: fc.constantFrom(...'aeiouncçéèêëàâäîïôöùûüñåøÅÉŌḗǖ '), minLength: 1, maxLength: 16 });

  it('a word matches whether its accented letters are one character each (NFC) or a letter and a combining mark (NFD)', () => {
    fc.assert(
      fc.property(accented, (word) => {
        expect(normalizeSearchText(word.normalize('NFC'))).toBe(normalizeSearchText(word.normalize('NFD')));
        // Drawn glyph by glyph — a base letter, then its accent as a glyph of its own — the page folds to the same text.
        expect([...word.normalize('NFD')].map((glyph) => glyphText(glyph)).join('')).toBe(foldForSearch(word.normalize('NFC')));
      }),
    );
  });

  it('Arabic with or without harakat, Hebrew with or without niqqud, are the same search', () => {
    expect(normalizeSearchText('السَّيِّدَة')).toBe(normalizeSearchText('السيدة'));
    expect(normalizeSearchText('عذراً')).toBe(normalizeSearchText('عذرا'));
    expect(normalizeSearchText('שָׁלוֹם')).toBe(normalizeSearchText('שלום'));
    // Hamza is a letter of its own, not an optional mark: أ and ا stay apart.
    expect(normalizeSearchText('أ')).not.toBe(normalizeSearchText('ا'));
  });

  it('keeps accents: an accented word is not its bare spelling', () => {
    expect(normalizeSearchText('café')).not.toBe(normalizeSearchText('cafe'));
  });
});

describe('hyphenated words with white space ignored', () => {
  const word = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzабвгдеשלום'), minLength: 1, maxLength: 12 });

  it('a word split by a hyphen and a line break is found whole; a hyphen between words (with spaces) stays', () => {
    fc.assert(
      fc.property(word, word, word, (before, first, second) => {
        for (const hyphen of ['-', '\u00AD', '\u2010']) {
          const page = withoutSpaces(`${before} ${first}${hyphen} ${second}`);
          expect(page.text).toContain(compactNeedle(`${first}${second}`));
          // The map points back at the page text's characters, hyphen excluded.
          expect([...page.map].every((i) => i >= 0)).toBe(true);
        }
        expect(withoutSpaces(`${first} - ${second}`).text).toBe(`${first}-${second}`);
        // The needle is reduced the same way, so a search typed with the break still matches.
        expect(compactNeedle(`${first}- ${second}`)).toBe(`${first}${second}`);
      }),
    );
  });
});
