/**
 * Appearance streams of the fields paraph places (ISO 32000-2 §12.5.5, §12.7): what a reader shows before anyone
 * signs or fills in. Each function returns the content stream of a form XObject drawn upright in a box of the
 * field's reader size; fields.ts wraps it with a /Matrix that undoes the page's /Rotate. Pure: string in, string out.
 */

/** The font metrics an appearance needs; satisfied by a pdf-lib PDFFont. */
export interface AppearanceFont {
  /** Hex string operand (`<...>`) for `Tj`, in the font's encoding. */
  encodeText(text: string): { toString(): string };
  widthOfTextAtSize(text: string, size: number): number;
}

/** Colours of the unsigned signature box: a light fill so the place to sign is obvious, a darker outline. */
const SIG_FILL = '0.93 0.95 1 rg';
const SIG_STROKE = '0.35 0.45 0.7 RG';
const BOX_STROKE = '0.5 0.5 0.5 RG';
const BOX_FILL = '0.97 0.97 1 rg';
/** DejaVu Sans cap height per em: centres a line of text vertically. */
const CAP_HEIGHT = 0.73;
const MAX_LABEL_SIZE = 10;
const MIN_LABEL_SIZE = 4;
const PADDING = 4;

/** Formats a number for a content stream: at most 3 decimals, no exponent, no "-0". */
export function num(n: number): string {
  const r = Math.round(n * 1000) / 1000;
  return Object.is(r, -0) ? '0' : String(r);
}

/** The largest size ≤ `max` at which `text` fits `width` (never below MIN_LABEL_SIZE) and the text then shown. */
export function fitText(
  font: AppearanceFont,
  text: string,
  width: number,
  max: number,
): { text: string; size: number } {
  const at1 = font.widthOfTextAtSize(text, 1);
  const size = Math.max(MIN_LABEL_SIZE, Math.min(max, at1 > 0 ? width / at1 : max));
  if (at1 * size <= width) return { text, size };
  // Even the smallest size is too wide: cut characters (by code point) and end with an ellipsis.
  const chars = [...text];
  while (chars.length > 0 && font.widthOfTextAtSize(chars.join('') + '…', size) > width) chars.pop();
  return { text: chars.length > 0 ? chars.join('') + '…' : '', size };
}

function textLine(font: AppearanceFont, fontName: string, text: string, size: number, x: number, y: number): string {
  if (text === '') return '';
  return `BT /${fontName} ${num(size)} Tf ${num(x)} ${num(y)} Td ${font.encodeText(text).toString()} Tj ET\n`;
}

/**
 * An unsigned signature or seal field: light box, outline, and `label` (e.g. "Sign here: Zoë Łukasiewicz-Ōta")
 * fitted on one line above a signing line.
 */
export function signatureAppearance(
  font: AppearanceFont,
  fontName: string,
  width: number,
  height: number,
  label: string,
): string {
  const fitted = fitText(font, label, width - 2 * PADDING, Math.min(MAX_LABEL_SIZE, height / 3));
  const lineY = Math.max(PADDING, height / 3);
  return (
    `q ${SIG_FILL} ${SIG_STROKE} 1 w 0.5 0.5 ${num(width - 1)} ${num(height - 1)} re B\n` +
    `0.6 0.65 0.8 RG 0.5 w ${num(PADDING)} ${num(lineY)} m ${num(width - PADDING)} ${num(lineY)} l S\n` +
    `0.2 0.25 0.45 rg\n` +
    textLine(font, fontName, fitted.text, fitted.size, PADDING, Math.min(height - PADDING - fitted.size, lineY + 3)) +
    'Q\n'
  );
}

/**
 * A text field (SingleLine, Date, Number): outline, and the pre-filled `value` on one line in the variable-text
 * marked content that viewers replace when the value changes (§12.7.4.3).
 */
export function textFieldAppearance(
  font: AppearanceFont,
  fontName: string,
  width: number,
  height: number,
  fontSize: number,
  value: string | undefined,
): string {
  let text = '';
  if (value !== undefined && value !== '') {
    const fitted = fitText(font, value, width - 2 * 2, fontSize);
    text = textLine(font, fontName, fitted.text, fitted.size, 2, (height - CAP_HEIGHT * fitted.size) / 2);
  }
  return (
    `q ${BOX_FILL} ${BOX_STROKE} 1 w 0.5 0.5 ${num(width - 1)} ${num(height - 1)} re B Q\n` +
    `/Tx BMC q 1 1 ${num(width - 2)} ${num(height - 2)} re W n 0 g\n${text}Q EMC\n`
  );
}

/** The font size of a text field's /DA: fits the height, between 4 and 12 pt. */
export function textFieldFontSize(height: number): number {
  return Math.max(MIN_LABEL_SIZE, Math.min(12, Math.round((height - 4) * 0.75 * 2) / 2));
}

/** A check box, unchecked (`on` false) or checked (a vector check mark, no font needed). */
export function checkBoxAppearance(width: number, height: number, on: boolean): string {
  const box = `q ${BOX_FILL} ${BOX_STROKE} 1 w 0.5 0.5 ${num(width - 1)} ${num(height - 1)} re B Q\n`;
  if (!on) return box;
  const lw = Math.max(1, Math.min(width, height) / 8);
  return (
    box +
    `q 0 g 0 G ${num(lw)} w 1 J 1 j ${num(width * 0.22)} ${num(height * 0.52)} m ${num(width * 0.42)} ${num(height * 0.25)} l ` +
    `${num(width * 0.8)} ${num(height * 0.78)} l S Q\n`
  );
}

/** A radio button, off (`on` false) or selected (a filled dot), drawn as circles (4 Bézier arcs). */
export function radioAppearance(width: number, height: number, on: boolean): string {
  const cx = width / 2;
  const cy = height / 2;
  const outer = circle(cx, cy, Math.max(0.5, Math.min(width, height) / 2 - 0.5));
  const ring = `q ${BOX_FILL} ${BOX_STROKE} 1 w ${outer} B Q\n`;
  if (!on) return ring;
  return ring + `q 0 g ${circle(cx, cy, Math.max(0.5, Math.min(width, height) / 4))} f Q\n`;
}

/** A closed circle path (the usual 0.5523 Bézier approximation). */
function circle(cx: number, cy: number, r: number): string {
  const k = 0.5523 * r;
  return (
    `${num(cx + r)} ${num(cy)} m ` +
    `${num(cx + r)} ${num(cy + k)} ${num(cx + k)} ${num(cy + r)} ${num(cx)} ${num(cy + r)} c ` +
    `${num(cx - k)} ${num(cy + r)} ${num(cx - r)} ${num(cy + k)} ${num(cx - r)} ${num(cy)} c ` +
    `${num(cx - r)} ${num(cy - k)} ${num(cx - k)} ${num(cy - r)} ${num(cx)} ${num(cy - r)} c ` +
    `${num(cx + k)} ${num(cy - r)} ${num(cx + r)} ${num(cy - k)} ${num(cx + r)} ${num(cy)} c h`
  );
}

/**
 * The /Matrix of an appearance drawn upright in a `width`×`height` box so that it shows upright on a page with
 * `/Rotate rotation`: a counter-clockwise rotation by the same angle (ISO 32000-2 §12.5.5 maps the transformed
 * BBox onto the widget's /Rect, so no translation is needed).
 */
export function rotationMatrix(rotation: 0 | 90 | 180 | 270): [number, number, number, number, number, number] {
  switch (rotation) {
    case 0:
      return [1, 0, 0, 1, 0, 0];
    case 90:
      return [0, 1, -1, 0, 0, 0];
    case 180:
      return [-1, 0, 0, -1, 0, 0];
    case 270:
      return [0, -1, 1, 0, 0, 0];
  }
}
