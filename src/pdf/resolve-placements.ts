/**
 * Resolving a document's placements without writing anything (docs/design/locations.md): FileMetaData + PDF in, one
 * widget rectangle per field (page, reader rect) plus the page geometry they were resolved against out. The service
 * resolves at upload (refusing a Location that cannot be resolved there) and writes the fields at start with
 * `placeFields(pdf, placements, { pages })`, which checks that its own reading of every page agrees with `pages`.
 * Text is extracted only when a Location searches or a signer needs a default field (only the pages named by
 * PageNumber when every searching Location has one). For a fillable PDF (a signer's FormSets naming the fileId) the
 * PDF's own fields come back as placements marked `existing`, assigned to those signers.
 */
import { fillableSignerIds, validateFileMetaData, type FileMetaData } from './file-metadata.js';
import { PdfParseError, PlacementError } from '../errors.js';
import type { DocumentFacts } from './document-facts.js';
import { readFormFields, type ExistingField } from './form-fields.js';
import { loadPdf } from './load-pdf.js';
import { defaultSignerPlacements, resolveLocations, type FieldPlacement, type LocateInput } from './resolve-locations.js';
import { readPageGeometry } from './page-boxes.js';
import { type PageGeometry } from './page-geometry.js';
import { searchText, type IndexTextOptions, type TextQuery } from './text-index/text-index.js';
import { resolveIndexLimits } from './text-index/limits.js';

/** Options of {@link resolvePlacements}. */
export interface ResolvePlacementsOptions {
  /** Worker threads for text extraction (see `indexText`); 0 extracts in the calling thread. */
  workers?: IndexTextOptions['workers'];
  /** The text engine (see `indexText`; default PDFium). */
  engine?: IndexTextOptions['engine'];
  /** Called once the text is being extracted in worker threads (see `indexText`). */
  whileExtracting?: IndexTextOptions['whileExtracting'];
  /** Aborts a long text extraction. */
  signal?: AbortSignal;
  /** Limits of the text extraction and of the widgets per Location (default: the process's, text-index/limits.ts). */
  limits?: IndexTextOptions['limits'];
  /**
   * The transaction's signers in signing order. Each one the metadata gives no Signature field in this document
   * gets the default signature field (docs/design/locations.md#default-placement: first `{{SignerN}}` tag, N = position
   * here, else the top right of page 1), named `<signerId>.Signature`.
   */
  signerIds?: readonly string[];
  /**
   * The fileId of the document: a signer's FormSets entry naming it gives that signer the PDF's own fields
   * (fillable PDFs). Without it such an entry is refused.
   */
  fileId?: string;
  /**
   * What the resolver would otherwise read of `pdf` with pdf-lib (`documentFacts`), e.g. computed in the worker
   * thread that opened the upload: with it `pdf` is never parsed by pdf-lib here. Without `fields`, a fillable PDF is
   * refused (`PDF_UNREADABLE`).
   */
  document?: DocumentFacts;
}

/** What {@link resolvePlacements} found: plain data, safe to store (e.g. cached by the document's digest). */
export interface ResolvedPlacements {
  /** The validated metadata. */
  metadata: FileMetaData;
  /**
   * Every widget, one per resolved Location match, in formset and field order; then the default signature fields;
   * then, for a fillable PDF, a placement marked `existing` per widget of the PDF's own fields.
   */
  placements: FieldPlacement[];
  /** Geometry of every page (`pages[i]` is page `i + 1`) as the resolver read it; hand it to `placeFields`. */
  pages: PageGeometry[];
}

/**
 * Validates `metadata` (already-parsed JSON or a validated {@link FileMetaData}) and resolves its Locations, and the
 * default signature fields of `options.signerIds`, on `pdf`. Writes nothing.
 *
 * @throws ValidationError `INVALID_FILE_METADATA`; PdfParseError for a PDF paraph cannot use; PlacementError when a
 *   Location cannot be resolved (text not found, Occurence or PageNumber out of range, field outside the page) or a
 *   default signature field would take the name of another field (`FIELD_NAME_TAKEN`).
 * @example
 * const resolved = await resolvePlacements(pdf, parseFileMetaData(json), { signerIds: ['signer1'] });
 * // later, e.g. when the transaction starts:
 * const { bytes } = await placeFields(pdf, resolved.placements, { pages: resolved.pages });
 */
export async function resolvePlacements(
  pdf: Uint8Array,
  metadata: unknown,
  options: ResolvePlacementsOptions = {},
): Promise<ResolvedPlacements> {
  const valid = validateFileMetaData(metadata, options.fileId !== undefined ? { fileId: options.fileId } : {});
  const fillers = options.fileId === undefined ? [] : fillableSignerIds(valid, options.fileId);
  const existing = fillers.length > 0 ? existingPlacements(await existingFields(pdf, options.document), options.fileId as string, fillers) : [];
  const locations = Object.values(valid.FormSets ?? {}).flatMap((fields) => Object.values(fields).map((f) => f.Location));
  const searching = locations.filter((l) => l.Search !== undefined);
  const needDefault = (options.signerIds ?? []).filter(
    (id) => !hasSignatureField(valid, id) && !existing.some((p) => p.type === 'Signature' && p.signerIds.includes(id)),
  );
  const { maxWidgetsPerLocation, maxWidgetsPerDocument, maxSignaturesPerSigner } = resolveIndexLimits(options.limits);
  let source: LocateInput;
  let pages: PageGeometry[];
  if (searching.length > 0 || needDefault.length > 0) {
    // Default placements look for {{SignerN}} anywhere, so they need every page.
    const textPages = needDefault.length === 0 && searching.every((l) => l.PageNumber !== undefined)
      ? [...new Set(searching.map((l) => l.PageNumber as number))]
      : undefined;
    const indexOptions: IndexTextOptions = {};
    if (textPages) indexOptions.pages = textPages;
    if (options.workers !== undefined) indexOptions.workers = options.workers;
    if (options.engine) indexOptions.engine = options.engine;
    if (options.signal) indexOptions.signal = options.signal;
    if (options.limits) indexOptions.limits = options.limits;
    if (options.whileExtracting) indexOptions.whileExtracting = options.whileExtracting;
    // Every search runs where the text is extracted (the index's worker threads); only the boxes
    // of the matches a Location can use come back: its Occurence, or one past the widget cap to tell it is passed.
    const queries = new Queries();
    for (const l of searching) queries.add(l.Search as string, l.PageNumber, l.Occurence ?? maxWidgetsPerLocation + 1);
    (options.signerIds ?? []).forEach((id, i) => {
      if (needDefault.includes(id)) queries.add(`{{Signer${i + 1}}}`, undefined, 1);
    });
    const search = await searchText(pdf, queries.list, indexOptions);
    source = { pages: search.pages, find: (needle, pageNumber) => search.found(queries.indexOf(needle, pageNumber)) };
    pages = search.pages.map((geo) => ({ ...geo, cropBox: { ...geo.cropBox } }));
  } else {
    pages = options.document
      ? options.document.pages.map((geo) => ({ ...geo, cropBox: { ...geo.cropBox } }))
      : (await loadPdf(pdf)).getPages().map((page, i) => readPageGeometry(page, i + 1));
    source = pages;
  }
  const placements = resolveLocations(source, valid, { maxWidgetsPerLocation });
  if (needDefault.length > 0) {
    const wanted = new Set(needDefault);
    const defaults = defaultSignerPlacements(source, options.signerIds ?? [], { skip: (id) => !wanted.has(id) });
    assertNoNameClash(defaults, [...placements, ...existing]);
    placements.push(...defaults);
  }
  const all = [...placements, ...existing];
  assertFieldCounts(all, options.fileId, { maxWidgetsPerDocument, maxSignaturesPerSigner });
  return { metadata: valid, placements: all, pages };
}

/**
 * The bounds on the work a document's fields cause when placed and signed: widgets in all, and Signature fields per
 * signer (each one a signature over the whole document).
 *
 * @throws PlacementError `DOCUMENT_TOO_MANY_WIDGETS`, `SIGNER_TOO_MANY_SIGNATURES`, naming the count and the limit.
 */
function assertFieldCounts(
  placements: readonly Pick<FieldPlacement, 'field' | 'type' | 'signerIds'>[],
  fileId: string | undefined,
  limits: { readonly maxWidgetsPerDocument: number; readonly maxSignaturesPerSigner: number },
): void {
  const document = fileId === undefined ? 'The document' : `Document ${fileId}`;
  if (placements.length > limits.maxWidgetsPerDocument) {
    throw new PlacementError(
      'DOCUMENT_TOO_MANY_WIDGETS',
      `${document} would get ${placements.length} field widgets (every widget of every field, its own fields included); at most ` +
        `${limits.maxWidgetsPerDocument} are allowed: use fewer fields, or Locations with Occurence`,
    );
  }
  const signatures = new Map<string, Set<string>>();
  for (const p of placements) {
    if (p.type !== 'Signature') continue;
    for (const id of p.signerIds) {
      const names = signatures.get(id) ?? new Set<string>();
      names.add(p.field);
      signatures.set(id, names);
    }
  }
  for (const [signerId, names] of signatures) {
    if (names.size <= limits.maxSignaturesPerSigner) continue;
    throw new PlacementError(
      'SIGNER_TOO_MANY_SIGNATURES',
      `Signer ${signerId} has ${names.size} Signature fields in ${document.charAt(0).toLowerCase()}${document.slice(1)}; at most ` +
        `${limits.maxSignaturesPerSigner} are allowed (each is a signature of its own over the whole document): give the signer fewer Signature fields`,
    );
  }
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
    if (at === undefined) throw new Error(`resolvePlacements: ${JSON.stringify(needle)} was not searched`);
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

/** The PDF's own fields: from `document` when given, else read with pdf-lib. */
async function existingFields(pdf: Uint8Array, document: DocumentFacts | undefined): Promise<readonly ExistingField[]> {
  if (document === undefined) return readFormFields(await loadPdf(pdf));
  if (document.fields === undefined) {
    throw new PdfParseError('PDF_UNREADABLE', "The PDF's own form fields cannot be read: repair or re-save the document.");
  }
  return document.fields;
}

/** The PDF's own fields as placements of the fillable signers (one per widget). */
function existingPlacements(fields: readonly ExistingField[], fileId: string, signerIds: readonly string[]): FieldPlacement[] {
  return fields.flatMap((field) =>
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
