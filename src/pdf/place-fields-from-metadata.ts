/**
 * The placement facade (docs/design/locations.md): FileMetaData + PDF in, PDF with AcroForm fields out, in one
 * incremental update. {@link resolvePlacements} then {@link placeFields}; a caller that resolves and writes at
 * different moments (the service: resolve at upload, write at start) calls the two itself.
 */
import { fieldAlternateName, fieldSpecOf, type FileMetaData } from './file-metadata.js';
import { openPdfForUpdate, type PdfUpdateSession } from './incremental.js';
import { loadFieldFont, placeFieldsInSession, type PlaceFieldsOptions, type PlacedField } from './place-fields.js';
import type { FieldPlacement } from './resolve-locations.js';
import { resolvePlacements, type ResolvePlacementsOptions } from './resolve-placements.js';

/** Options of {@link placeFieldsFromMetadata}. */
export interface PlaceFieldsFromMetadataOptions extends ResolvePlacementsOptions {
  /** The visible label of a Signature or Seal field (see `placeFields`). */
  label?: PlaceFieldsOptions['label'];
  /**
   * The language of the document (a BCP 47 tag): a field's Label and Tooltip in that language become its tooltip (/TU,
   * see `fieldAlternateName`). Default `en`; a text given for one language only is used whatever the language.
   */
  language?: string;
}

/** The result of {@link placeFieldsFromMetadata}. */
export interface PlaceFieldsFromMetadataResult {
  /** The input PDF followed by one incremental update with the fields. */
  bytes: Uint8Array;
  /** Every field placed, with its widgets. */
  fields: PlacedField[];
  /** Every widget placed or found (see `ResolvedPlacements.placements`). */
  placements: FieldPlacement[];
  /** The validated metadata. */
  metadata: FileMetaData;
}

/**
 * Validates `metadata` (already-parsed JSON or a validated {@link FileMetaData}), resolves its Locations on `pdf` and
 * places the fields.
 *
 * @throws ValidationError `INVALID_FILE_METADATA`; PdfParseError for a PDF paraph cannot use (`PAGE_GEOMETRY_MISMATCH`
 *   when its pages read differently to the text extractor and the writer); PlacementError when a Location cannot be
 *   resolved (text not found, Occurence or PageNumber out of range, field outside the page).
 * @example
 * const metadata = parseFileMetaData(await readFile('metadata.json'));
 * const { bytes, placements } = await placeFieldsFromMetadata(pdf, metadata);
 */
export async function placeFieldsFromMetadata(
  pdf: Uint8Array,
  metadata: unknown,
  options: PlaceFieldsFromMetadataOptions = {},
): Promise<PlaceFieldsFromMetadataResult> {
  const { label, language, whileExtracting, ...resolveOptions } = options;
  // While worker threads extract the text this thread waits: it opens the document for the update and loads the
  // fields' font meanwhile, which it would otherwise do after the search (~0.1–0.3 s for a book, before its fields).
  let opening: Promise<PdfUpdateSession> | undefined;
  const resolved = await resolvePlacements(pdf, metadata, {
    ...resolveOptions,
    whileExtracting: () => {
      whileExtracting?.();
      opening = Promise.all([openPdfForUpdate(pdf), loadFieldFont()]).then(([session]) => session);
      opening.catch(() => undefined); // awaited below, unless the search fails first
    },
  });
  const placeOptions: PlaceFieldsOptions = { pages: resolved.pages };
  if (label) placeOptions.label = label;
  placeOptions.alternateName = (p) => {
    const spec = p.existing === true ? undefined : fieldSpecOf(resolved.metadata, p.formSet, p.fieldKey);
    return spec === undefined ? undefined : fieldAlternateName(spec, language !== undefined ? [language] : []);
  };
  const { bytes, fields } = await placeFieldsInSession(await (opening ?? openPdfForUpdate(pdf)), resolved.placements, placeOptions);
  return { bytes, fields, placements: resolved.placements, metadata: resolved.metadata };
}
