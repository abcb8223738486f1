/**
 * The geometry (page-geometry.ts) of a page as pdf-lib reads it: its MediaBox, CropBox and /Rotate, inherited through
 * the page tree.
 */
import { PDFArray, PDFNumber, type PDFPage } from './pdf-lib.js';
import { pageGeometryFromBoxes, visibleBox, type PageGeometry, type UserRect } from './page-geometry.js';

/** Geometry of a pdf-lib page (boxes and /Rotate inherited through the page tree). `pageNumber` is 1-based. */
export function pageGeometry(page: PDFPage, pageNumber: number): PageGeometry {
  const node = page.node;
  let media: UserRect | undefined;
  let crop: UserRect | undefined;
  try {
    media = rectFromArray(node.MediaBox());
  } catch {
    media = undefined; // a missing or broken MediaBox falls back to Letter, as viewers do
  }
  try {
    crop = rectFromArray(node.CropBox());
  } catch {
    crop = undefined;
  }
  let rotate = 0;
  try {
    rotate = node.Rotate()?.asNumber() ?? 0;
  } catch {
    rotate = 0;
  }
  return pageGeometryFromBoxes(visibleBox(media, crop), rotate, pageNumber);
}

function rectFromArray(array: PDFArray | undefined): UserRect | undefined {
  if (!array || array.size() !== 4) return undefined;
  const n: number[] = [];
  for (let i = 0; i < 4; i++) {
    const value = array.lookup(i);
    if (!(value instanceof PDFNumber)) return undefined;
    n.push(value.asNumber());
  }
  const [x1, y1, x2, y2] = n as [number, number, number, number];
  // Rectangles may name any two opposite corners (ISO 32000-2 §7.9.5).
  return { x: Math.min(x1, x2), y: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}
