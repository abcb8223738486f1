/**
 * The text engine an extraction uses when it names none. Kept apart from text-index.ts so that a process that only
 * chooses the engine (the serving process hands it to its PDF jobs) loads neither pdf.js nor PDFium.
 */

/** The text engines of `IndexTextOptions.engine`. */
export const TEXT_ENGINES = ['pdfjs', 'pdfium'] as const;
export type TextEngine = (typeof TEXT_ENGINES)[number];

let defaultEngine: TextEngine = 'pdfium';

/** The engine of every extraction that names none (the service's `PARAPH_TEXT_ENGINE`; initially PDFium). */
export function setDefaultTextEngine(engine: TextEngine): void {
  if (!TEXT_ENGINES.includes(engine)) throw new RangeError(`setDefaultTextEngine: engine must be one of ${TEXT_ENGINES.join(', ')}, got ${String(engine)}`);
  defaultEngine = engine;
}

/** The engine of an extraction that names none (see {@link setDefaultTextEngine}). */
export function defaultTextEngine(): TextEngine {
  return defaultEngine;
}
