/**
 * Deterministic generator of test PDFs with text at known reader positions (coordinates,
 * docs/design/locations.md#units), for the text index and location tests: any page size, /Rotate 0/90/180/270, MediaBox
 * and CropBox with non-zero origins, text inside longer runs, split over runs, fonts and text objects, TJ kerning,
 * character spacing (letter-spaced), horizontal scaling, glyph-by-glyph placement, rotated text, and four kinds of
 * font: standard Type1 (WinAnsi), the bundled DejaVu Sans embedded as a CID TrueType font (Type0/Identity-H), and a
 * Type3 font.
 *
 * Content streams are written by hand so that every glyph's position is computed here, independently of pdf.js:
 * the returned `truth` holds each anchor's box as paraph defines it (advance along the text, 0.2 em below to 0.8 em
 * above the baseline — for the Type3 font its FontBBox through its FontMatrix, the baseline to 1 em above it —
 * axis-aligned in reader coordinates).
 */
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, PDFName, type PDFFont, type PDFRef, StandardFonts } from '../pdf/pdf-lib.js';
import { loadBundledFont } from '../pdf/fonts.js';
import {
  type PageGeometry,
  type PageRotation,
  type ReaderRect,
  pageGeometryFromBoxes,
  readerPointToUser,
  userPointToReader,
} from '../pdf/page-geometry.js';

/** Fonts the generator can write with. `Type3` only has `A–Z a–z 0–9 { } space`. */
export type GenFont = 'Helvetica' | 'Times-Roman' | 'Courier' | 'DejaVuSans' | 'Type3';

/**
 * How a text is written: `plain` one Tj; `kerned` a TJ with small kerning between every glyph; `spaced` with Tc of
 * 0.3 em (extracts letter-spaced); `scaled` with Tz 70 and Tc; `split-fonts` prefix, anchor halves and suffix in
 * alternating fonts inside one text object; `split-blocks` each piece in its own text object; `per-glyph` every glyph
 * with its own Tm.
 */
export type GenStyle = 'plain' | 'kerned' | 'spaced' | 'scaled' | 'split-fonts' | 'split-blocks' | 'per-glyph';

/** One piece of text: `prefix + anchor + suffix` drawn on one baseline; the truth is the anchor's box. */
export interface GenText {
  anchor: string;
  prefix?: string;
  suffix?: string;
  /** Reader position of the start of the baseline (of the prefix, when there is one). */
  left: number;
  baseline: number;
  size: number;
  font: GenFont;
  style: GenStyle;
  /** Extra counter-clockwise rotation of the text relative to upright-as-the-reader-sees-it. Default 0. */
  angle?: PageRotation;
}

/** One page: its visible size as the reader sees it, and how the boxes around it are laid out in user space. */
export interface GenPage {
  width: number;
  height: number;
  rotation: PageRotation;
  /** Lower-left corner of the CropBox in user space. Default (0, 0). */
  cropOrigin?: { x: number; y: number };
  /** How far the MediaBox extends beyond the CropBox on each side (user space). Default 0. */
  mediaMargin?: number;
  texts: GenText[];
}

/** Where an anchor was drawn. */
export interface GenTruth {
  pageNumber: number;
  anchor: string;
  /** Reader box per paraph's definition (advance × [baseline − 0.2 em, baseline + 0.8 em]; for the Type3 font [baseline, baseline + 1 em]). */
  box: ReaderRect;
  font: GenFont;
  style: GenStyle;
  /** True when the anchor reads left to right for the reader (angle 0). */
  upright: boolean;
  /** Font size of the anchor. */
  size: number;
}

/** Result of {@link generatePdf}. */
export interface GeneratedPdf {
  bytes: Uint8Array;
  truth: GenTruth[];
}

const TYPE3_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789{} ';

/** Type3 glyph names for its characters (standard names, so readers derive Unicode from them). */
function type3Name(ch: string): string {
  if (ch === '{') return 'braceleft';
  if (ch === '}') return 'braceright';
  if (ch === ' ') return 'space';
  if (/[0-9]/.test(ch)) return ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'][Number(ch)]!;
  return ch;
}

/** Type3 glyph width in its 1000-unit glyph space: varied, so interpolation would be wrong. */
function type3Width(ch: string): number {
  if (ch === ' ') return 300;
  return 400 + ((ch.charCodeAt(0) * 37) % 300);
}

interface FontHandle {
  key: string;
  /** The hex string to show `ch`. */
  encode(ch: string): string;
  /** Advance of `ch` in 1000-unit glyph space. */
  width(ch: string): number;
  /** The glyph box's bottom and top above the baseline, in em. */
  extent: readonly [number, number];
}

/** The box of most fonts' glyphs: 0.2 em below to 0.8 em above the baseline. */
const EM_EXTENT = [-0.2, 0.8] as const;
/** The Type3 font's FontBBox and FontMatrix, and its glyph box: its FontBBox through its FontMatrix, in em. */
const TYPE3_BBOX = [0, 0, 1000, 1000] as const;
const TYPE3_MATRIX = [0.001, 0, 0, 0.001, 0, 0] as const;
const TYPE3_EXTENT = [TYPE3_BBOX[1] * TYPE3_MATRIX[3], TYPE3_BBOX[3] * TYPE3_MATRIX[3]] as const;

function pdfFontHandle(key: string, font: PDFFont): FontHandle {
  return {
    key,
    encode: (ch) => font.encodeText(ch).toString(),
    width: (ch) => font.widthOfTextAtSize(ch, 1000),
    extent: EM_EXTENT,
  };
}

async function type3Font(doc: PDFDocument): Promise<PDFRef> {
  const codes = [...TYPE3_CHARS].map((ch) => ch.charCodeAt(0));
  const first = Math.min(...codes);
  const last = Math.max(...codes);
  const procs = doc.context.obj({});
  const differences: Array<number | PDFName> = [];
  const widths: number[] = [];
  for (let code = first; code <= last; code++) {
    const ch = String.fromCharCode(code);
    if (!TYPE3_CHARS.includes(ch)) {
      widths.push(0);
      continue;
    }
    const w = type3Width(ch);
    widths.push(w);
    differences.push(code, PDFName.of(type3Name(ch)));
    const body = ch === ' ' ? `${w} 0 d0` : `${w} 0 0 0 ${w} 700 d1 50 0 ${w - 100} 700 re f`;
    procs.set(PDFName.of(type3Name(ch)), doc.context.register(doc.context.stream(body)));
  }
  const font = doc.context.obj({
    Type: 'Font',
    Subtype: 'Type3',
    FontBBox: [...TYPE3_BBOX],
    FontMatrix: [...TYPE3_MATRIX],
    CharProcs: procs,
    Encoding: doc.context.obj({ Type: 'Encoding', Differences: differences }),
    FirstChar: first,
    LastChar: last,
    Widths: widths,
    Resources: doc.context.obj({}),
  });
  return doc.context.register(font);
}

function type3Handle(): FontHandle {
  return {
    key: 'F3',
    encode: (ch) => {
      if (!TYPE3_CHARS.includes(ch)) throw new Error(`The Type3 test font has no glyph for ${JSON.stringify(ch)}`);
      return `<${ch.charCodeAt(0).toString(16).padStart(2, '0')}>`;
    },
    width: type3Width,
    extent: TYPE3_EXTENT,
  };
}

type Mat = [number, number, number, number, number, number];

function num(n: number): string {
  const r = Math.round(n * 10000) / 10000;
  return Object.is(r, -0) ? '0' : String(r);
}

/**
 * Options of the seeded form of {@link generatePdf}: random pages as {@link randomPages} makes them. The same options
 * always give the same bytes and truth.
 */
export interface GeneratePdfOptions extends Partial<RandomPagesOptions> {
  /** Seed of the document (any 32-bit integer). */
  seed: number;
}

/**
 * Generates a PDF with anchor texts where `truth` says, in reader coordinates (docs/design/locations.md#units): either
 * exactly the pages described, or random pages from a seed (`{ seed, pages, anchorsPerPage, rotate, cropBox, fonts,
 * rotatedText }`).
 *
 * @example
 * const { bytes, truth } = await generatePdf({ seed: 7, pages: 3, fonts: ['Helvetica', 'DejaVuSans'] });
 * // truth[0] = { pageNumber, anchor: '{{…}}', box: { left, top, width, height }, font, style, upright, size }
 */
export async function generatePdf(input: readonly GenPage[] | GeneratePdfOptions): Promise<GeneratedPdf> {
  const pages = isPageList(input) ? input : randomPages(input.seed, { ...input, pages: input.pages ?? 1 });
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  // Fixed dates: the same input always gives the same bytes.
  doc.setCreationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setModificationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setProducer('paraph test generator');
  const used = new Set(pages.flatMap((p) => p.texts.flatMap((t) => fontsOf(t))));
  const handles = new Map<GenFont, FontHandle>();
  const refs = new Map<GenFont, PDFRef>();
  const standard: Array<[GenFont, StandardFonts, string]> = [
    ['Helvetica', StandardFonts.Helvetica, 'F0'],
    ['Times-Roman', StandardFonts.TimesRoman, 'F1'],
    ['Courier', StandardFonts.Courier, 'F4'],
  ];
  for (const [name, std, key] of standard) {
    if (!used.has(name)) continue;
    const font = await doc.embedFont(std);
    handles.set(name, pdfFontHandle(key, font));
    refs.set(name, font.ref);
  }
  let dejavu: PDFFont | undefined;
  if (used.has('DejaVuSans')) {
    // A fixed subset tag instead of pdf-lib's random suffix keeps the output byte-for-byte reproducible.
    dejavu = await doc.embedFont(await loadBundledFont('regular'), { subset: true, customName: 'PARAPH+DejaVuSans' });
    handles.set('DejaVuSans', pdfFontHandle('F2', dejavu));
    refs.set('DejaVuSans', dejavu.ref);
  }
  if (used.has('Type3')) {
    handles.set('Type3', type3Handle());
    refs.set('Type3', await type3Font(doc));
  }

  const truth: GenTruth[] = [];
  pages.forEach((spec, i) => {
    const swap = spec.rotation === 90 || spec.rotation === 270;
    const origin = spec.cropOrigin ?? { x: 0, y: 0 };
    const crop = { x: origin.x, y: origin.y, width: swap ? spec.height : spec.width, height: swap ? spec.width : spec.height };
    const margin = spec.mediaMargin ?? 0;
    const geo = pageGeometryFromBoxes(crop, spec.rotation, i + 1);
    const page = doc.addPage([crop.width + 2 * margin, crop.height + 2 * margin]);
    page.setMediaBox(crop.x - margin, crop.y - margin, crop.width + 2 * margin, crop.height + 2 * margin);
    if (margin > 0 || origin.x !== 0 || origin.y !== 0) page.setCropBox(crop.x, crop.y, crop.width, crop.height);
    if (spec.rotation !== 0) page.node.set(PDFName.of('Rotate'), doc.context.obj(spec.rotation));
    const ops: string[] = [];
    for (const text of spec.texts) {
      const box = drawText(ops, geo, text, handles);
      truth.push({
        pageNumber: i + 1,
        anchor: text.anchor,
        box,
        font: text.font,
        style: text.style,
        upright: (text.angle ?? 0) === 0,
        size: text.size,
      });
    }
    const fontDict = doc.context.obj({});
    for (const [name, ref] of refs) fontDict.set(PDFName.of(handles.get(name)!.key), ref);
    page.node.set(PDFName.of('Resources'), doc.context.obj({ Font: fontDict }));
    page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(ops.join('\n'))));
  });
  return { bytes: await doc.save({ useObjectStreams: false }), truth };
}

function fontsOf(text: GenText): GenFont[] {
  return text.style === 'split-fonts' || text.style === 'split-blocks' ? [text.font, altFont(text.font)] : [text.font];
}

/** The second font of split styles: a different one that can show the same characters. */
function altFont(font: GenFont): GenFont {
  if (font === 'Type3') return 'Helvetica';
  return font === 'Helvetica' ? 'DejaVuSans' : 'Helvetica';
}

interface Piece {
  text: string;
  font: GenFont;
  isAnchor: boolean;
}

function piecesOf(text: GenText): Piece[] {
  const split = text.style === 'split-fonts' || text.style === 'split-blocks';
  const pieces: Piece[] = [];
  if (text.prefix) pieces.push({ text: text.prefix, font: text.font, isAnchor: false });
  if (split && text.anchor.length >= 2) {
    const mid = Math.ceil(text.anchor.length / 2);
    pieces.push({ text: text.anchor.slice(0, mid), font: altFont(text.font), isAnchor: true });
    pieces.push({ text: text.anchor.slice(mid), font: text.font, isAnchor: true });
  } else {
    pieces.push({ text: text.anchor, font: text.font, isAnchor: true });
  }
  if (text.suffix) pieces.push({ text: text.suffix, font: split ? altFont(text.font) : text.font, isAnchor: false });
  return pieces;
}

/** Kerning (TJ units, thousandths of an em, positive = closer) after the k-th glyph: small, like real kerning. */
function kernAfter(k: number): number {
  return [-40, 25, -15, 60, 0, -55, 35][k % 7]!;
}

/** Writes one GenText into `ops`; returns the anchor's reader box. */
function drawText(ops: string[], geo: PageGeometry, text: GenText, fonts: ReadonlyMap<GenFont, FontHandle>): ReaderRect {
  const size = text.size;
  const charSpacing = text.style === 'spaced' ? 0.3 * size : text.style === 'scaled' ? 0.05 * size : 0;
  const hScale = text.style === 'scaled' ? 0.7 : 1;
  const wordSpacing = text.style === 'scaled' ? 0.1 * size : 0;
  // Text space → user space: rotate by the page rotation (so the text reads upright) plus the extra angle.
  const start = readerPointToUser(geo, text.left, text.baseline);
  const theta = ((geo.rotation + (text.angle ?? 0)) * Math.PI) / 180;
  const cos = Math.round(Math.cos(theta));
  const sin = Math.round(Math.sin(theta));
  const tm: Mat = [cos, sin, -sin, cos, start.x, start.y];
  const toReader = (tx: number, ty: number): { left: number; top: number } =>
    userPointToReader(geo, tx * tm[0] + ty * tm[2] + tm[4], tx * tm[1] + ty * tm[3] + tm[5]);

  let x = 0;
  let glyphIndex = 0;
  let anchorLeft = Infinity;
  let anchorRight = -Infinity;
  let anchorBottom = Infinity;
  let anchorTop = -Infinity;
  const state = `${num(charSpacing)} Tc ${num(wordSpacing)} Tw ${num(hScale * 100)} Tz`;
  const at = (tx: number): string => `${tm.slice(0, 4).map(num).join(' ')} ${num(toUserX(tx))} ${num(toUserY(tx))} Tm`;
  const toUserX = (tx: number): number => tx * tm[0] + tm[4];
  const toUserY = (tx: number): number => tx * tm[1] + tm[5];
  const pieces = piecesOf(text);
  if (text.style !== 'split-blocks' && text.style !== 'per-glyph') ops.push(`BT ${state} ${at(0)}`);
  for (const piece of pieces) {
    const font = fonts.get(piece.font)!;
    if (text.style === 'split-blocks') ops.push(`BT ${state} ${at(x)}`);
    const parts: string[] = [];
    if (text.style !== 'per-glyph') ops.push(`/${font.key} ${num(size)} Tf`);
    for (const ch of piece.text) {
      const advance = (font.width(ch) / 1000) * size * hScale;
      if (piece.isAnchor && ch !== ' ') {
        anchorLeft = Math.min(anchorLeft, x);
        anchorRight = Math.max(anchorRight, x + advance);
        anchorBottom = Math.min(anchorBottom, font.extent[0] * size);
        anchorTop = Math.max(anchorTop, font.extent[1] * size);
      }
      if (text.style === 'per-glyph') {
        ops.push(`BT ${state} /${font.key} ${num(size)} Tf ${at(x)} ${font.encode(ch)} Tj ET`);
      } else {
        parts.push(font.encode(ch));
      }
      // Tw applies to the single-byte code 32 only (ISO 32000-2 §9.3.3), not to the two-byte CID font.
      const word = ch === ' ' && piece.font !== 'DejaVuSans' ? wordSpacing : 0;
      x += advance + (charSpacing + word) * hScale;
      if (text.style === 'kerned') {
        const kern = kernAfter(glyphIndex);
        parts.push(String(kern));
        x -= (kern / 1000) * size * hScale;
      }
      glyphIndex++;
    }
    if (text.style !== 'per-glyph') ops.push(`[${parts.join(' ')}] TJ`);
    if (text.style === 'split-blocks') ops.push('ET');
  }
  if (text.style !== 'split-blocks' && text.style !== 'per-glyph') ops.push('ET');

  const corners = [
    toReader(anchorLeft, anchorBottom),
    toReader(anchorRight, anchorBottom),
    toReader(anchorLeft, anchorTop),
    toReader(anchorRight, anchorTop),
  ];
  const left = Math.min(...corners.map((c) => c.left));
  const top = Math.min(...corners.map((c) => c.top));
  return {
    left,
    top,
    width: Math.max(...corners.map((c) => c.left)) - left,
    height: Math.max(...corners.map((c) => c.top)) - top,
  };
}

function isPageList(input: readonly GenPage[] | GeneratePdfOptions): input is readonly GenPage[] {
  return Array.isArray(input);
}

/** A small seeded PRNG (mulberry32), so generated documents depend on the seed only. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ANCHOR_CHARS = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const FONTS: readonly GenFont[] = ['Helvetica', 'Times-Roman', 'Courier', 'DejaVuSans', 'Type3'];
const STYLES: readonly GenStyle[] = ['plain', 'kerned', 'spaced', 'scaled', 'split-fonts', 'split-blocks', 'per-glyph'];

/** Options of {@link randomPages}. */
export interface RandomPagesOptions {
  pages: number;
  /** Anchors per page (each on its own line). Default 4. */
  anchorsPerPage?: number;
  /** Allow text at an angle to the reader. Default true. */
  rotatedText?: boolean;
  /** Give pages a random /Rotate (0, 90, 180, 270). Default true; false keeps every page upright. */
  rotate?: boolean;
  /** Move the CropBox away from the origin and widen the MediaBox around it. Default true. */
  cropBox?: boolean;
  /** Fonts to draw anchors with (default all of {@link GenFont}). */
  fonts?: readonly GenFont[];
}

/**
 * Random pages from a seed: sizes 200–1200 pt, any rotation, CropBox origins −300…300, MediaBox margins, and
 * anchors `{{xxxx}}` (unique in the document) in every font and style, inside longer runs, each on its own line.
 */
export function randomPages(seed: number, options: RandomPagesOptions): GenPage[] {
  const rnd = seededRandom(seed);
  const int = (min: number, max: number): number => min + Math.floor(rnd() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const pages: GenPage[] = [];
  let serial = 0;
  for (let p = 0; p < options.pages; p++) {
    const width = int(200, 1200);
    const height = int(200, 1200);
    const count = options.anchorsPerPage ?? 4;
    const texts: GenText[] = [];
    const rowHeight = height / count;
    for (let k = 0; k < count; k++) {
      const drawn = pick(FONTS);
      const font = options.fonts === undefined || options.fonts.length === 0 ? drawn : options.fonts[FONTS.indexOf(drawn) % options.fonts.length]!;
      const style = pick(STYLES);
      const size = Math.min(int(6, 24), rowHeight / 2);
      let anchor = '{{';
      for (let c = 0; c < 4; c++) anchor += pick([...ANCHOR_CHARS]);
      anchor += `${(serial++).toString(36)}}}`;
      const spaced = style === 'spaced';
      const upright = !(options.rotatedText ?? true) || rnd() < 0.75;
      const angle: PageRotation = upright ? 0 : pick([90, 180, 270] as const);
      // Leave room: the text must stay on the page whatever its direction.
      const estimate = (anchor.length + 12) * size * (spaced ? 1.0 : 0.7);
      const span = angle === 90 || angle === 270 ? height : width;
      if (estimate + 20 > span) continue;
      const along = int(5, Math.max(5, Math.floor(span - estimate - 5)));
      const across = k * rowHeight + rowHeight / 2;
      let left: number;
      let baseline: number;
      switch (angle) {
        case 0:
          left = along;
          baseline = across;
          break;
        case 180:
          left = width - along;
          baseline = across;
          break;
        case 90:
          left = Math.min(width - size, (k * width) / count + size);
          baseline = height - along;
          break;
        case 270:
          left = Math.min(width - size, (k * width) / count + size);
          baseline = along;
          break;
      }
      texts.push({
        anchor,
        prefix: spaced ? undefined : pick(['Sign ', 'Name ', 'Date ', '']),
        suffix: spaced ? undefined : pick([' here', ' please', '']),
        left,
        baseline,
        size,
        font,
        style,
        angle,
      });
    }
    // Always draw the same numbers, so a seed gives the same text layout whatever the switches.
    const rotation = pick([0, 90, 180, 270] as const);
    const cropOrigin = { x: int(-300, 300), y: int(-300, 300) };
    const mediaMargin = pick([0, 0, 15, 40]);
    pages.push({
      width,
      height,
      rotation: options.rotate === false ? 0 : rotation,
      ...(options.cropBox === false ? {} : { cropOrigin, mediaMargin }),
      texts,
    });
  }
  return pages;
}
