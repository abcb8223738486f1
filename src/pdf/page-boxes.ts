/**
 * The geometry (page-geometry.ts) of a page as pdf-lib reads it: its MediaBox, CropBox and /Rotate, inherited through
 * the page tree.
 */
import { PDFArray, PDFDict, PDFName, PDFNumber, type PDFObject, type PDFPage } from './pdf-lib.js';
import { pageGeometryFromBoxes, visibleBox, type PageGeometry, type UserRect } from './page-geometry.js';

/** How many /Parent links are followed looking for an inherited attribute (PDFium follows 1024). */
const MAX_PARENT_LINKS = 1024;

/** Reads the geometry of a pdf-lib page (boxes and /Rotate inherited through the page tree). `pageNumber` is 1-based. */
export function readPageGeometry(page: PDFPage, pageNumber: number): PageGeometry {
  const media = rectFromArray(inherited(page.node, 'MediaBox')); // a missing or broken MediaBox falls back to Letter
  const crop = rectFromArray(inherited(page.node, 'CropBox'));
  const rotate = inherited(page.node, 'Rotate');
  return pageGeometryFromBoxes(visibleBox(media, crop), rotate instanceof PDFNumber ? rotate.asNumber() : 0, pageNumber);
}

/**
 * An inheritable page attribute: the page's own, else the nearest /Parent's. Any dictionary counts as a parent, as in
 * PDFium and pdf.js: a damaged file's page may name its catalog as /Parent (pdf-lib's own lookup throws there and its
 * caller would fall back to Letter while readers show the page's own box). A /Parent cycle ends the walk.
 */
function inherited(node: PDFDict, key: string): PDFObject | undefined {
  const name = PDFName.of(key);
  const parent = PDFName.of('Parent');
  const seen = new Set<PDFDict>();
  let dict: PDFDict | undefined = node;
  for (let links = 0; dict && !seen.has(dict) && links <= MAX_PARENT_LINKS; links++) {
    seen.add(dict);
    const value = lookup(dict, name);
    if (value !== undefined) return value;
    const next = lookup(dict, parent);
    dict = next instanceof PDFDict ? next : undefined;
  }
  return undefined;
}

function lookup(dict: PDFDict, name: PDFName): PDFObject | undefined {
  try {
    return dict.lookup(name);
  } catch {
    return undefined; // a reference to a missing or unparsable object
  }
}

function rectFromArray(value: PDFObject | undefined): UserRect | undefined {
  if (!(value instanceof PDFArray) || value.size() !== 4) return undefined;
  const n: number[] = [];
  for (let i = 0; i < 4; i++) {
    const item = value.lookup(i);
    if (!(item instanceof PDFNumber)) return undefined;
    n.push(item.asNumber());
  }
  const [x1, y1, x2, y2] = n as [number, number, number, number];
  // Rectangles may name any two opposite corners (ISO 32000-2 §7.9.5).
  return { x: Math.min(x1, x2), y: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}
