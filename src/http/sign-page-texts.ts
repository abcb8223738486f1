/**
 * The texts of the signing, show and receipt pages: the `page` part of the signer's language catalogue
 * (src/i18n; docs/design/api.md#languages: the signer's `Language`, else the transaction's; unknown languages fall back
 * to `en-US`). The page's script receives the table as a data attribute, so no text lives in the browser code.
 */
import { catalogueFor, type PageTexts } from '../i18n/catalogue.js';

/** Every text of the pages. */
export type SignPageTexts = PageTexts;

/** The page texts for a language code or an `Accept-Language` header. */
export function signPageTexts(language: string | undefined): SignPageTexts {
  return catalogueFor(language).page;
}
