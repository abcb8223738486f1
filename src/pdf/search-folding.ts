/**
 * What the text index and a Search text are both reduced to before they are compared, so that a word is found however
 * the PDF (or the text a user pasted from a reader) spells it: Latin ligatures and the Hebrew and Arabic presentation
 * forms (the shaped glyph forms a PDF may carry: ﬁ → fi, ﻧ → ن, ﻻ → لا) become their base letters by Unicode's
 * compatibility mapping (NFKC), and characters that carry no text are dropped: control characters (some fonts map
 * glyphs to U+0000–U+001F) and the invisible bidirectional formatting marks (U+200E, U+200F, U+061C, U+202A–U+202E,
 * U+2066–U+2069) that readers such as poppler's pdftotext put around right-to-left text.
 */

/** The long s (ſ, which PDFium gives for the ligature ﬅ), Latin ligatures, Hebrew and Arabic presentation forms. */
const PRESENTATION_FORMS = /[\u017F\uFB00-\uFB06\uFB1D-\uFDFF\uFE70-\uFEFE]/;
const PRESENTATION_FORMS_ALL = /[\u017F\uFB00-\uFB06\uFB1D-\uFDFF\uFE70-\uFEFE]+/g;
/** Control characters other than white space, and bidirectional formatting marks. */
const NO_TEXT = /[\u0000-\u0008\u000E-\u001F\u007F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const NO_TEXT_ALL = /[\u0000-\u0008\u000E-\u001F\u007F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** `text` with presentation forms and ligatures as base letters and characters that carry no text removed. */
export function foldForSearch(text: string): string {
  let folded = text;
  if (PRESENTATION_FORMS.test(folded)) folded = folded.replace(PRESENTATION_FORMS_ALL, (forms) => forms.normalize('NFKC'));
  if (NO_TEXT.test(folded)) folded = folded.replace(NO_TEXT_ALL, '');
  return folded;
}

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
