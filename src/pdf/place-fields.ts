/**
 * The placement facade (issue 2, decisions.md §4): FileMetaData + PDF in, PDF with AcroForm fields out. Validates
 * the metadata, extracts text only when a Location searches or a signer needs a default field (only the pages named
 * by PageNumber when every searching Location has one), resolves the Locations, adds the default signature fields of
 * signers the metadata gives none, and places the fields in one incremental update. For a fillable PDF (a signer's
 * FormSets naming the fileId, decisions.md §4) the PDF's own fields are returned as placements marked `existing`,
 * assigned to those signers, and nothing is placed for them.
 */
import { fillableSignerIds, validateFileMetaData, type FileMetaData } from '../domain/file-metadata.js';
import { PlacementError } from '../errors.js';
import { placeFields, type PlaceFieldsOptions, type PlacedField } from './fields.js';
import { readFormFields } from './form-fields.js';
import { loadPdf } from './load-pdf.js';
import { defaultSignerPlacements, resolveLocations, type FieldPlacement, type LocateInput } from './locate.js';
import { pageGeometry } from './page-geometry.js';
import { searchText, type IndexTextOptions, type TextQuery } from './text-index.js';
import { resolveIndexLimits } from './text-index-limits.js';

/** Options of {@link placeFieldsFromMetadata}. */
export interface PlaceFieldsFromMetadataOptions extends PlaceFieldsOptions {
  /** Worker threads for text extraction (see `indexText`); 0 extracts in the calling thread. */
  workers?: IndexTextOptions['workers'];
  /** Aborts a long text extraction. */
  signal?: AbortSignal;
  /** Limits of the text extraction and of the widgets per Location (default: the process's, text-index-limits.ts). */
  limits?: IndexTextOptions['limits'];
  /**
   * The transaction's signers in signing order. Each one the metadata gives no Signature field in this document
   * gets the default signature field of decisions.md §4 (first `{{SignerN}}` tag, N = position here, else the top
   * right of page 1), named `<signerId>.Signature`.
   */
  signerIds?: readonly string[];
  /**
   * The fileId of the document: a signer's FormSets entry naming it gives that signer the PDF's own fields
   * (fillable PDFs). Without it such an entry is refused.
   */
  fileId?: string;
}

/** The result of {@link placeFieldsFromMetadata}. */
export interface PlaceFieldsFromMetadataResult {
  /** The input PDF followed by one incremental update with the fields. */
  bytes: Uint8Array;
  /** Every field placed, with its widgets. */
  fields: PlacedField[];
  /**
   * Every widget, one per resolved Location match, in formset and field order; then the default signature fields;
   * then, for a fillable PDF, a placement marked `existing` per widget of the PDF's own fields.
   */
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
  const valid = validateFileMetaData(metadata, options.fileId !== undefined ? { fileId: options.fileId } : {});
  const fillers = options.fileId === undefined ? [] : fillableSignerIds(valid, options.fileId);
  const existing = fillers.length > 0 ? existingPlacements(await loadPdf(pdf), options.fileId as string, fillers) : [];
  const locations = Object.values(valid.FormSets ?? {}).flatMap((fields) => Object.values(fields).map((f) => f.Location));
  const searching = locations.filter((l) => l.Search !== undefined);
  const needDefault = (options.signerIds ?? []).filter(
    (id) => !hasSignatureField(valid, id) && !existing.some((p) => p.type === 'Signature' && p.signerIds.includes(id)),
  );
  const { maxWidgetsPerLocation } = resolveIndexLimits(options.limits);
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
    if (options.limits) indexOptions.limits = options.limits;
    // Every search runs where the text is extracted (the index's worker threads, issue 13 point 2); only the boxes
    // of the matches a Location can use come back: its Occurence, or one past the widget cap to tell it is passed.
    const queries = new Queries();
    for (const l of searching) queries.add(l.Search as string, l.PageNumber, l.Occurence ?? maxWidgetsPerLocation + 1);
    (options.signerIds ?? []).forEach((id, i) => {
      if (needDefault.includes(id)) queries.add(`{{Signer${i + 1}}}`, undefined, 1);
    });
    const search = await searchText(pdf, queries.list, indexOptions);
    source = { pages: search.pages, find: (needle, pageNumber) => search.found(queries.indexOf(needle, pageNumber)) };
    pageCount = search.pageCount;
  } else {
    const geometries = (await loadPdf(pdf)).getPages().map((page, i) => pageGeometry(page, i + 1));
    source = geometries;
    pageCount = geometries.length;
  }
  const placements = resolveLocations(source, valid, { maxWidgetsPerLocation });
  if (needDefault.length > 0) {
    const wanted = new Set(needDefault);
    const defaults = defaultSignerPlacements(source, options.signerIds ?? [], { skip: (id) => !wanted.has(id) });
    assertNoNameClash(defaults, [...placements, ...existing]);
    placements.push(...defaults);
  }
  const placeOptions: PlaceFieldsOptions = { pageCount };
  if (options.label) placeOptions.label = options.label;
  const { bytes, fields } = await placeFields(pdf, placements, placeOptions);
  return { bytes, fields, placements: [...placements, ...existing], metadata: valid };
}

/** The distinct searches of a document, each with the most matches any of its Locations needs. */
class Queries {
  readonly list: TextQuery[] = [];
  private readonly byKey = new Map<string, number>();

  add(needle: string, pageNumber: number | undefined, keep: number): void {
    const key = Queries.key(needle, pageNumber);
    const at = this.byKey.get(key);
    if (at === undefined) {
      this.byKey.set(key, this.list.length);
      this.list.push(pageNumber === undefined ? { needle, keep } : { needle, pageNumber, keep });
    } else {
      const query = this.list[at] as TextQuery;
      this.list[at] = { ...query, keep: Math.max(query.keep, keep) };
    }
  }

  indexOf(needle: string, pageNumber: number | undefined): number {
    const at = this.byKey.get(Queries.key(needle, pageNumber));
    if (at === undefined) throw new Error(`placeFieldsFromMetadata: ${JSON.stringify(needle)} was not searched`);
    return at;
  }

  private static key(needle: string, pageNumber: number | undefined): string {
    return `${pageNumber ?? 0}\u0000${needle}`;
  }
}

/**
 * A default signature field (`<signerId>.Signature`) must never become a widget of a metadata field of the same name
 * (placeFields would merge them into one field, signed by whoever signs first), nor the name of a field the PDF has.
 */
function assertNoNameClash(defaults: readonly FieldPlacement[], others: readonly FieldPlacement[]): void {
  for (const d of defaults) {
    const other = others.find((p) => p.field === d.field || p.field.startsWith(`${d.field}.`) || d.field.startsWith(`${p.field}.`));
    if (other === undefined) continue;
    const where = other.existing === true ? 'a field of the PDF' : `field ${other.fieldKey} of formset ${other.formSet}`;
    throw new PlacementError(
      'FIELD_NAME_TAKEN',
      `Signer ${d.signerIds.join(', ')} has no Signature field in this document, so it gets the default signature field ` +
        `"${d.field}"; but ${where} already has that name. Give the signer a Signature field in FileMetaData, or rename the formset.`,
    );
  }
}

/** The PDF's own fields as placements of the fillable signers (one per widget). */
function existingPlacements(doc: Awaited<ReturnType<typeof loadPdf>>, fileId: string, signerIds: readonly string[]): FieldPlacement[] {
  return readFormFields(doc).flatMap((field) =>
    field.widgets.map((w): FieldPlacement => {
      const placement: FieldPlacement = {
        field: field.name,
        formSet: fileId,
        fieldKey: field.name,
        type: field.type,
        signerIds: [...signerIds],
        pageNumber: w.pageNumber,
        left: w.left,
        top: w.top,
        width: w.width,
        height: w.height,
        existing: true,
      };
      if (field.required) placement.required = true;
      if (field.type === 'Check' || field.type === 'Radio') {
        placement.value = w.onState ?? 'Yes';
        if (field.value !== undefined && field.value === w.onState) placement.checked = true;
      } else if (field.value !== undefined) {
        placement.value = field.value;
      }
      return placement;
    }),
  );
}

/** True when one of the signer's formsets holds a Signature field. */
function hasSignatureField(metadata: FileMetaData, signerId: string): boolean {
  const formSets = metadata.Signers?.[signerId]?.FormSets ?? [];
  return formSets.some((key) => Object.values(metadata.FormSets?.[key] ?? {}).some((f) => f.Type === 'Signature'));
}
