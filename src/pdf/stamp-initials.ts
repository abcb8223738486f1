/**
 * The signer's initials on pages (SetParaph, docs/design/fields.md#initials): a locked, printable Stamp annotation (ISO
 * 32000-2 §12.5.6.12) with its own appearance at the bottom right of the page as the reader sees it: inside the visible
 * area (CropBox), upright on a page with /Rotate (the appearance's /Matrix undoes the rotation, as for widgets). Adds
 * to an open update session; the caller writes the update.
 */
import { PDFHexString, type PDFFont } from './pdf-lib.js';
import { num, rotationMatrix } from './field-appearance.js';
import { appendPageAnnotation, type PdfUpdateSession } from './incremental.js';
import { readPageGeometry } from './page-boxes.js';
import { readerRectToUser, type ReaderRect, type PageGeometry } from './page-geometry.js';

/** Initials to stamp. */
export interface InitialsStamp {
  /** PNG of the initials (the scribble), or undefined to write `text`. */
  readonly image?: Uint8Array;
  /** The initials as text (e.g. `J.J.`), used when there is no image. */
  readonly text: string;
  /** 1-based pages to stamp; numbers that are not a page are skipped. */
  readonly pages: readonly number[];
}

/** Size of the stamp and its distance from the page's bottom and right edges, in points, as the reader sees them. */
export const INITIALS_STAMP_BOX = { width: 60, height: 30, margin: 18 } as const;

/** Where the stamp goes on a page, in reader coordinates: the bottom right corner, inside the margin. */
function initialsStampRect(geo: PageGeometry): ReaderRect {
  const { width, height, margin } = INITIALS_STAMP_BOX;
  return { left: geo.width - margin - width, top: geo.height - margin - height, width, height };
}

/**
 * Adds a Stamp annotation with the initials to each page of `stamp.pages`. `font` must be embedded in the session's
 * document when `stamp.image` is absent.
 */
export async function stampInitials(session: PdfUpdateSession, stamp: InitialsStamp, font: PDFFont | undefined): Promise<void> {
  const doc = session.doc;
  const ctx = doc.context;
  const pages = doc.getPages();
  const image = stamp.image ? await doc.embedPng(stamp.image) : undefined;
  const { width: w, height: h } = INITIALS_STAMP_BOX;
  for (const n of stamp.pages) {
    const page = pages[n - 1];
    if (page === undefined) continue;
    const geo = readPageGeometry(page, n);
    const rect = readerRectToUser(geo, initialsStampRect(geo));
    let ops: string;
    const resources: Record<string, unknown> = {};
    if (image) {
      const scale = Math.min(w / image.width, h / image.height);
      const iw = image.width * scale;
      const ih = image.height * scale;
      ops = `q ${num(iw)} 0 0 ${num(ih)} ${num(w - iw)} ${num((h - ih) / 2)} cm /Im1 Do Q\n`;
      resources.XObject = { Im1: image.ref };
    } else {
      if (font === undefined) throw new TypeError('stampInitials: a font is needed to write initials as text');
      const size = Math.min(14, w / Math.max(1, font.widthOfTextAtSize(stamp.text, 1)));
      const tw = font.widthOfTextAtSize(stamp.text, size);
      ops = `BT 0.05 0.1 0.45 rg /F1 ${num(size)} Tf ${num(w - tw)} ${num((h - size * 0.73) / 2)} Td ${font.encodeText(stamp.text).toString()} Tj ET\n`;
      resources.Font = { F1: font.ref };
    }
    const stream = ctx.flateStream(ops, {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [0, 0, w, h],
      Matrix: rotationMatrix(geo.rotation),
      Resources: resources as never,
    });
    const annot = ctx.obj({
      Type: 'Annot',
      Subtype: 'Stamp',
      Name: 'Paraph',
      Rect: [rect.x, rect.y, rect.x + rect.width, rect.y + rect.height].map((v) => Number(num(v))),
      F: 4 | 128, // Print, Locked
      Contents: PDFHexString.fromText('Paraph'),
      AP: { N: ctx.register(stream) },
      P: page.ref,
    });
    appendPageAnnotation(session, page.ref, ctx.register(annot));
  }
  // pdf-lib writes an embedded image's stream only on embed() (save() would do it; the incremental writer does not).
  if (image) await image.embed();
}
