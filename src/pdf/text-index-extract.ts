/**
 * Exact per-character text positions of PDF pages with pdf.js (ISO 32000-2 §9.4 text objects, §9.3 text state),
 * for Location `Search` (decisions.md §4). pdf.js's text items are runs, often whole lines, so positions inside
 * them cannot be interpolated; instead this module replays each page's operator list with a small text-state
 * simulation (CTM, Tm, Td/TD/T*, TJ adjustments, Tc, Tw, Tz, Ts, font widths, Form XObjects) and measures every
 * glyph. It imports the pdf.js legacy build, which installs core-js polyfills process-wide: the host normally
 * runs it inside worker threads (text-index-worker.ts).
 */
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PdfParseError } from '../errors.js';
import { hasPdfHeader } from './load-pdf.js';
import { type PageGeometry, pageGeometryFromBoxes, userPointToReader } from './page-geometry.js';
import { bigramSignature } from './text-index-bigrams.js';
import { encodeBoxes } from './text-index-boxes.js';

/** One page's extracted text: normalized string plus its encoded per-character boxes (see text-index-boxes.ts). */
export interface ExtractedText {
  pageNumber: number;
  text: string;
  boxes: Uint8Array;
  /** Bigram signatures of the text and of the text without spaces (text-index-bigrams.ts). */
  signature: Uint32Array;
  compactSignature: Uint32Array;
}

/** A failure that crosses the worker boundary as plain data and becomes a PdfParseError again on the host. */
export interface ExtractFailure {
  code: string;
  message: string;
  internal: boolean;
}

type Matrix = [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
const FONT_IDENTITY: Matrix = [0.001, 0, 0, 0.001, 0, 0];
/** Box below the baseline, in em: the box spans baseline − 0.2 em … baseline + 0.8 em (height = font size). */
const EM_BELOW = 0.2;
const EM_ABOVE = 0.8;
/** A gap wider than this many em between two glyphs on a line is a word break (poppler uses 0.1 too). */
const WORD_GAP_EM = 0.1;
/** A baseline shift of more than this many em starts a new line. */
const LINE_SHIFT_EM = 0.5;

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

const LIGATURES = /[\uFB00-\uFB06]/;
const WHITESPACE = /^\s+$/;
// Control characters carry no text (some fonts map glyphs to U+0000–U+001F); whitespace is handled separately.
const CONTROL = /[\u0000-\u0008\u000E-\u001F\u007F]/g;

const glyphTexts = new Map<string, string>();

/** `WHITESPACE.test(text)`, without the regular expression for the usual one-character ASCII glyph. */
function isWhitespace(text: string): boolean {
  if (text.length === 1) {
    const c = text.charCodeAt(0);
    if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  }
  return WHITESPACE.test(text);
}

/** Glyph text normalized the way search expects: ligatures expanded (ﬁ → fi), control characters dropped. */
function glyphText(unicode: string): string {
  let text = glyphTexts.get(unicode);
  if (text === undefined) {
    text = LIGATURES.test(unicode) ? unicode.normalize('NFKC') : unicode;
    text = text.replace(CONTROL, '');
    if (glyphTexts.size < 65536) glyphTexts.set(unicode, text);
  }
  return text;
}

/** Collects characters and their reader boxes, inserting single spaces at word and line breaks. */
class PageTextBuilder {
  private readonly chars: string[] = [];
  private boxes = new Float64Array(1024);
  private count = 0;
  private pendingSpace = false;
  // End of the previous visible glyph in user space, its baseline direction (unit) and em size in user space.
  private hasPrev = false;
  private prevX = 0;
  private prevY = 0;
  private prevUx = 1;
  private prevUy = 0;
  private prevEm = 0;
  // User space → reader coordinates as an affine map: left = la·x + lb·y + lc, top = ta·x + tb·y + tc.
  private readonly la: number;
  private readonly lb: number;
  private readonly lc: number;
  private readonly ta: number;
  private readonly tb: number;
  private readonly tc: number;

  constructor(geo: PageGeometry) {
    const o = userPointToReader(geo, 0, 0);
    const x = userPointToReader(geo, 1, 0);
    const y = userPointToReader(geo, 0, 1);
    this.lc = o.left;
    this.la = x.left - o.left;
    this.lb = y.left - o.left;
    this.tc = o.top;
    this.ta = x.top - o.top;
    this.tb = y.top - o.top;
  }

  space(): void {
    if (this.count > 0) this.pendingSpace = true;
  }

  /**
   * Adds one glyph's text. `m0…m5` map glyph-local text space (x along the advance, y up from the baseline, already
   * in text space units) to user space; the glyph occupies x ∈ [0, advance], y ∈ [below, above].
   */
  glyph(
    text: string,
    m0: number,
    m1: number,
    m2: number,
    m3: number,
    m4: number,
    m5: number,
    advance: number,
    below: number,
    above: number,
  ): void {
    let ux = m0;
    let uy = m1;
    // sqrt rather than Math.hypot, which is several times slower in V8 (this runs once per glyph).
    const ulen = Math.sqrt(ux * ux + uy * uy);
    if (ulen > 0) {
      ux /= ulen;
      uy /= ulen;
    } else {
      ux = 1;
      uy = 0;
    }
    const em = Math.sqrt(m2 * m2 + m3 * m3) * Math.abs(above - below);
    if (this.hasPrev && this.count > 0 && !this.pendingSpace) {
      const dx = m4 - this.prevX;
      const dy = m5 - this.prevY;
      const along = dx * this.prevUx + dy * this.prevUy;
      const across = -dx * this.prevUy + dy * this.prevUx;
      const unit = Math.max(this.prevEm, 1e-6);
      const turned = ux * this.prevUx + uy * this.prevUy < 0.99;
      if (turned || Math.abs(across) > LINE_SHIFT_EM * unit || along > WORD_GAP_EM * unit || along < -unit) {
        this.pendingSpace = true;
      }
    }
    this.hasPrev = true;
    this.prevX = advance * m0 + m4;
    this.prevY = advance * m1 + m5;
    this.prevUx = ux;
    this.prevUy = uy;
    this.prevEm = em;
    if (this.pendingSpace) {
      this.push(' ', Number.NaN, Number.NaN, Number.NaN, Number.NaN);
      this.pendingSpace = false;
    }
    // Glyph-local (gx, gy) → reader: left = Lx·gx + Ly·gy + L0, top = Tx·gx + Ty·gy + T0.
    const { la, lb, ta, tb } = this;
    const Lx = la * m0 + lb * m1;
    const Ly = la * m2 + lb * m3;
    const L0 = la * m4 + lb * m5 + this.lc;
    const Tx = ta * m0 + tb * m1;
    const Ty = ta * m2 + tb * m3;
    const T0 = ta * m4 + tb * m5 + this.tc;
    const lyMin = Math.min(Ly * below, Ly * above);
    const lyMax = Math.max(Ly * below, Ly * above);
    const tyMin = Math.min(Ty * below, Ty * above);
    const tyMax = Math.max(Ty * below, Ty * above);
    const n = text.length;
    for (let k = 0; k < n; k++) {
      // A glyph that stands for several characters (a ligature) is split evenly among them.
      const x0 = (advance * k) / n;
      const x1 = (advance * (k + 1)) / n;
      const l0 = Lx * x0;
      const l1 = Lx * x1;
      const t0 = Tx * x0;
      const t1 = Tx * x1;
      this.push(
        text[k]!,
        L0 + (l0 < l1 ? l0 : l1) + lyMin,
        T0 + (t0 < t1 ? t0 : t1) + tyMin,
        L0 + (l0 < l1 ? l1 : l0) + lyMax,
        T0 + (t0 < t1 ? t1 : t0) + tyMax,
      );
    }
  }

  private push(ch: string, left: number, top: number, right: number, bottom: number): void {
    if ((this.count + 1) * 4 > this.boxes.length) {
      const grown = new Float64Array(this.boxes.length * 2);
      grown.set(this.boxes);
      this.boxes = grown;
    }
    const o = this.count * 4;
    this.boxes[o] = left;
    this.boxes[o + 1] = top;
    this.boxes[o + 2] = right;
    this.boxes[o + 3] = bottom;
    this.chars.push(ch);
    this.count++;
  }

  finish(pageNumber: number): ExtractedText {
    const text = this.chars.join('');
    return {
      pageNumber,
      text,
      boxes: encodeBoxes(this.boxes.subarray(0, this.count * 4)),
      signature: bigramSignature(text),
      compactSignature: bigramSignature(text, true),
    };
  }
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
  const f = font as { fontMatrix?: unknown; isType3Font?: unknown; vertical?: unknown };
  return {
    fontMatrix: toMatrix(f.fontMatrix) ?? FONT_IDENTITY,
    isType3: f.isType3Font === true,
    vertical: f.vertical === true,
  };
}

/** Replays one page's operator list and returns its normalized text with per-character reader boxes. */
export async function extractPageText(page: PDFPageProxy, geo: PageGeometry): Promise<ExtractedText> {
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
  // The em in text space: the font size, or for Type3 fonts what their FontMatrix makes of 1000 glyph units.
  const em = font.isType3 ? fontSize * Math.hypot(fm[2], fm[3]) * 1000 || fontSize : fontSize;
  const below = -EM_BELOW * em * fontDirection;
  const above = EM_ABOVE * em * fontDirection;
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

/** Rejects, cheaply, what is no PDF at all: empty input or no `%PDF-` header. */
export function checkPdfHeader(bytes: Uint8Array): void {
  if (bytes.length === 0) throw new PdfParseError('PDF_EMPTY', 'The file is empty: send the bytes of a PDF document.');
  if (!hasPdfHeader(bytes)) {
    throw new PdfParseError('PDF_NOT_A_PDF', 'The file is not a PDF (no "%PDF-" header): send a PDF document.');
  }
}

/** Opens PDF bytes with pdf.js (on a copy: pdf.js empties the buffer it is given), refusing encrypted files. */
export async function openPdf(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  checkPdfHeader(bytes);
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
export function pdfjsPageGeometry(page: PDFPageProxy, pageNumber: number): PageGeometry {
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
