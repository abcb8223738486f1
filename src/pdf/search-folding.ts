/**
 * What the text index and a Search text are both reduced to before they are compared, so that a word is found however
 * the PDF (or the text a user pasted from a reader) spells it: Latin ligatures and the Hebrew and Arabic presentation
 * forms (the shaped glyph forms a PDF may carry: ﬁ → fi, ﻧ → ن, ﻻ → لا) become their base letters by Unicode's
 * compatibility mapping (NFKC), and characters that carry no text are dropped: control characters (some fonts map
 * glyphs to U+0000–U+001F) and the invisible bidirectional formatting marks (U+200E, U+200F, U+061C, U+202A–U+202E,
 * U+2066–U+2069) that readers such as poppler's pdftotext put around right-to-left text. Letters with accents are
 * compared by their canonical decomposition (NFD: é, whether one character or e followed by U+0301, is e + U+0301),
 * and the optional vowel and reading marks of Arabic (harakat: tanween, fatha, damma, kasra, shadda, sukun, dagger
 * alef) and Hebrew (niqqud, cantillation) are dropped, as users type those words without them and readers place them
 * differently around their letters.
 */

/** The long s (ſ, which PDFium gives for the ligature ﬅ), Latin ligatures, Hebrew and Arabic presentation forms. */
const PRESENTATION_FORMS = /[\u017F\uFB00-\uFB06\uFB1D-\uFDFF\uFE70-\uFEFE]/;
const PRESENTATION_FORMS_ALL = /[\u017F\uFB00-\uFB06\uFB1D-\uFDFF\uFE70-\uFEFE]+/g;
/** Control characters other than white space, and bidirectional formatting marks. */
const NO_TEXT = /[\u0000-\u0008\u000E-\u001F\u007F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const NO_TEXT_ALL = /[\u0000-\u0008\u000E-\u001F\u007F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Arabic harakat and dagger alef; Hebrew cantillation and niqqud (not the maqaf, sof pasuq or geresh). */
const OPTIONAL_MARKS_ALL = /[\u064B-\u0652\u0670\u0591-\u05BD\u05BF\u05C1\u05C2\u05C4\u05C5\u05C7]/g;

/**
 * `text` with presentation forms and ligatures as base letters, in canonical decomposition, without optional Arabic
 * and Hebrew marks and without characters that carry no text.
 */
export function foldForSearch(text: string): string {
  let folded = text;
  if (PRESENTATION_FORMS.test(folded)) folded = folded.replace(PRESENTATION_FORMS_ALL, (forms) => forms.normalize('NFKC'));
  if (NO_TEXT.test(folded)) folded = folded.replace(NO_TEXT_ALL, '');
  if (!ASCII.test(folded)) folded = folded.normalize('NFD').replace(OPTIONAL_MARKS_ALL, '');
  return folded;
}

const ASCII = /^[\u0000-\u007F]*$/;

/** Hyphens that may end a line: hyphen-minus, soft hyphen, hyphen. */
function isHyphen(code: number): boolean {
  return code === 0x2d || code === 0xad || code === 0x2010;
}

/**
 * Whether `text[i]` is left out when text is matched with white space ignored: a space, or a hyphen after a character
 * other than a space and before a space (a word hyphenated across lines, `sig- nature`).
 */
export function skippedWhenCompact(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code === 32) return true;
  return isHyphen(code) && i > 0 && text.charCodeAt(i + 1) === 32 && text.charCodeAt(i - 1) !== 32;
}
