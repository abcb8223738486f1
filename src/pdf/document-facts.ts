/**
 * What `resolvePlacements` reads of a document with pdf-lib (the geometry of every page, the PDF's own fillable
 * fields), as plain cloneable data: a caller that opens the PDF elsewhere (the service, in a worker thread) computes
 * it there and hands it over, so that the resolver never parses the PDF itself.
 */
import type { PDFDocument } from './pdf-lib.js';
import { readFormFields, type ExistingField } from './form-fields.js';
import { readPageGeometry } from './page-boxes.js';
import { type PageGeometry } from './page-geometry.js';

/** The facts of one document. */
export interface DocumentFacts {
  /** Geometry of every page, `pages[i]` being page `i + 1`. */
  readonly pages: readonly PageGeometry[];
  /** The PDF's own fillable fields (`readFormFields`); absent when its form cannot be read. */
  readonly fields?: readonly ExistingField[];
}

/**
 * The facts of `doc` (opened with `loadPdf`).
 *
 * @example
 * const facts = documentFacts(await loadPdf(bytes));
 * await resolvePlacements(bytes, metadata, { document: facts });
 */
export function documentFacts(doc: PDFDocument): DocumentFacts {
  const pages = doc.getPages().map((page, i) => readPageGeometry(page, i + 1));
  let fields: ExistingField[] | undefined;
  try {
    fields = readFormFields(doc);
  } catch {
    // A damaged form matters only to a signer who fills it: resolvePlacements refuses the document then.
    fields = undefined;
  }
  return fields === undefined ? { pages } : { pages, fields };
}
