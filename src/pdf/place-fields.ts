/**
 * The placement facade (issue 2, decisions.md §4): FileMetaData + PDF in, PDF with AcroForm fields out. Validates
 * the metadata, extracts text only when a Location searches or a signer needs a default field (only the pages named
 * by PageNumber when every searching Location has one), resolves the Locations, adds the default signature fields of
 * signers the metadata gives none, and places the fields in one incremental update.
 */
import { validateFileMetaData, type FileMetaData } from '../domain/file-metadata.js';
import { placeFields, type PlaceFieldsOptions, type PlacedField } from './fields.js';
import { loadPdf } from './load-pdf.js';
import { defaultSignerPlacements, resolveLocations, type FieldPlacement, type LocateInput } from './locate.js';
import { pageGeometry } from './page-geometry.js';
import { indexText, type IndexTextOptions } from './text-index.js';

/** Options of {@link placeFieldsFromMetadata}. */
export interface PlaceFieldsFromMetadataOptions extends PlaceFieldsOptions {
  /** Worker threads for text extraction (see `indexText`); 0 extracts in the calling thread. */
  workers?: IndexTextOptions['workers'];
  /** Aborts a long text extraction. */
  signal?: AbortSignal;
  /**
   * The transaction's signers in signing order. Each one the metadata gives no Signature field in this document
   * gets the default signature field of decisions.md §4 (first `{{SignerN}}` tag, N = position here, else the top
   * right of page 1), named `<signerId>.Signature`.
   */
  signerIds?: readonly string[];
}

/** The result of {@link placeFieldsFromMetadata}. */
export interface PlaceFieldsFromMetadataResult {
  /** The input PDF followed by one incremental update with the fields. */
  bytes: Uint8Array;
  /** Every field placed, with its widgets. */
  fields: PlacedField[];
  /** Every widget, one per resolved Location match, in formset and field order. */
  placements: FieldPlacement[];
  /** The validated metadata. */
  metadata: FileMetaData;
}

/**
 * Validates `metadata` (already-parsed JSON or a validated {@link FileMetaData}), resolves its Locations on `pdf` and
 * places the fields.
 *
 * @throws ValidationError `INVALID_FILE_METADATA`; PdfParseError for a PDF paraph cannot use; PlacementError when a
 *   Location cannot be resolved (text not found, Occurence or PageNumber out of range, field outside the page).
 * @example
 * const metadata = parseFileMetaData(await readFile('metadata.json'));
 * const { bytes, placements } = await placeFieldsFromMetadata(pdf, metadata);
 */
export async function placeFieldsFromMetadata(
  pdf: Uint8Array,
  metadata: unknown,
  options: PlaceFieldsFromMetadataOptions = {},
): Promise<PlaceFieldsFromMetadataResult> {
  const valid = validateFileMetaData(metadata);
  const locations = Object.values(valid.FormSets ?? {}).flatMap((fields) => Object.values(fields).map((f) => f.Location));
  const searching = locations.filter((l) => l.Search !== undefined);
  const needDefault = (options.signerIds ?? []).filter((id) => !hasSignatureField(valid, id));
  let source: LocateInput;
  let pageCount: number;
  if (searching.length > 0 || needDefault.length > 0) {
    // Default placements look for {{SignerN}} anywhere, so they need every page.
    const pages = needDefault.length === 0 && searching.every((l) => l.PageNumber !== undefined)
      ? [...new Set(searching.map((l) => l.PageNumber as number))]
      : undefined;
    const indexOptions: IndexTextOptions = {};
    if (pages) indexOptions.pages = pages;
    if (options.workers !== undefined) indexOptions.workers = options.workers;
    if (options.signal) indexOptions.signal = options.signal;
    const index = await indexText(pdf, indexOptions);
    source = index;
    pageCount = index.pageCount;
  } else {
    const geometries = (await loadPdf(pdf)).getPages().map((page, i) => pageGeometry(page, i + 1));
    source = geometries;
    pageCount = geometries.length;
  }
  const placements = resolveLocations(source, valid);
  if (needDefault.length > 0) {
    const wanted = new Set(needDefault);
    placements.push(...defaultSignerPlacements(source, options.signerIds ?? [], { skip: (id) => !wanted.has(id) }));
  }
  const placeOptions: PlaceFieldsOptions = { pageCount };
  if (options.label) placeOptions.label = options.label;
  const { bytes, fields } = await placeFields(pdf, placements, placeOptions);
  return { bytes, fields, placements, metadata: valid };
}

/** True when one of the signer's formsets holds a Signature field. */
function hasSignatureField(metadata: FileMetaData, signerId: string): boolean {
  const formSets = metadata.Signers?.[signerId]?.FormSets ?? [];
  return formSets.some((key) => Object.values(metadata.FormSets?.[key] ?? {}).some((f) => f.Type === 'Signature'));
}
