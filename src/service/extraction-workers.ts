/**
 * How many worker threads a text extraction of the service may use: none for short documents (starting a worker
 * costs more than extracting a few pages), the text index's default for long ones, so that a 100-page search does not
 * block the event loop that serves every other request.
 */

/** Pages up to which text is extracted on the calling thread. */
export const IN_THREAD_PAGES = 8;

/** The `workers` option for `placeFieldsFromMetadata` on a document of `pages` pages (undefined: the default). */
export function extractionWorkers(pages: number): number | undefined {
  return pages <= IN_THREAD_PAGES ? 0 : undefined;
}
