/**
 * pdf-lib reports damaged objects with `console.warn` ("Trying to parse invalid object", "Invalid object ref"), which
 * would land on the stderr of a host application that only asked paraph to read a PDF. paraph
 * judges damage itself (PdfParseError, verification reports), so these lines carry nothing a caller needs: while
 * pdf-lib runs inside {@link withPdfLibQuiet}, its warnings are dropped. Only warnings raised in that asynchronous
 * context are dropped; everyone else's `console.warn` passes through unchanged.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const quiet = new AsyncLocalStorage<true>();
let installed = false;

function installFilter(): void {
  if (installed) return;
  installed = true;
  const original = console.warn.bind(console);
  console.warn = (...args: unknown[]): void => {
    if (quiet.getStore() === true) return;
    original(...args);
  };
}

/** Runs `work` (pdf-lib parsing) with pdf-lib's console warnings dropped. */
export function withPdfLibQuiet<T>(work: () => Promise<T>): Promise<T> {
  installFilter();
  return quiet.run(true, work);
}
