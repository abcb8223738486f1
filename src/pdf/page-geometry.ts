/**
 * Page geometry and the one mapping between PDF user space and the reader coordinates (docs/design/locations.md#units):
 * points, measured inside the page's visible area (CropBox ∩ MediaBox, ISO 32000-2 §14.11.2), with the page's /Rotate
 * (§7.7.3.3, clockwise, inherited through the page tree) applied, origin at the top-left, y growing downwards.
 * Free of pdf-lib, so that the text engines' worker threads need not load it (page-boxes.ts reads a pdf-lib page).
 */
import { PdfParseError } from '../errors.js';

/** A page's /Rotate normalized to one of the four values readers honour. */
export type PageRotation = 0 | 90 | 180 | 270;

/** A rectangle as a reader sees it: from the visible page's top-left corner, y down, in points. */
export interface ReaderRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** A rectangle in PDF user space (y up): lower-left corner plus non-negative size, in points. */
export interface UserRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What a reader shows of one page, and where that sits in user space. */
export interface PageGeometry {
  /** 1-based page number. */
  pageNumber: number;
  /** Width as the reader sees it (CropBox height for 90/270). */
  width: number;
  /** Height as the reader sees it (CropBox width for 90/270). */
  height: number;
  /** Clockwise rotation applied when the page is shown. */
  rotation: PageRotation;
  /** The visible area in user space: CropBox (default MediaBox) intersected with the MediaBox. */
  cropBox: UserRect;
}

/** US Letter, what readers assume when a page has no usable MediaBox. */
const DEFAULT_MEDIA_BOX: UserRect = { x: 0, y: 0, width: 612, height: 792 };

/** Normalizes any /Rotate value: multiples of 90 modulo 360; anything else counts as 0, as pdf.js does. */
export function normalizeRotation(rotation: number): PageRotation {
  if (!Number.isFinite(rotation) || rotation % 90 !== 0) return 0;
  return (((rotation % 360) + 360) % 360) as PageRotation;
}

function intersect(a: UserRect, b: UserRect): UserRect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const top = Math.min(a.y + a.height, b.y + b.height);
  if (right <= x || top <= y) return undefined;
  return { x, y, width: right - x, height: top - y };
}

/**
 * The visible area of a page from its raw boxes: CropBox ∩ MediaBox; the MediaBox alone when the CropBox is absent,
 * malformed or does not overlap it; US Letter when the MediaBox is unusable too (pdf.js behaves the same way).
 */
export function visibleBox(mediaBox: UserRect | undefined, cropBox: UserRect | undefined): UserRect {
  const media = mediaBox && mediaBox.width > 0 && mediaBox.height > 0 ? mediaBox : DEFAULT_MEDIA_BOX;
  return (cropBox && intersect(cropBox, media)) ?? media;
}

/**
 * Geometry of a page from its visible box in user space and its /Rotate (any number; normalized here).
 *
 * @example
 * pageGeometryFromBoxes({ x: 0, y: 0, width: 595, height: 842 }, 90, 1) // → width 842, height 595
 */
export function pageGeometryFromBoxes(cropBox: UserRect, rotation: number, pageNumber: number): PageGeometry {
  const r = normalizeRotation(rotation);
  const swap = r === 90 || r === 270;
  return {
    pageNumber,
    width: swap ? cropBox.height : cropBox.width,
    height: swap ? cropBox.width : cropBox.height,
    rotation: r,
    cropBox: { ...cropBox },
  };
}

/** Maps a point in PDF user space to reader coordinates (left, top) of the page. */
export function userPointToReader(geo: PageGeometry, x: number, y: number): { left: number; top: number } {
  const c = geo.cropBox;
  switch (geo.rotation) {
    case 0:
      return { left: x - c.x, top: c.y + c.height - y };
    case 90:
      return { left: y - c.y, top: x - c.x };
    case 180:
      return { left: c.x + c.width - x, top: y - c.y };
    case 270:
      return { left: c.y + c.height - y, top: c.x + c.width - x };
  }
}

/** Maps a reader point (left, top) back to PDF user space; the inverse of {@link userPointToReader}. */
export function readerPointToUser(geo: PageGeometry, left: number, top: number): { x: number; y: number } {
  const c = geo.cropBox;
  switch (geo.rotation) {
    case 0:
      return { x: c.x + left, y: c.y + c.height - top };
    case 90:
      return { x: c.x + top, y: c.y + left };
    case 180:
      return { x: c.x + c.width - left, y: c.y + top };
    case 270:
      return { x: c.x + c.width - top, y: c.y + c.height - left };
  }
}

/** The user-space rectangle (e.g. a widget's /Rect) covering a reader rectangle. */
export function readerRectToUser(geo: PageGeometry, rect: ReaderRect): UserRect {
  const a = readerPointToUser(geo, rect.left, rect.top);
  const b = readerPointToUser(geo, rect.left + rect.width, rect.top + rect.height);
  return { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), width: Math.abs(b.x - a.x), height: Math.abs(b.y - a.y) };
}

/** The reader rectangle covering a user-space rectangle. */
export function userRectToReader(geo: PageGeometry, rect: UserRect): ReaderRect {
  const a = userPointToReader(geo, rect.x, rect.y);
  const b = userPointToReader(geo, rect.x + rect.width, rect.y + rect.height);
  return {
    left: Math.min(a.left, b.left),
    top: Math.min(a.top, b.top),
    width: Math.abs(b.left - a.left),
    height: Math.abs(b.top - a.top),
  };
}

/** Coordinates closer than this (points) are the same: pdf.js and pdf-lib both read the same decimal numbers. */
const SAME_POINT = 1e-6;
/**
 * PDFium (the other text engine, text-index/pdfium-extract.ts) keeps page boxes as 32-bit floats: two of their roundings
 * (2⁻²²) of a coordinate are the same coordinate too (438.23999 and 438.24 are one float).
 */
const FLOAT32_ROUNDING = 2 ** -22;

function samePoint(a: number, e: number): boolean {
  return Math.abs(a - e) <= Math.max(SAME_POINT, FLOAT32_ROUNDING * Math.max(Math.abs(a), Math.abs(e)));
}

/**
 * Checks that two readings of one page (e.g. pdf.js's, which placements were resolved against, and pdf-lib's, which
 * writes the widgets) agree on its visible box and rotation.
 *
 * @throws PdfParseError `PAGE_GEOMETRY_MISMATCH` naming the page and both readings.
 */
export function assertSamePageGeometry(actual: PageGeometry, expected: PageGeometry): void {
  const a = actual.cropBox;
  const e = expected.cropBox;
  const sameBox =
    samePoint(a.x, e.x) && samePoint(a.y, e.y) && samePoint(a.x + a.width, e.x + e.width) && samePoint(a.y + a.height, e.y + e.height);
  if (sameBox && actual.rotation === expected.rotation) return;
  const show = (g: PageGeometry): string =>
    `visible box [${g.cropBox.x} ${g.cropBox.y} ${g.cropBox.x + g.cropBox.width} ${g.cropBox.y + g.cropBox.height}], /Rotate ${g.rotation}`;
  throw new PdfParseError(
    'PAGE_GEOMETRY_MISMATCH',
    `The PDF is damaged: page ${expected.pageNumber} reads as ${show(expected)} to one reader and as ${show(actual)} ` +
      'to another, so a field could land in the wrong place. Repair it (e.g. save it again from a PDF editor) and upload it again.',
  );
}
