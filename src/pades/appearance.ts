/**
 * Appearance streams of signed signature widgets (ISO 32000-2 §12.5.5, §12.7.5.5,
 * docs/design/signatures.md#appearance): a signature shows the scribble image (or the typed name in the bundled Unicode
 * font), the signer's name and the date; a seal shows the organization's name and "Sealed" (in the caller's language) with the date. The form
 * XObject is drawn upright in the box the reader sees; its /Matrix undoes the page's /Rotate.
 */
import { PDFName, type PDFDocument, type PDFFont, type PDFImage, type PDFRef } from '../pdf/pdf-lib.js';
import { SigningError } from '../errors.js';
import { cachingFontkit, loadBundledFont, type BundledFontFace } from '../pdf/fonts.js';

/** What a signature widget shows. */
export type SignatureAppearance =
  | {
      readonly kind: 'signature';
      /** The signer's name, printed under the scribble. */
      readonly name: string;
      /** PNG bytes of the scribble; without it the typed name is drawn large instead. */
      readonly image?: Uint8Array;
      /** The date line; by default the signing time as `YYYY-MM-DD HH:MM UTC`. */
      readonly date?: string;
    }
  | {
      readonly kind: 'seal';
      readonly organizationName: string;
      /** The word before the date (`Sealed` by default): the caller gives it in the document's language. */
      readonly sealedLabel?: string;
      readonly date?: string;
    };

/** `2026-11-21 10:00 UTC`: the date as the appearance prints it (always UTC, so it does not depend on the host). */
function formatAppearanceDate(time: Date): string {
  return `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** One embedded subset per face and document, shared by every widget of the update. */
const documentFonts = new WeakMap<PDFDocument, Map<BundledFontFace, Promise<PDFFont>>>();

function documentFont(doc: PDFDocument, face: BundledFontFace): Promise<PDFFont> {
  let fonts = documentFonts.get(doc);
  if (!fonts) {
    fonts = new Map();
    documentFonts.set(doc, fonts);
    doc.registerFontkit(cachingFontkit);
  }
  let font = fonts.get(face);
  if (!font) {
    font = loadBundledFont(face).then((bytes) => doc.embedFont(bytes, { subset: true }));
    fonts.set(face, font);
  }
  return font;
}

/** Ends the sharing of fonts for `doc`'s current update: the next appearance embeds a fresh subset. */
export function forgetAppearanceFonts(doc: PDFDocument): void {
  documentFonts.delete(doc);
}

function num(n: number): string {
  const r = Math.round(n * 1000) / 1000;
  return Object.is(r, -0) ? '0' : String(r);
}

/** The font size at which `text` fits `width` (between 4 and `max`), and the text cut with "…" if even 4 is too wide. */
function fit(font: PDFFont, text: string, width: number, max: number): { text: string; size: number } {
  const at1 = font.widthOfTextAtSize(text, 1);
  const size = Math.max(4, Math.min(max, at1 > 0 ? width / at1 : max));
  if (at1 * size <= width) return { text, size };
  const chars = [...text];
  while (chars.length > 0 && font.widthOfTextAtSize(`${chars.join('')}…`, size) > width) chars.pop();
  return { text: chars.length > 0 ? `${chars.join('')}…` : '', size };
}

function line(font: PDFFont, name: string, text: string, size: number, x: number, y: number): string {
  if (text === '') return '';
  return `BT /${name} ${num(size)} Tf ${num(x)} ${num(y)} Td ${font.encodeText(text).toString()} Tj ET\n`;
}

/**
 * Builds the appearance form XObject of a signed widget whose box is `width` × `height` as the reader sees it on a
 * page with `rotation` (0/90/180/270), and returns its reference. Fonts and images are embedded with the
 * document's flush (the caller writes the update after `doc.flush()`).
 */
export async function createSignatureAppearance(
  doc: PDFDocument,
  appearance: SignatureAppearance,
  box: { width: number; height: number; rotation: number },
  signingTime: Date,
): Promise<PDFRef> {
  const regular = await documentFont(doc, 'regular');
  const bold = appearance.kind === 'seal' ? await documentFont(doc, 'bold') : regular;
  const { width: w, height: h } = box;
  const pad = Math.min(4, w / 10, h / 10);
  const innerW = Math.max(1, w - 2 * pad);
  const date = appearance.date ?? formatAppearanceDate(signingTime);
  const fonts: Record<string, PDFRef> = appearance.kind === 'seal' ? { F1: regular.ref, F2: bold.ref } : { F1: regular.ref };
  const xobjects: Record<string, PDFRef> = {};
  let ops = '';

  if (appearance.kind === 'seal') {
    ops += `0.2 0.3 0.55 RG 1 w ${num(pad / 2)} ${num(pad / 2)} ${num(w - pad)} ${num(h - pad)} re S\n`;
    const org = fit(bold, appearance.organizationName, innerW, Math.min(14, h / 3));
    const sealed = fit(regular, `${appearance.sealedLabel ?? 'Sealed'} ${date}`, innerW, Math.min(9, h / 5));
    const total = org.size + sealed.size * 1.4;
    const top = h / 2 + total / 2;
    ops += '0.1 0.15 0.35 rg\n';
    ops += line(bold, 'F2', org.text, org.size, pad + (innerW - bold.widthOfTextAtSize(org.text, org.size)) / 2, top - org.size * 0.8);
    ops += line(regular, 'F1', sealed.text, sealed.size, pad + (innerW - regular.widthOfTextAtSize(sealed.text, sealed.size)) / 2, top - org.size - sealed.size * 1.1);
  } else {
    const nameLine = fit(regular, appearance.name, innerW, Math.min(9, h / 6));
    const dateLine = fit(regular, date, innerW, Math.min(8, h / 7));
    const textHeight = nameLine.size * 1.25 + dateLine.size * 1.25;
    const artTop = h - pad;
    const artBottom = pad + textHeight + 2;
    const artH = Math.max(1, artTop - artBottom);
    if (appearance.image) {
      let image: PDFImage;
      try {
        image = await doc.embedPng(appearance.image);
      } catch (error) {
        throw new SigningError('APPEARANCE_IMAGE_INVALID', 'The scribble image is not a readable PNG: send PNG bytes (data:image/png).', { cause: error });
      }
      const scale = Math.min(innerW / image.width, artH / image.height);
      const iw = image.width * scale;
      const ih = image.height * scale;
      xobjects.Im1 = image.ref;
      ops += `q ${num(iw)} 0 0 ${num(ih)} ${num(pad + (innerW - iw) / 2)} ${num(artBottom + (artH - ih) / 2)} cm /Im1 Do Q\n`;
    } else {
      const typed = fit(regular, appearance.name, innerW, Math.min(28, artH * 0.8));
      ops += `0.05 0.1 0.45 rg\n${line(regular, 'F1', typed.text, typed.size, pad, artBottom + (artH - typed.size * 0.73) / 2)}`;
    }
    ops += `0.6 0.6 0.6 RG 0.5 w ${num(pad)} ${num(artBottom - 1)} m ${num(w - pad)} ${num(artBottom - 1)} l S\n`;
    ops += '0 g\n';
    ops += line(regular, 'F1', nameLine.text, nameLine.size, pad, pad + dateLine.size * 1.25 + nameLine.size * 0.3);
    ops += line(regular, 'F1', dateLine.text, dateLine.size, pad, pad + dateLine.size * 0.3);
  }

  const context = doc.context;
  const r = (((Math.round(box.rotation / 90) * 90) % 360) + 360) % 360;
  const cos = [1, 0, -1, 0][r / 90] as number;
  const sin = [0, 1, 0, -1][r / 90] as number;
  const stream = context.flateStream(ops, {
    Type: 'XObject',
    Subtype: 'Form',
    BBox: [0, 0, w, h],
    // Rotating the form by the page's /Rotate makes it read upright once the viewer turns the page.
    Matrix: [cos, sin, -sin, cos, 0, 0],
    Resources: { Font: fonts, XObject: xobjects, ProcSet: [PDFName.of('PDF'), PDFName.of('Text'), PDFName.of('ImageC')] },
  });
  return context.register(stream);
}
