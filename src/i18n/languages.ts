/**
 * The languages paraph writes in: of transactions, signers and receivers, of the pages, e-mails and the evidential
 * receipt (docs/design/api.md#languages). The lowest floor, so the domain and the receipt can both name them.
 */

/** Languages of transactions, signers and receivers; `nl-NL` is the default. */
export const LANGUAGES = ['nl-NL', 'en-US', 'de-DE', 'fr-FR', 'es-ES', 'it-IT', 'pl-PL'] as const;
/** One of {@link LANGUAGES}. */
export type Language = (typeof LANGUAGES)[number];
