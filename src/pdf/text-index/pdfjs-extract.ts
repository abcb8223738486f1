/**
 * Exact per-character text positions of PDF pages with pdf.js (ISO 32000-2 §9.4 text objects, §9.3 text state),
 * for Location `Search` (docs/design/locations.md#search). pdf.js's text items are runs, often whole lines, so
 * positions inside them cannot be interpolated; instead this module replays each page's operator list with a small
 * text-state simulation (CTM, Tm, Td/TD/T*, TJ adjustments, Tc, Tw, Tz, Ts, font widths, Form XObjects) and measures
 * every glyph. It imports the pdf.js legacy build, which installs core-js polyfills process-wide: the host normally
 * runs it inside worker threads (text-index/pdfjs-worker.ts).
 */
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PdfParseError } from '../../errors.js';
import { type PageGeometry, pageGeometryFromBoxes } from '../page-geometry.js';
import { EM_ABOVE, EM_BELOW, type ExtractedText, glyphText, isWhitespace, PageTextBuilder } from './builder.js';

export type { ExtractedText } from './builder.js';

/** A failure that crosses the worker boundary as plain data and becomes a PdfParseError again on the host. */
export interface ExtractFailure {
  code: string;
  message: string;
  internal: boolean;
}

type Matrix = [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
const FONT_IDENTITY: Matrix = [0.001, 0, 0, 0.001, 0, 0];

/** `a × b` for PDF row-vector matrices: first apply a, then b. */
function multiply(a: Matrix, b: Matrix): Matrix {
  return [
    a[0] * b[0] + a[1] * b[2],
    a[0] * b[1] + a[1] * b[3],
    a[2] * b[0] + a[3] * b[2],
    a[2] * b[1] + a[3] * b[3],
    a[4] * b[0] + a[5] * b[2] + b[4],
    a[4] * b[1] + a[5] * b[3] + b[5],
  ];
}

function toMatrix(value: unknown): Matrix | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as ArrayLike<unknown>;
  const m: number[] = [];
  for (let i = 0; i < 6; i++) {
    const n = v[i];
    if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
    m.push(n);
  }
  return m as Matrix;
}

/** What the simulation needs of a pdf.js font object. */
interface FontInfo {
  fontMatrix: Matrix;
  isType3: boolean;
  /** A Type3 font's glyph boxes at font size 1 in text space (its FontBBox through its FontMatrix): bottom, top. */
  type3Extent?: readonly [number, number];
  vertical: boolean;
}

interface Glyph {
  unicode?: unknown;
  width?: unknown;
  isSpace?: unknown;
  vmetric?: unknown;
}

interface GraphicsState {
  ctm: Matrix;
  font: FontInfo;
  fontSize: number;
  fontDirection: number;
  charSpacing: number;
  wordSpacing: number;
  hScale: number;
  leading: number;
  rise: number;
}


function fontInfo(page: PDFPageProxy, name: unknown): FontInfo {
  const fallback: FontInfo = { fontMatrix: FONT_IDENTITY, isType3: false, vertical: false };
  if (typeof name !== 'string') return fallback;
  let font: unknown;
  try {
    if (page.commonObjs.has(name)) font = page.commonObjs.get(name);
    else if (page.objs.has(name)) font = page.objs.get(name);
  } catch {
    return fallback;
  }
  if (font === null || typeof font !== 'object') return fallback;
  const f = font as { fontMatrix?: unknown; isType3Font?: unknown; vertical?: unknown; bbox?: unknown; charProcOperatorList?: unknown };
  const fontMatrix = toMatrix(f.fontMatrix) ?? FONT_IDENTITY;
  const isType3 = f.isType3Font === true;
  const type3Extent = isType3 ? (fontBoxExtent(f.bbox, fontMatrix) ?? glyphBoundsExtent(f.charProcOperatorList, fontMatrix)) : undefined;
  return { fontMatrix, isType3, vertical: f.vertical === true, ...(type3Extent ? { type3Extent } : {}) };
}

/**
 * The vertical extent in text space at font size 1 of a font box in glyph space (FontBBox: x0, y0, x1, y1) through
 * the FontMatrix; undefined when there is no box or it is flat. pdf.js gives a box smaller than one glyph unit as
 * [0 0 0 0], so such a font keeps the em box.
 */
function fontBoxExtent(bbox: unknown, fm: Matrix): readonly [number, number] | undefined {
  if (!Array.isArray(bbox) || bbox.length < 4 || !bbox.every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  const [x0, y0, x1, y1] = bbox as number[];
  const ys = [fm[1] * x0! + fm[3] * y0!, fm[1] * x0! + fm[3] * y1!, fm[1] * x1! + fm[3] * y0!, fm[1] * x1! + fm[3] * y1!].map((y) => y + fm[5]);
  const low = Math.min(...ys);
  const high = Math.max(...ys);
  return high - low > 0 ? [low, high] : undefined;
}

/**
 * A Type3 font's glyph boxes when pdf.js lost its FontBBox (it passes the box on as 16-bit integers, so a box
 * smaller than one glyph unit arrives as [0 0 0 0]): the union of the bounds its glyph procedures declare with `d1`
 * (exact numbers), through the FontMatrix as {@link fontBoxExtent} does; undefined when no glyph declares any.
 */
function glyphBoundsExtent(procedures: unknown, fm: Matrix): readonly [number, number] | undefined {
  if (procedures === null || typeof procedures !== 'object') return undefined;
  let box: [number, number, number, number] | undefined;
  for (const list of Object.values(procedures)) {
    const { fnArray, argsArray } = (list ?? {}) as { fnArray?: unknown; argsArray?: unknown };
    if (!Array.isArray(fnArray) || !Array.isArray(argsArray)) continue;
    const at = fnArray.indexOf(pdfjs.OPS.setCharWidthAndBounds);
    const args: unknown = at >= 0 ? argsArray[at] : undefined;
    if (!Array.isArray(args) || args.length < 6 || !args.every((n) => typeof n === 'number' && Number.isFinite(n))) continue;
    const [, , x0, y0, x1, y1] = args as number[];
    const glyph: [number, number, number, number] = [Math.min(x0!, x1!), Math.min(y0!, y1!), Math.max(x0!, x1!), Math.max(y0!, y1!)];
    box = box ? [Math.min(box[0], glyph[0]), Math.min(box[1], glyph[1]), Math.max(box[2], glyph[2]), Math.max(box[3], glyph[3])] : glyph;
  }
  return box ? fontBoxExtent(box, fm) : undefined;
}

/** Replays one page's operator list and returns its normalized text with per-character reader boxes. */
async function extractPageText(page: PDFPageProxy, geo: PageGeometry): Promise<ExtractedText> {
  const OPS = pdfjs.OPS;
  const list = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
  const builder = new PageTextBuilder(geo);
  const defaultFont: FontInfo = { fontMatrix: FONT_IDENTITY, isType3: false, vertical: false };
  let gs: GraphicsState = {
    ctm: IDENTITY,
    font: defaultFont,
    fontSize: 0,
    fontDirection: 1,
    charSpacing: 0,
    wordSpacing: 0,
    hScale: 1,
    leading: 0,
    rise: 0,
  };
  const stack: GraphicsState[] = [];
  let textMatrix: Matrix = IDENTITY;
  let x = 0;
  let y = 0;
  let lineX = 0;
  let lineY = 0;
  const fonts = new Map<string, FontInfo>();

  const { fnArray, argsArray } = list;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    switch (fn) {
      case OPS.save:
        stack.push({ ...gs });
        break;
      case OPS.restore:
        gs = stack.pop() ?? gs;
        break;
      case OPS.transform: {
        const m = toMatrix(args);
        if (m) gs.ctm = multiply(m, gs.ctm);
        break;
      }
      case OPS.paintFormXObjectBegin: {
        stack.push({ ...gs });
        const m = toMatrix(args?.[0]);
        if (m) gs.ctm = multiply(m, gs.ctm);
        break;
      }
      case OPS.paintFormXObjectEnd:
        gs = stack.pop() ?? gs;
        break;
      case OPS.beginText:
        textMatrix = IDENTITY;
        x = y = lineX = lineY = 0;
        break;
      case OPS.setTextMatrix:
        textMatrix = toMatrix(args?.[0]) ?? toMatrix(args) ?? IDENTITY;
        x = y = lineX = lineY = 0;
        break;
      case OPS.moveText:
        lineX += Number(args?.[0]) || 0;
        lineY += Number(args?.[1]) || 0;
        x = lineX;
        y = lineY;
        break;
      case OPS.setLeadingMoveText:
        gs.leading = Number(args?.[1]) || 0;
        lineX += Number(args?.[0]) || 0;
        lineY += Number(args?.[1]) || 0;
        x = lineX;
        y = lineY;
        break;
      case OPS.nextLine:
        lineY += gs.leading;
        x = lineX;
        y = lineY;
        break;
      case OPS.setLeading:
        gs.leading = -(Number(args?.[0]) || 0);
        break;
      case OPS.setCharSpacing:
        gs.charSpacing = Number(args?.[0]) || 0;
        break;
      case OPS.setWordSpacing:
        gs.wordSpacing = Number(args?.[0]) || 0;
        break;
      case OPS.setHScale:
        gs.hScale = (Number(args?.[0]) || 0) / 100;
        break;
      case OPS.setTextRise:
        gs.rise = Number(args?.[0]) || 0;
        break;
      case OPS.setFont: {
        const name = args?.[0];
        const key = typeof name === 'string' ? name : '';
        let info = fonts.get(key);
        if (!info) {
          info = fontInfo(page, name);
          fonts.set(key, info);
        }
        gs.font = info;
        const size = Number(args?.[1]) || 0;
        gs.fontDirection = size < 0 ? -1 : 1;
        gs.fontSize = Math.abs(size);
        break;
      }
      case OPS.showText: {
        const glyphs = args?.[0];
        if (!Array.isArray(glyphs) || gs.fontSize === 0) break;
        [x, y] = showText(builder, glyphs as unknown[], gs, textMatrix, x, y);
        break;
      }
      default:
        break;
    }
  }
  return builder.finish(geo.pageNumber);
}

/** Measures the glyphs of one text-showing operator; returns the new text position (x, y) in text space. */
function showText(
  builder: PageTextBuilder,
  glyphs: readonly unknown[],
  gs: GraphicsState,
  textMatrix: Matrix,
  startX: number,
  startY: number,
): [number, number] {
  const { font, fontSize, fontDirection, charSpacing, wordSpacing } = gs;
  const hScale = gs.hScale * fontDirection;
  const fm = font.fontMatrix;
  const widthScale = fontSize * fm[0];
  // The em in text space: the font size, or for Type3 fonts what their FontMatrix makes of 1000 glyph units. A Type3
  // font's glyph boxes are its FontBBox through its FontMatrix (its glyph space is whatever the FontMatrix makes it).
  const em = font.isType3 ? fontSize * Math.hypot(fm[2], fm[3]) * 1000 || fontSize : fontSize;
  const extent = font.type3Extent;
  const below = (extent ? extent[0] * fontSize : -EM_BELOW * em) * fontDirection;
  const above = (extent ? extent[1] * fontSize : EM_ABOVE * em) * fontDirection;
  const tm = multiply(textMatrix, gs.ctm);
  const spacingDir = font.vertical ? 1 : -1;
  let x = 0;
  let yOffset = 0;
  for (const item of glyphs) {
    if (typeof item === 'number') {
      if (font.vertical) yOffset -= (spacingDir * item * fontSize) / 1000;
      else x += (spacingDir * item * fontSize) / 1000;
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    const glyph = item as Glyph;
    const width = typeof glyph.width === 'number' && Number.isFinite(glyph.width) ? glyph.width : 0;
    const unicode = typeof glyph.unicode === 'string' ? glyph.unicode : '';
    const spacing = (glyph.isSpace === true ? wordSpacing : 0) + charSpacing;
    if (font.vertical) {
      // Vertical writing (CJK): glyphs advance downwards, centred on the line; box width = 1 em.
      const vm = Array.isArray(glyph.vmetric) ? (glyph.vmetric as number[]) : undefined;
      const advance = (vm ? -(vm[0] ?? 0) : width) * widthScale;
      const local: Matrix = [0, -1, 1, 0, startX - em / 2, startY + gs.rise + yOffset];
      if (isWhitespace(unicode)) builder.space();
      else {
        const text = glyphText(unicode);
        if (text) {
          const g = multiply(local, tm);
          builder.glyph(text, g[0], g[1], g[2], g[3], g[4], g[5], Math.abs(advance), 0, em);
        }
      }
      yOffset -= advance - spacing * fontDirection;
      continue;
    }
    const advance = width * widthScale;
    if (glyph.isSpace === true || isWhitespace(unicode)) {
      builder.space();
    } else {
      const text = glyphText(unicode);
      if (text) {
        // Glyph-local space: x along the advance (scaled by Tz), y up from the baseline; this is [Th 0 0 1 tx ty] × tm.
        const tx = startX + x * hScale;
        const ty = startY + gs.rise;
        builder.glyph(
          text,
          hScale * tm[0],
          hScale * tm[1],
          tm[2],
          tm[3],
          tx * tm[0] + ty * tm[2] + tm[4],
          tx * tm[1] + ty * tm[3] + tm[5],
          advance,
          below,
          above,
        );
      }
    }
    x += advance + spacing * fontDirection;
  }
  if (font.vertical) return [startX, startY + yOffset];
  return [startX + x * hScale, startY];
}

/**
 * Opens PDF bytes with pdf.js (on a copy: pdf.js empties the buffer it is given), refusing encrypted files. The `%PDF-`
 * header is checked once, at the entry of the job (indexText), before any worker is reached.
 */
export async function openPdf(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  const task = pdfjs.getDocument({
    // A plain Uint8Array copy: pdf.js refuses Buffers and empties what it gets (Buffer#slice would not copy).
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    // Text needs no pixels: every image (also inside Type3 glyphs and patterns) is dropped instead of decoded, so a
    // JBIG2 or huge image cannot cost time or memory (pdf.js: "Image exceeded maximum allowed size and was removed").
    maxImageSize: 0,
  });
  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    const name = error instanceof Error ? error.name : '';
    const reason = error instanceof Error ? error.message : String(error);
    if (name === 'PasswordException') {
      throw new PdfParseError('PDF_ENCRYPTED', 'The PDF is encrypted: remove the password protection and upload it again.');
    }
    throw new PdfParseError('PDF_UNREADABLE', `The PDF cannot be read (${reason}): it may be damaged or truncated.`, {
      cause: error,
    });
  }
  try {
    const meta = await doc.getMetadata();
    const info = meta.info as { EncryptFilterName?: unknown } | undefined;
    if (info?.EncryptFilterName) {
      throw new PdfParseError('PDF_ENCRYPTED', 'The PDF is encrypted: remove the password protection and upload it again.');
    }
    if (doc.numPages === 0) {
      throw new PdfParseError('PDF_NO_PAGES', 'The PDF has no pages: send a document with at least one page.');
    }
  } catch (error) {
    await doc.destroy().catch(() => undefined);
    throw error;
  }
  return doc;
}

/** Geometry of a pdf.js page: its view (CropBox ∩ MediaBox) and normalized /Rotate. */
function pdfjsPageGeometry(page: PDFPageProxy, pageNumber: number): PageGeometry {
  const [x1 = 0, y1 = 0, x2 = 612, y2 = 792] = page.view;
  return pageGeometryFromBoxes(
    { x: Math.min(x1, x2), y: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) },
    page.rotate,
    pageNumber,
  );
}

/** Turns anything thrown during extraction into plain data that survives postMessage. */
export function toFailure(error: unknown): ExtractFailure {
  if (error instanceof PdfParseError) return { code: error.code, message: error.message, internal: false };
  const reason = error instanceof Error ? error.message : String(error);
  return {
    code: 'PDF_UNREADABLE',
    message: `The PDF cannot be read (${reason}): it may be damaged or truncated.`,
    internal: false,
  };
}

/** Receives pages as they are done. */
export interface ExtractSink {
  geometry(geo: PageGeometry): void;
  text(text: ExtractedText): void;
}

/**
 * Geometry of pages `from..to` (1-based, inclusive) and the text of those among them in `textPages` (all when
 * undefined). Releases each page after use and the document's caches now and then, to keep memory flat.
 */
export async function extractRange(
  doc: PDFDocumentProxy,
  from: number,
  to: number,
  textPages: ReadonlySet<number> | undefined,
  sink: ExtractSink,
  signal?: { aborted: boolean },
): Promise<void> {
  let sinceCleanup = 0;
  for (let n = from; n <= to; n++) {
    if (signal?.aborted) return;
    let page: PDFPageProxy;
    try {
      page = await doc.getPage(n);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new PdfParseError('PDF_UNREADABLE', `Page ${n} of the PDF cannot be read (${reason}): it may be damaged or truncated.`, {
        cause: error,
      });
    }
    const geo = pdfjsPageGeometry(page, n);
    sink.geometry(geo);
    if (!textPages || textPages.has(n)) {
      try {
        sink.text(await extractPageText(page, geo));
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new PdfParseError('PDF_UNREADABLE', `The text of page ${n} cannot be read (${reason}): the page may be damaged.`, {
          cause: error,
        });
      }
      page.cleanup();
      if (++sinceCleanup >= 250) {
        sinceCleanup = 0;
        await doc.cleanup(true).catch(() => undefined);
      }
    }
  }
}
