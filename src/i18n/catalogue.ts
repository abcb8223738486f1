/**
 * The text catalogues (docs/design/api.md#languages): one per language of {@link LANGUAGES}, each with the texts of the
 * signing, show and receipt pages, of the e-mails and of the evidential receipt. `en-US` is the reference; a language
 * code that is not one of ours falls back by its primary subtag (`de-AT` → `de-DE`), then to `en-US`. Pure.
 */
import { LANGUAGES, type Language } from './languages.js';
import { deDE } from './de-DE.js';
import { enUS } from './en-US.js';
import { esES } from './es-ES.js';
import { frFR } from './fr-FR.js';
import { itIT } from './it-IT.js';
import { nlNL } from './nl-NL.js';
import { plPL } from './pl-PL.js';

type Texts<T> = {
  readonly [K in keyof T]: T[K] extends string ? string : T[K] extends (...args: infer A) => string ? (...args: A) => string : Texts<T[K]>;
};

/** Every text of the pages. */
export type PageTexts = Texts<typeof enUS.page>;
/** Every text of the e-mails. */
export type MailTexts = Texts<typeof enUS.mail>;
/**
 * Words of the evidence: the line of a seal's appearance ("Sealed <date>") and the file name of the receipt a mail
 * attaches (without `.pdf`).
 */
export type EvidenceTexts = Texts<typeof enUS.evidence>;
/** Every text of the evidential receipt (src/receipt/receipt-text.ts says what each is for). */
export type ReceiptTexts = Texts<typeof enUS.receipt>;

/** One language's texts. */
export interface Catalogue {
  readonly page: PageTexts;
  readonly mail: MailTexts;
  readonly evidence: EvidenceTexts;
  readonly receipt: ReceiptTexts;
}

/** The catalogue of each language. */
export const CATALOGUES: { readonly [L in Language]: Catalogue } = {
  'en-US': enUS,
  'nl-NL': nlNL,
  'de-DE': deDE,
  'fr-FR': frFR,
  'es-ES': esES,
  'it-IT': itIT,
  'pl-PL': plPL,
};

/** The language of ours that `code` (a BCP 47 tag such as `nl`, `de-AT`, `fr-FR`) names, if any. */
export function matchLanguage(code: string): Language | undefined {
  const wanted = code.trim().toLowerCase();
  if (wanted === '') return undefined;
  const exact = LANGUAGES.find((l) => l.toLowerCase() === wanted);
  if (exact !== undefined) return exact;
  const primary = wanted.split('-')[0];
  return LANGUAGES.find((l) => l.toLowerCase().split('-')[0] === primary);
}

/**
 * The language for a signer's `Language` or a browser's `Accept-Language` header (the first tag, by quality, that
 * names one of ours); `en-US` when none does.
 */
export function resolveLanguage(languageOrHeader: string | undefined): Language {
  if (languageOrHeader === undefined) return 'en-US';
  const tags = languageOrHeader
    .split(',')
    .map((part, order) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q.slice(2)) || 0, order };
    })
    .filter((t) => t.tag !== '' && t.tag !== '*' && t.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
  for (const { tag } of tags) {
    const found = matchLanguage(tag);
    if (found !== undefined) return found;
  }
  return 'en-US';
}

/** The catalogue for a language, a signer's `Language` or an `Accept-Language` header. */
export function catalogueFor(languageOrHeader: string | undefined): Catalogue {
  return CATALOGUES[resolveLanguage(languageOrHeader)];
}

/**
 * The file name of the receipt written in `language`: its title in that language, lowercase ASCII (`bewijsrapport.pdf`,
 * `beweisprotokoll.pdf`, `receipt.pdf`), so every mail client and file system keeps it; with `transactionId` after a
 * hyphen for a download (characters other than letters, digits, `_` and `-` become `_`).
 */
export function receiptFileName(language: Language, transactionId?: string): string {
  const base = CATALOGUES[language].evidence.receiptFile;
  return transactionId === undefined ? `${base}.pdf` : `${base}-${transactionId.replace(/[^A-Za-z0-9_-]/g, '_')}.pdf`;
}
