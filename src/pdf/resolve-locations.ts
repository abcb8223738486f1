/**
 * The location resolver (docs/design/locations.md#units): turns FileMetaData Locations into widget rectangles in reader
 * coordinates (points, CropBox with /Rotate applied, origin top-left, y down). A Location positions a box like CSS
 * absolute positioning inside a containing block: the box of the matched `Search` text, else the page. Pure: it reads
 * only the page geometries and text matches it is handed, so resolving after indexing costs microseconds.
 */
import { exportValueOf, fieldValueText, radioGroupFieldName, type FieldType, type FileMetaData, type Location } from './file-metadata.js';
import { PlacementError } from '../errors.js';
import type { PageGeometry, ReaderRect } from './page-geometry.js';
import { findText, type TextIndex } from './text-index/text-index.js';
import { DEFAULT_INDEX_LIMITS } from './text-index/limits.js';

/** One widget to create: a field of a formset at a rectangle of a page, in reader coordinates. */
export interface FieldPlacement {
  /**
   * Fully qualified field name, `<formset>.<fieldKey>`; for a Radio button the name of its formset's group
   * (`<formset>`, or `<formset>.Radio group` in a formset with other fields too: {@link radioGroupFieldName}); for a
   * field the PDF already had (`existing`), its fully qualified name in the PDF.
   */
  field: string;
  formSet: string;
  /** The field's key; for a Radio, the button's key; for an existing field, its fully qualified name. */
  fieldKey: string;
  type: FieldType;
  /** Check and Radio: export value (on-state); SingleLine/Date/Number: pre-filled value. */
  value?: string;
  /** Check: pre-checked; Radio: the button pre-selected. */
  checked?: boolean;
  /**
   * A field of the PDF itself (fillable PDFs, docs/design/fields.md#fillable-pdfs): nothing is placed, the signers fill
   * it.
   */
  existing?: boolean;
  /** An existing text, check box or radio field the PDF marks required (/Ff bit 2). */
  required?: boolean;
  /** Signers whose FormSets include this field's formset, in the metadata's order. */
  signerIds: string[];
  /** 1-based page. */
  pageNumber: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

/** A text match: the page it is on and its bounding box in reader coordinates. */
export interface LocateMatch {
  pageNumber: number;
  box: ReaderRect;
}

/**
 * What the resolver needs from a document: the geometry of every page and, when a Location has `Search`, a way to
 * find text (the Search semantics of docs/design/locations.md#search, matches in page order). {@link toLocateSource}
 * adapts a TextIndex.
 */
export interface LocateSource {
  /** Geometry of every page, `pages[i]` being page `i + 1`. */
  readonly pages: readonly PageGeometry[];
  /**
   * Every match of `needle` in page order, only on `pageNumber` when given. Absent: Search cannot be resolved. A
   * source that keeps only the first matches returns those, with a `total` property counting all of them.
   */
  find?(needle: string, pageNumber?: number): readonly LocateMatch[] | LocateMatches;
}

/** The first matches of a search, and how many there are in all. */
export type LocateMatches = readonly LocateMatch[] & { readonly total: number };

/** Widgets one Location without Occurence may get (one per match), unless {@link ResolveLocationsOptions} says otherwise. */
const DEFAULT_MAX_WIDGETS_PER_LOCATION = DEFAULT_INDEX_LIMITS.maxWidgetsPerLocation;

/** Options of {@link resolveLocations}. */
export interface ResolveLocationsOptions {
  /**
   * Most widgets a Location without Occurence may get: a Search matching more often is refused
   * (`LOCATION_TOO_MANY_MATCHES`, naming the field and the count). Default {@link DEFAULT_MAX_WIDGETS_PER_LOCATION}.
   */
  maxWidgetsPerLocation?: number;
}

/** What the resolver accepts: a text index, a {@link LocateSource}, or bare page geometries (no Search then). */
export type LocateInput = TextIndex | LocateSource | readonly PageGeometry[];

/** Adapts a text index (or page geometries alone) to a {@link LocateSource}. */
function toLocateSource(input: LocateInput): LocateSource {
  if (isPageArray(input)) return { pages: input };
  if ('text' in input && typeof input.text === 'function') {
    const index = input;
    return { pages: index.pages, find: (needle, pageNumber) => findText(index, needle, { pageNumber }) };
  }
  return input as LocateSource;
}

function isPageArray(input: LocateInput): input is readonly PageGeometry[] {
  return Array.isArray(input);
}

/** Default field sizes when a Location does not imply one (docs/design/locations.md). */
export const DEFAULT_FIELD_SIZES: Readonly<Record<FieldType, { width: number; height: number }>> = {
  Signature: { width: 140, height: 70 },
  Seal: { width: 140, height: 70 },
  Check: { width: 12, height: 12 },
  Radio: { width: 12, height: 12 },
  SingleLine: { width: 150, height: 18 },
  Date: { width: 150, height: 18 },
  Number: { width: 150, height: 18 },
};

/**
 * How far (points) a field may poke out of the page and still be placed, trimmed to the page edge: the rounding of
 * matched text boxes and of offsets computed by callers. Anything further out is LOCATION_OUTSIDE_PAGE.
 */
export const PAGE_EDGE_TOLERANCE = 0.5;

/**
 * Resolves every field of `metadata.FormSets` to its widgets, in formset and field order. A Location without
 * `Occurence` yields one placement per match (one field, several widgets).
 *
 * @throws PlacementError `LOCATION_PAGE_OUT_OF_RANGE`, `LOCATION_TEXT_NOT_FOUND`, `LOCATION_OCCURRENCE_NOT_FOUND`,
 *   `LOCATION_EMPTY_BOX` or `LOCATION_OUTSIDE_PAGE`, naming the formset, the field and the text; the first one found.
 * @example
 * const index = await indexText(pdf);
 * const placements = resolveLocations(index, metadata);
 */
export function resolveLocations(input: LocateInput, metadata: FileMetaData, options: ResolveLocationsOptions = {}): FieldPlacement[] {
  const maxWidgets = options.maxWidgetsPerLocation ?? DEFAULT_MAX_WIDGETS_PER_LOCATION;
  const source = toLocateSource(input);
  const signersOf = signersByFormSet(metadata);
  const cache = new Map<string, readonly LocateMatch[] | LocateMatches>();
  const find = (needle: string, pageNumber: number | undefined): readonly LocateMatch[] | LocateMatches => {
    const key = `${pageNumber ?? 0}\u0000${needle}`;
    let matches = cache.get(key);
    if (!matches) {
      if (!source.find) {
        throw new TypeError('resolveLocations: a Location has Search, so pass a text index rather than page geometries');
      }
      matches = source.find(needle, pageNumber);
      cache.set(key, matches);
    }
    return matches;
  };
  const out: FieldPlacement[] = [];
  for (const [formSet, fields] of Object.entries(metadata.FormSets ?? {})) {
    const radioGroup = radioGroupFieldName(formSet, fields);
    for (const [fieldKey, spec] of Object.entries(fields)) {
      const path = `FormSets.${formSet}.${fieldKey}.Location`;
      const boxes = resolveLocation(source.pages, spec.Location, spec.Type, path, find, maxWidgets);
      for (const { pageNumber, rect } of boxes) {
        const placement: FieldPlacement = {
          field: spec.Type === 'Radio' && radioGroup !== undefined ? radioGroup : `${formSet}.${fieldKey}`,
          formSet,
          fieldKey,
          type: spec.Type,
          signerIds: [...(signersOf.get(formSet) ?? [])],
          pageNumber,
          ...rect,
        };
        if (spec.Type === 'Check' || spec.Type === 'Radio') {
          placement.value = exportValueOf(spec.Type, fieldKey, spec.Value);
          if (spec.Value === true) placement.checked = true;
        } else if (spec.Value !== undefined && typeof spec.Value !== 'boolean') {
          placement.value = fieldValueText(spec.Value);
        }
        out.push(placement);
      }
    }
  }
  return out;
}

/**
 * Resolves one Location of a field of `type` to its rectangles. `path` names the Location in error messages.
 * `find` must follow {@link LocateSource.find}. A Search without Occurence matching more than `maxWidgets` times is
 * refused.
 */
function resolveLocation(
  pages: readonly PageGeometry[],
  location: Location,
  type: FieldType,
  path: string,
  find?: (needle: string, pageNumber: number | undefined) => readonly LocateMatch[] | LocateMatches,
  maxWidgets = DEFAULT_MAX_WIDGETS_PER_LOCATION,
): { pageNumber: number; rect: ReaderRect }[] {
  const pageNumber = location.PageNumber;
  if (pageNumber !== undefined && pageNumber > pages.length) {
    throw new PlacementError(
      'LOCATION_PAGE_OUT_OF_RANGE',
      `${path}: PageNumber ${pageNumber} is beyond the document, which has ${pages.length} page${pages.length === 1 ? '' : 's'}`,
    );
  }
  let blocks: LocateMatch[];
  if (location.Search !== undefined) {
    if (!find) throw new TypeError('resolveLocation: a Location has Search but no find function was given');
    const where = pageNumber === undefined ? 'in the document' : `on page ${pageNumber}`;
    const matches = find(location.Search, pageNumber);
    const total = 'total' in matches ? matches.total : matches.length;
    if (total === 0) {
      throw new PlacementError(
        'LOCATION_TEXT_NOT_FOUND',
        `${path}: Search text ${JSON.stringify(location.Search)} was not found ${where}`,
      );
    }
    if (location.Occurence !== undefined) {
      const match = matches[location.Occurence - 1];
      if (!match) {
        throw new PlacementError(
          'LOCATION_OCCURRENCE_NOT_FOUND',
          `${path}: Occurence ${location.Occurence} of Search text ${JSON.stringify(location.Search)} does not exist; ` +
            `it occurs ${total} time${total === 1 ? '' : 's'} ${where}`,
        );
      }
      blocks = [match];
    } else {
      if (total > maxWidgets) {
        throw new PlacementError(
          'LOCATION_TOO_MANY_MATCHES',
          `${path}: Search text ${JSON.stringify(location.Search)} occurs ${total} times ${where}, and a Location without ` +
            `Occurence gets a widget at every match: at most ${maxWidgets} are allowed; give Occurence or a more specific Search text`,
        );
      }
      blocks = [...matches];
    }
  } else {
    if (pageNumber === undefined) {
      throw new PlacementError('LOCATION_PAGE_REQUIRED', `${path}: PageNumber is required when there is no Search`);
    }
    const geo = pages[pageNumber - 1] as PageGeometry;
    blocks = [{ pageNumber, box: { left: 0, top: 0, width: geo.width, height: geo.height } }];
  }
  const size = DEFAULT_FIELD_SIZES[type];
  return blocks.map((block) => {
    const geo = pages[block.pageNumber - 1];
    if (!geo) {
      throw new PlacementError('LOCATION_PAGE_OUT_OF_RANGE', `${path}: page ${block.pageNumber} is beyond the document`);
    }
    const h = axis(block.box.left, block.box.width, location.Left, location.Right, location.Width, size.width);
    const v = axis(block.box.top, block.box.height, location.Top, location.Bottom, location.Height, size.height);
    const rect: ReaderRect = { left: h.start, top: v.start, width: h.size, height: v.size };
    const what = location.Search === undefined ? 'the page' : `the box of ${JSON.stringify(location.Search)}`;
    if (rect.width <= 0) {
      throw new PlacementError(
        'LOCATION_EMPTY_BOX',
        `${path}: Left ${location.Left} and Right ${location.Right} leave no width inside ${what} (width ${round(block.box.width)}); make them smaller`,
      );
    }
    if (rect.height <= 0) {
      throw new PlacementError(
        'LOCATION_EMPTY_BOX',
        `${path}: Top ${location.Top} and Bottom ${location.Bottom} leave no height inside ${what} (height ${round(block.box.height)}); make them smaller`,
      );
    }
    const left = Math.max(rect.left, 0);
    const top = Math.max(rect.top, 0);
    const right = Math.min(rect.left + rect.width, geo.width);
    const bottom = Math.min(rect.top + rect.height, geo.height);
    if (
      rect.left < -PAGE_EDGE_TOLERANCE ||
      rect.top < -PAGE_EDGE_TOLERANCE ||
      rect.left + rect.width > geo.width + PAGE_EDGE_TOLERANCE ||
      rect.top + rect.height > geo.height + PAGE_EDGE_TOLERANCE ||
      right <= left ||
      bottom <= top
    ) {
      const anchor = location.Search === undefined ? '' : ` (placed from Search text ${JSON.stringify(location.Search)})`;
      throw new PlacementError(
        'LOCATION_OUTSIDE_PAGE',
        `${path}: the field at left ${round(rect.left)}, top ${round(rect.top)}, width ${round(rect.width)}, height ` +
          `${round(rect.height)}${anchor} does not fit on page ${block.pageNumber} (${round(geo.width)} × ${round(geo.height)} pt); change its offsets or size`,
      );
    }
    const inside = left === rect.left && top === rect.top && right === rect.left + rect.width && bottom === rect.top + rect.height;
    return { pageNumber: block.pageNumber, rect: inside ? rect : { left, top, width: right - left, height: bottom - top } };
  });
}

/**
 * One axis of CSS absolute positioning: `near`/`far` are the Left/Right (or Top/Bottom) insets from the containing
 * block's edges, positive inwards. Both given: they fix the size, unless `extent` is given too (over-constrained:
 * `far` is ignored, as in CSS). One given: the size is `extent` or the default. Neither: the near inset is 0.
 */
function axis(
  blockStart: number,
  blockSize: number,
  near: number | undefined,
  far: number | undefined,
  extent: number | undefined,
  fallback: number,
): { start: number; size: number } {
  if (near !== undefined && far !== undefined && extent === undefined) return { start: blockStart + near, size: blockSize - near - far };
  const size = extent ?? fallback;
  if (far !== undefined) return { start: blockStart + blockSize - far - size, size };
  return { start: blockStart + (near ?? 0), size };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function signersByFormSet(metadata: FileMetaData): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const [signerId, signer] of Object.entries(metadata.Signers ?? {})) {
    for (const formSet of signer.FormSets) {
      const list = map.get(formSet) ?? [];
      if (!list.includes(signerId)) list.push(signerId);
      map.set(formSet, list);
    }
  }
  return map;
}

/** Layout of {@link defaultSignerPlacements} when no `{{SignerN}}` tag is found. */
export interface DefaultPlacementOptions {
  /** Distance from the page's top and right edges. Default 36 pt (half an inch). */
  margin?: number;
  /** Vertical space between stacked signature fields. Default 10 pt. */
  gap?: number;
  /**
   * Signers that need no default field (e.g. the metadata gives them a Signature field). They keep their position
   * N for the `{{SignerN}}` tag numbering of the others but get no placement and take no stacking slot.
   */
  skip?: (signerId: string) => boolean;
}

/**
 * Where each signer's signature goes on a document without metadata for them (docs/design/locations.md): at the first
 * `{{SignerN}}` tag (N = the signer's 1-based position in `signerIds`; field top-left at the tag's top-left, moved
 * inwards when it would leave the page), else at the top right of page 1, signers stacked downwards (a new column
 * to the left when the page is full). Fields are named `<signerId>.Signature`, 140×70 pt.
 *
 * @example
 * defaultSignerPlacements(index, ['Signer1', 'Signer2']);
 */
export function defaultSignerPlacements(
  input: LocateInput,
  signerIds: readonly string[],
  options: DefaultPlacementOptions = {},
): FieldPlacement[] {
  const source = toLocateSource(input);
  const margin = options.margin ?? 36;
  const gap = options.gap ?? 10;
  const { width, height } = DEFAULT_FIELD_SIZES.Signature;
  const first = source.pages[0];
  if (!first) throw new PlacementError('PDF_NO_PAGES', 'The PDF has no pages: send a document with at least one page.');
  const perColumn = Math.max(1, Math.floor((first.height - 2 * margin + gap) / (height + gap)));
  let stacked = 0;
  const out: FieldPlacement[] = [];
  signerIds.forEach((signerId, i) => {
    if (options.skip?.(signerId)) return;
    const tag = source.find?.(`{{Signer${i + 1}}}`)[0];
    let pageNumber = 1;
    let rect: ReaderRect;
    const geo = tag ? source.pages[tag.pageNumber - 1] : undefined;
    if (tag && geo) {
      pageNumber = tag.pageNumber;
      rect = {
        left: clamp(tag.box.left, 0, geo.width - width),
        top: clamp(tag.box.top, 0, geo.height - height),
        width: Math.min(width, geo.width),
        height: Math.min(height, geo.height),
      };
    } else {
      const column = Math.floor(stacked / perColumn);
      const row = stacked % perColumn;
      stacked++;
      rect = {
        left: clamp(first.width - margin - width - column * (width + gap), 0, first.width - width),
        top: clamp(margin + row * (height + gap), 0, first.height - height),
        width: Math.min(width, first.width),
        height: Math.min(height, first.height),
      };
    }
    out.push({
      field: `${signerId}.Signature`,
      formSet: signerId,
      fieldKey: 'Signature',
      type: 'Signature',
      signerIds: [signerId],
      pageNumber,
      ...rect,
    });
  });
  return out;
}

function clamp(n: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, n));
}
