/** Moved to `paraph/testing` (src/testing/generate-pdf.ts); this path re-exports it for the suite. */
export { type GenFont, type GenStyle, type GenText, type GenPage, type GenTruth, type GeneratedPdf, generatePdf, seededRandom, type RandomPagesOptions, randomPages } from '../../src/testing/generate-pdf.js';
