/**
 * The PDFium text engine of the text index: every page's characters with their positions from PDFium's
 * text page (WebAssembly, pdfium.ts), turned into exactly the per-page structure the pdf.js engine produces
 * (text-index/builder.ts: same normalization, same word breaks, same box convention — the glyph advance along the
 * baseline, 0.2 em below to 0.8 em above it, or a Type3 font's FontBBox through its FontMatrix — in the same reader
 * coordinates), so search and placement downstream do not know which engine ran. PDFium runs synchronously in the thread that calls it: the host runs it in a worker
 * thread (text-index/pdfium-worker.ts) to bound its time and memory.
 */
import { PdfParseError } from '../../errors.js';
import { type PageGeometry, pageGeometryFromBoxes, type UserRect, visibleBox } from '../page-geometry.js';
import { copyIn, FPDF_ERR_PASSWORD, type Pdfium } from '../pdfium.js';
import { EM_ABOVE, EM_BELOW, type ExtractedText, glyphText, isWhitespace, PageTextBuilder } from './builder.js';

/** An open PDFium document and the copy of its bytes in PDFium's memory. */
export interface PdfiumDocument {
  doc: number;
  bytes: number;
  pageCount: number;
}

/** Scratch memory for the out-parameters of the calls on one character. */
const SCRATCH_BYTES = 128;

/**
 * Opens PDF bytes with PDFium, refusing what the pdf.js engine refuses (encrypted, no pages) with the same codes. The
 * `%PDF-` header is checked once, at the entry of the job (indexText), before any worker is reached.
 */
export function openPdfiumDocument(pdfium: Pdfium, pdf: Uint8Array): PdfiumDocument {
  const bytes = copyIn(pdfium, pdf);
  const doc = pdfium.FPDF_LoadMemDocument(bytes, pdf.length, '');
  if (!doc) {
    const code = pdfium.FPDF_GetLastError();
    pdfium.pdfium.wasmExports.free(bytes);
    if (code === FPDF_ERR_PASSWORD) {
      throw new PdfParseError('PDF_ENCRYPTED', 'The PDF is encrypted: remove the password protection and upload it again.');
    }
    throw new PdfParseError('PDF_UNREADABLE', `The PDF cannot be read (PDFium error ${code}): it may be damaged or truncated.`);
  }
  const opened = { doc, bytes, pageCount: pdfium.FPDF_GetPageCount(doc) };
  // pdf.js refuses every encrypted file, also one with an empty user password: so does this engine.
  if (pdfium.EPDF_IsEncrypted(doc)) {
    closePdfiumDocument(pdfium, opened);
    throw new PdfParseError('PDF_ENCRYPTED', 'The PDF is encrypted: remove the password protection and upload it again.');
  }
  if (opened.pageCount <= 0) {
    closePdfiumDocument(pdfium, opened);
    throw new PdfParseError('PDF_NO_PAGES', 'The PDF has no pages: send a document with at least one page.');
  }
  return opened;
}

export function closePdfiumDocument(pdfium: Pdfium, opened: PdfiumDocument): void {
  pdfium.FPDF_CloseDocument(opened.doc);
  pdfium.pdfium.wasmExports.free(opened.bytes);
}

/** Little-endian reads of PDFium's memory, taken afresh per use (the memory may grow and move); not for per-character reads. */
function memory(pdfium: Pdfium): DataView {
  const heap = pdfium.pdfium.HEAPU8;
  return new DataView(heap.buffer, heap.byteOffset, heap.byteLength);
}

/**
 * Geometry and, when `withText`, text of page `pageNumber` (1-based). Throws PdfParseError `PDF_UNREADABLE` when
 * PDFium cannot load the page.
 */
export function extractPdfiumPage(
  pdfium: Pdfium,
  opened: PdfiumDocument,
  pageNumber: number,
  withText: boolean,
): { geo: PageGeometry; text?: ExtractedText; needsPdfjs?: true; readPoorly?: true } {
  const page = pdfium.FPDF_LoadPage(opened.doc, pageNumber - 1);
  if (!page) {
    throw new PdfParseError('PDF_UNREADABLE', `Page ${pageNumber} of the PDF cannot be read: it may be damaged or truncated.`);
  }
  const scratch = pdfium.pdfium.wasmExports.malloc(SCRATCH_BYTES);
  try {
    const geo = pageGeometry(pdfium, page, scratch, pageNumber);
    if (geo === undefined) return { geo: pageGeometryFromBoxes(visibleBox(undefined, undefined), 0, pageNumber), needsPdfjs: true };
    if (!withText) return { geo };
    const textPage = pdfium.FPDFText_LoadPage(page);
    if (!textPage) {
      throw new PdfParseError('PDF_UNREADABLE', `The text of page ${pageNumber} cannot be read: the page may be damaged.`);
    }
    try {
      const order = contentOrder(pdfium, page);
      if (order === TOO_DEEP) return { geo, needsPdfjs: true };
      const { text, unmapped, lost, visible } = pageText(pdfium, textPage, scratch, geo, order);
      return readsPoorly(unmapped, lost, visible) ? { geo, text, readPoorly: true } : { geo, text };
    } finally {
      pdfium.FPDFText_ClosePage(textPage);
    }
  } finally {
    pdfium.pdfium.wasmExports.free(scratch);
    pdfium.FPDF_ClosePage(page);
  }
}

/**
 * PDFium keeps page boxes as 32-bit floats (595.28 becomes 595.280029…): the shortest decimal with the same float
 * is what the file says, and what pdf.js and pdf-lib read, whose geometry must agree with this (resolve-placements).
 */
function shortest(value: number): number {
  for (let digits = 1; digits < 9; digits++) {
    const candidate = Number(value.toPrecision(digits));
    if (Math.fround(candidate) === value) return candidate;
  }
  return value;
}

/**
 * The page's geometry; undefined when PDFium cannot tell its visible area as pdf.js and pdf-lib (visibleBox) do: it
 * intersects a CropBox that lies outside the MediaBox to nothing, where they use the MediaBox, which this reads only
 * from the page itself (not inherited from the page tree).
 */
function pageGeometry(pdfium: Pdfium, page: number, scratch: number, pageNumber: number): PageGeometry | undefined {
  let box: UserRect | undefined;
  if (pdfium.FPDF_GetPageBoundingBox(page, scratch)) {
    const m = memory(pdfium);
    box = rect(m.getFloat32(scratch, true), m.getFloat32(scratch + 4, true), m.getFloat32(scratch + 8, true), m.getFloat32(scratch + 12, true));
  }
  if (box && !(box.width > 0 && box.height > 0)) {
    if (!pdfium.FPDFPage_GetMediaBox(page, scratch, scratch + 4, scratch + 8, scratch + 12)) return undefined;
    const m = memory(pdfium);
    box = visibleBox(rect(m.getFloat32(scratch, true), m.getFloat32(scratch + 12, true), m.getFloat32(scratch + 8, true), m.getFloat32(scratch + 4, true)), undefined);
  }
  return pageGeometryFromBoxes(box ?? visibleBox(undefined, undefined), pdfium.FPDFPage_GetRotation(page) * 90, pageNumber);
}

/** The rectangle between two opposite corners (left, top, right, bottom as PDFium's FS_RECTF has them). */
function rect(left: number, top: number, right: number, bottom: number): UserRect {
  const [l, t, r, b] = [shortest(left), shortest(top), shortest(right), shortest(bottom)];
  return { x: Math.min(l, r), y: Math.min(t, b), width: Math.abs(r - l), height: Math.abs(t - b) };
}

/**
 * The glyphs of one page as the builder wants them (see PageTextBuilder.glyph), kept in flat arrays rather than an
 * object per glyph (a dense page has thousands): `texts[k]` is glyph k's text, empty for a word break, and
 * `numbers[k * STRIDE …]` its position in the page's content (its text object's order, then its origin along the
 * baseline) and the nine numbers the builder takes. One instance per thread, reused page after page.
 */
class GlyphList {
  texts: string[] = [];
  numbers = new Float64Array(INITIAL_GLYPHS * STRIDE);
  length = 0;
  /** Whether the glyphs came in content order (most pages list them so). */
  private ordered = true;

  reset(): void {
    this.texts.length = 0;
    this.length = 0;
    this.ordered = true;
    // A page of a million glyphs must not keep its ~90 MB in the thread for every page after it.
    if (this.numbers.length > KEPT_GLYPHS * STRIDE) this.numbers = new Float64Array(INITIAL_GLYPHS * STRIDE);
  }

  /** Appends a glyph (or a word break, `text` empty) and returns its index. */
  add(text: string, order: number, along: number, m0: number, m1: number, m2: number, m3: number, x: number, y: number, advance: number, below: number, above: number): number {
    const k = this.length++;
    if (this.length * STRIDE > this.numbers.length) {
      const grown = new Float64Array(this.numbers.length * 2);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    const n = this.numbers;
    const o = k * STRIDE;
    if (k > 0 && (order < n[o - STRIDE]! || (order === n[o - STRIDE]! && along < n[o - STRIDE + 1]!))) this.ordered = false;
    n[o] = order;
    n[o + 1] = along;
    n[o + 2] = m0;
    n[o + 3] = m1;
    n[o + 4] = m2;
    n[o + 5] = m3;
    n[o + 6] = x;
    n[o + 7] = y;
    n[o + 8] = advance;
    n[o + 9] = below;
    n[o + 10] = above;
    this.texts[k] = text;
    return k;
  }

  /** Feeds every glyph to `builder` in content order: by text object, then along the baseline, then as PDFium listed them. */
  buildAll(builder: PageTextBuilder): void {
    if (this.ordered) {
      for (let k = 0; k < this.length; k++) this.build(builder, k);
      return;
    }
    const n = this.numbers;
    const indexes: number[] = [];
    for (let k = 0; k < this.length; k++) indexes.push(k);
    indexes.sort((p, q) => n[p * STRIDE]! - n[q * STRIDE]! || n[p * STRIDE + 1]! - n[q * STRIDE + 1]! || p - q);
    for (const k of indexes) this.build(builder, k);
  }

  private build(builder: PageTextBuilder, k: number): void {
    const raw = this.texts[k]!;
    if (raw === '') {
      builder.space();
      return;
    }
    const text = glyphText(raw);
    const n = this.numbers;
    const o = k * STRIDE;
    if (text) builder.glyph(text, n[o + 2]!, n[o + 3]!, n[o + 4]!, n[o + 5]!, n[o + 6]!, n[o + 7]!, n[o + 8]!, n[o + 9]!, n[o + 10]!);
  }
}

const STRIDE = 11;
/** Glyph capacity a thread starts with, and returns to after a huge page. */
const INITIAL_GLYPHS = 1024;
/** Glyph capacity kept between pages (a dense page has ~5,000). */
const KEPT_GLYPHS = 65_536;
const glyphs = new GlyphList();

/**
 * One PDFium character as the builder wants a glyph: its text matrix gives the baseline direction and the em
 * (font size × the matrix's y scale), its origin the baseline start, and its advance along the baseline.
 * Ligatures come from PDFium already split into pieces that share one origin and box: they are joined again here so
 * that the builder splits the advance evenly, as it does for pdf.js.
 *
 * PDFium lists the characters in an order of its own: it groups text objects into lines by position, can put a line
 * that crosses another between two text objects of that one (text turned against the page, split into blocks), and
 * lists upside-down text backwards. pdf.js reads content order, and the builder places word and line breaks from
 * the glyphs' geometry in that order. So the glyphs are put in content order (their text objects' order in the
 * page's content, then along the baseline), PDFium's inferred spaces and line breaks are dropped, and the builder
 * decides the breaks as it does for pdf.js.
 *
 * Each call into PDFium costs about as much as the arithmetic around it, so this makes as few as it can: the text
 * matrix and font size of a character are its text object's (PDFium gives every character of an object the same;
 * only spaces it joins to an object may carry another matrix, so a space still asks), and only a space or line
 * break can be one PDFium inserted (IsGenerated is asked only for those).
 */
function pageText(
  pdfium: Pdfium,
  textPage: number,
  scratch: number,
  geo: PageGeometry,
  order: Map<number, number>,
): { text: ExtractedText; unmapped: number; lost: number; visible: number } {
  const count = pdfium.FPDFText_CountChars(textPage);
  // Characters other than white space; those of them whose font gives PDFium no Unicode (it gives their codes); and
  // of those, the ones whose code is a control character, which carries no text at all.
  let visible = 0;
  let unmapped = 0;
  let lost = 0;
  const raw = pdfium.pdfium.wasmExports;
  const widths = new FontWidths(pdfium, scratch + 56);
  // Views on the out-parameters (scratch is 8-aligned: malloc); made again if the memory grew meanwhile.
  // Layout: origin x, y (f64) at +0; loose FS_RECTF at +16; FS_MATRIX at +32; a width or a font data length at +56; tight box
  // left, right, bottom, top (f64) at +64.
  let f64 = new Float64Array(pdfium.pdfium.HEAPU8.buffer, scratch, 12);
  let f32 = new Float32Array(pdfium.pdfium.HEAPU8.buffer, scratch + 16, 10);
  // Growing the memory detaches the old buffer, which empties the views on it: a cheaper test than reading HEAPU8.
  const views = (): void => {
    if (f64.length !== 0) return;
    f64 = new Float64Array(pdfium.pdfium.HEAPU8.buffer, scratch, 12);
    f32 = new Float32Array(pdfium.pdfium.HEAPU8.buffer, scratch + 16, 10);
  };
  glyphs.reset();
  let px = Number.NaN;
  let py = Number.NaN;
  let pLeft = 0;
  let pRight = 0;
  // The glyph a next ligature piece joins (-1: none), with what its advance may grow by and up to.
  let last = -1;
  let lastFontScale = 0;
  let lastLooseFar = 0;
  let position = -1;
  let object = 0;
  // The current text object's matrix (a, b, c, d) and font size, read at its first visible character.
  let objectRead = false;
  let hasMatrix = false;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let size = 1;
  let below = 0;
  let above = 0;
  let type3 = false;
  const extents = new Type3Fonts(pdfium, scratch + 56);
  for (let i = 0; i < count; i++) {
    const code = raw.FPDFText_GetUnicode(textPage, i);
    if (code <= 32 && raw.FPDFText_IsGenerated(textPage, i) === 1) {
      last = -1;
      continue;
    }
    // PDFium gives a hyphen that ends a line as U+0002 (it joins the word for its own search); pdf.js keeps '-'. A font
    // without a Unicode map gives its codes as they are, 2 among them: those are no hyphen.
    const hyphen = code === 2 && raw.FPDFText_IsHyphen(textPage, i) === 1;
    const unicode = hyphen ? '-' : code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    if (unicode === '') continue;
    if (code < 32 && raw.FPDFText_HasUnicodeMapError(textPage, i) === 1) {
      visible++;
      unmapped++;
      lost++;
    }
    const textObject = raw.FPDFText_GetTextObject(textPage, i);
    if (textObject !== object || textObject === 0) {
      object = textObject;
      objectRead = false;
      // An object PDFium's text has but the page's objects do not (none known): it stays after the one before it.
      position = order.get(textObject) ?? position;
    }
    if (!raw.FPDFText_GetCharOrigin(textPage, i, scratch, scratch + 8)) continue;
    if (isWhitespace(unicode)) {
      // A space only breaks words; it keeps its place along its text object's baseline.
      const spaceMatrix = raw.FPDFText_GetMatrix(textPage, i, scratch + 32) !== 0;
      const flip = raw.FPDFText_GetFontSize(textPage, i) < 0 ? -1 : 1;
      views();
      const len = spaceMatrix ? Math.sqrt(f32[4]! * f32[4]! + f32[5]! * f32[5]!) : 0;
      const x = f64[0]!;
      glyphs.add('', position, len > 0 ? (flip * (x * f32[4]! + f64[1]! * f32[5]!)) / len : x, 0, 0, 0, 0, 0, 0, 0, 0, 0);
      last = -1;
      continue;
    }
    if (code >= 32) {
      visible++;
      if (raw.FPDFText_HasUnicodeMapError(textPage, i) === 1) unmapped++;
    }
    const hasLoose = raw.FPDFText_GetLooseCharBox(textPage, i, scratch + 16) !== 0;
    const hasTight = raw.FPDFText_GetCharBox(textPage, i, scratch + 64, scratch + 72, scratch + 80, scratch + 88) !== 0;
    if (!objectRead) {
      hasMatrix = raw.FPDFText_GetMatrix(textPage, i, scratch + 32) !== 0;
      const fontSize = raw.FPDFText_GetFontSize(textPage, i);
      size = Math.abs(fontSize) || 1;
      views();
      // A negative font size turns the glyphs half round (text space is scaled by it): they advance the other way.
      const flip = fontSize < 0 ? -1 : 1;
      [a, b, c, d] = [flip * f32[4]!, flip * f32[5]!, flip * f32[6]!, flip * f32[7]!];
      type3 = extents.isType3(textObject);
      below = -EM_BELOW * size;
      above = EM_ABOVE * size;
      views();
      objectRead = true;
    }
    views();
    const x = f64[0]!;
    const y = f64[1]!;
    const looseLeft = hasLoose ? f32[0]! : 0;
    const looseRight = hasLoose ? f32[2]! : 0;
    if (last !== -1 && x === px && y === py && looseLeft === pLeft && looseRight === pRight) {
      // The next piece of a ligature.
      glyphs.texts[last] += unicode;
      if (lastFontScale) {
        const o = last * STRIDE + 8;
        glyphs.numbers[o] = Math.min(glyphs.numbers[o]! + widths.advance(textPage, i, code) * lastFontScale, lastLooseFar);
      }
      continue;
    }
    if (!hasMatrix) continue;
    const len = Math.sqrt(a * a + b * b);
    const ux = len > 0 ? a / len : 1;
    const uy = len > 0 ? b / len : 0;
    let advance = 0;
    let fontScale = 0;
    let looseFar = Infinity;
    const upright = Math.abs(b) <= UPRIGHT * len && Math.abs(c) <= UPRIGHT * len && len > 0;
    if (hasLoose && upright) {
      // Loose box = the advance box (origin to origin + advance, font descent to ascent) united with the tight ink
      // box. Where the ink stops short of its far end, that end is the advance's; where the ink reaches it (an italic
      // or an f whose hook overhangs the next glyph) the advance is hidden, and the font's width gives it.
      looseFar = a > 0 ? looseRight - x : x - looseLeft;
      const inkFar = hasTight ? (a > 0 ? f64[9]! - x : x - f64[8]!) : looseFar;
      if (inkFar < looseFar - UPRIGHT * len) {
        advance = looseFar;
      } else {
        advance = widths.advance(textPage, i, code) * size * len;
        if (advance > 0 && advance <= looseFar + UPRIGHT * len) fontScale = size * len;
        else advance = looseFar;
      }
    } else {
      // Turned or slanted: the loose box is the axis-aligned box of a turned or sheared one, its width not the advance.
      advance = widths.advance(textPage, i, code) * size * len;
      if (!(advance > 0) && hasLoose && Math.abs(a) > 0.5 * len) advance = Math.abs(((looseRight - looseLeft) / a) * len);
      if (!(advance > 0) && hasTight) advance = tightAdvance(f64, ux, uy, x, y);
    }
    px = x;
    py = y;
    pLeft = looseLeft;
    pRight = looseRight;
    if (type3) {
      // PDFium's loose box of a Type3 glyph is its font's FontBBox through the FontMatrix (united with the glyph's
      // ink): across the baseline it is the glyph box, read exactly when the text is upright or turned a quarter.
      const extent = hasLoose && (upright || quarterTurned(a, b, c, d, len)) ? looseExtent(f32, x, y, c, d) : undefined;
      if (extent) extents.remember(textObject, [extent[0] / size, extent[1] / size]);
      const known = extent ?? extents.extent(textObject)?.map((e) => e * size);
      last = glyphs.add(unicode, position, x * ux + y * uy, ux, uy, c, d, x, y, advance, known?.[0] ?? below, known?.[1] ?? above);
    } else {
      last = glyphs.add(unicode, position, x * ux + y * uy, ux, uy, c, d, x, y, advance, below, above);
    }
    lastFontScale = fontScale;
    lastLooseFar = looseFar;
  }
  const builder = new PageTextBuilder(geo);
  glyphs.buildAll(builder);
  return { text: builder.finish(geo.pageNumber), unmapped, lost, visible };
}

/**
 * Whether PDFium read a page's text poorly: many of its characters come from fonts that give PDFium no Unicode (no
 * usable ToUnicode map, codes it cannot name), so it gives their codes as characters, where pdf.js and poppler fall
 * back on the font's glyph names and built-in tables and read the words. Such a page is read again with pdf.js.
 */
function readsPoorly(unmapped: number, lost: number, visible: number): boolean {
  return unmapped >= POOR_UNMAPPED_SHARE * visible && (unmapped >= POOR_MIN_UNMAPPED || lost > 0);
}

/**
 * A page reads poorly when this share of its characters come without Unicode, and at least this many do or one of them
 * is lost (a control character, no text: a ligature such as ﬀ that the font does not name).
 */
const POOR_MIN_UNMAPPED = 3;
const POOR_UNMAPPED_SHARE = 0.1;

/**
 * The position in the page's content of each of its text objects, drawn directly or inside form XObjects (whose
 * objects PDFium keeps in the form object, in the form's content order), as text object handle → position; or
 * TOO_DEEP when forms nest deeper than PDFium reads: its parser leaves a form at nesting level 41 empty, silently
 * (kMaxFormLevel), so the page's text may be incomplete.
 */
function contentOrder(pdfium: Pdfium, page: number): Map<number, number> | typeof TOO_DEEP {
  const raw = pdfium.pdfium.wasmExports;
  const order = new Map<number, number>();
  let tooDeep = false;
  const walk = (form: number, depth: number): void => {
    const count = form ? raw.FPDFFormObj_CountObjects(form) : raw.FPDFPage_CountObjects(page);
    for (let i = 0; i < count && !tooDeep; i++) {
      const object = form ? raw.FPDFFormObj_GetObject(form, i) : raw.FPDFPage_GetObject(page, i);
      const type = raw.FPDFPageObj_GetType(object);
      if (type === FPDF_PAGEOBJ_TEXT) order.set(object, order.size);
      else if (type === FPDF_PAGEOBJ_FORM) {
        if (depth + 1 > PDFIUM_MAX_FORM_LEVEL) tooDeep = true;
        else walk(object, depth + 1);
      }
    }
  };
  walk(0, 0);
  return tooDeep ? TOO_DEEP : order;
}

/** The deepest nesting of form XObjects whose content PDFium reads (kMaxFormLevel in cpdf_streamcontentparser.cpp). */
const PDFIUM_MAX_FORM_LEVEL = 40;
const TOO_DEEP = Symbol('too deep');

const FPDF_PAGEOBJ_TEXT = 1;
const FPDF_PAGEOBJ_FORM = 5;

/** Relative tolerance (of the em) for a matrix to count as unturned and unslanted, and for box edges to meet. */
const UPRIGHT = 1e-3;

/**
 * The fonts' advances of characters at font size 1, in text space, per font and character (0 when PDFium cannot tell).
 * PDFium gives a font's width by Unicode (it maps the character back to the font's code).
 */
class FontWidths {
  private readonly cache = new Map<number, number>();

  constructor(
    private readonly pdfium: Pdfium,
    private readonly at: number,
  ) {}

  advance(textPage: number, i: number, unicode: number): number {
    const raw = this.pdfium.pdfium.wasmExports;
    const object = raw.FPDFText_GetTextObject(textPage, i);
    const font = object ? raw.FPDFTextObj_GetFont(object) : 0;
    if (!font) return 0;
    const key = font * 0x110000 + unicode;
    let width = this.cache.get(key);
    if (width === undefined) {
      width = 0;
      if (raw.FPDFFont_GetGlyphWidth(font, unicode, 1, this.at)) {
        const w = new Float32Array(this.pdfium.pdfium.HEAPU8.buffer, this.at, 1)[0]!;
        if (Number.isFinite(w) && w > 0) width = w;
      }
      this.cache.set(key, width);
    }
    return width;
  }
}

/**
 * Type3 fonts and their glyph boxes. A Type3 font's glyph space is whatever its FontMatrix makes it, so the usual em
 * box (font size × 1) would be a fraction of a point or hundreds of points high: its glyph box across the baseline is
 * its FontBBox through its FontMatrix instead, which PDFium's loose character box holds. PDFium has no call that
 * names a font's type: a Type3 font is the one it calls embedded that has no font program.
 */
class Type3Fonts {
  private readonly type3 = new Map<number, boolean>();
  /** Per Type3 font, the last glyph box read at font size 1 in text space (bottom, top above the baseline). */
  private readonly extents = new Map<number, readonly [number, number]>();

  constructor(
    private readonly pdfium: Pdfium,
    private readonly at: number,
  ) {}

  isType3(textObject: number): boolean {
    const raw = this.pdfium.pdfium.wasmExports;
    const font = textObject ? raw.FPDFTextObj_GetFont(textObject) : 0;
    if (!font) return false;
    let known = this.type3.get(font);
    if (known === undefined) {
      known =
        raw.FPDFFont_GetIsEmbedded(font) === 1 &&
        raw.FPDFFont_GetFontData(font, 0, 0, this.at) === 1 &&
        new Uint32Array(this.pdfium.pdfium.HEAPU8.buffer, this.at, 1)[0] === 0;
      this.type3.set(font, known);
    }
    return known;
  }

  remember(textObject: number, extent: readonly [number, number]): void {
    const font = this.pdfium.pdfium.wasmExports.FPDFTextObj_GetFont(textObject);
    if (font) this.extents.set(font, extent);
  }

  /** The glyph box of the text object's Type3 font at font size 1, for a glyph whose own PDFium cannot give exactly. */
  extent(textObject: number): readonly [number, number] | undefined {
    const font = this.pdfium.pdfium.wasmExports.FPDFTextObj_GetFont(textObject);
    return font ? this.extents.get(font) : undefined;
  }
}

/** Whether the text matrix (a, b, c, d) turns text by a quarter (or three) without slanting it. */
function quarterTurned(a: number, b: number, c: number, d: number, len: number): boolean {
  return Math.abs(a) <= UPRIGHT * len && Math.abs(d) <= UPRIGHT * len && len > 0;
}

/**
 * The loose box (f32[0…3]: left, top, right, bottom, user space) across the baseline through origin (x, y), in text
 * space units along the text's y axis (c, d): its bottom and top, undefined when flat.
 */
function looseExtent(f32: Float32Array, x: number, y: number, c: number, d: number): readonly [number, number] | undefined {
  const norm = c * c + d * d;
  if (!(norm > 0)) return undefined;
  const along = (px: number, py: number): number => ((px - x) * c + (py - y) * d) / norm;
  const ys = [along(f32[0]!, f32[1]!), along(f32[2]!, f32[3]!), along(f32[0]!, f32[3]!), along(f32[2]!, f32[1]!)];
  const low = Math.min(...ys);
  const high = Math.max(...ys);
  return high - low > 0 ? [low, high] : undefined;
}

/** Last resort for the advance: the far end of the glyph's ink along the baseline (tight box at f64[8…11], user space). */
function tightAdvance(f64: Float64Array, ux: number, uy: number, x: number, y: number): number {
  const l = f64[8]!;
  const r = f64[9]!;
  const bottom = f64[10]!;
  const top = f64[11]!;
  let far = 0;
  for (const [cx, cy] of [
    [l, bottom],
    [l, top],
    [r, bottom],
    [r, top],
  ] as const) {
    far = Math.max(far, (cx - x) * ux + (cy - y) * uy);
  }
  return far;
}

/** Receives what {@link extractPdfiumDocument} reads, page by page. */
export interface PdfiumSink {
  /** The document is open and has this many pages; return false to stop (too many pages). */
  opened(pageCount: number): boolean;
  /**
   * A page's geometry, with its text when it was wanted; `needsPdfjs` instead when PDFium cannot read the page as pdf.js
   * does (forms nested deeper than it reads; a visible area it cannot tell): the page is to be read by the other engine.
   * `readPoorly` with a text: PDFium read it poorly (readsPoorly), the other engine is to read it if it can.
   */
  page(geo: PageGeometry, text: ExtractedText | undefined, needsPdfjs?: true, readPoorly?: true): void;
}

/**
 * Geometry of every page of `pdf` and the text of those in `textPages` (all when undefined), in page order. Stops
 * between pages when `signal.aborted`. With `share`, only every `of`-th page from page `index + 1` (threads that
 * share a document take turns, so heavy pages spread evenly).
 */
export function extractPdfiumDocument(
  pdfium: Pdfium,
  pdf: Uint8Array,
  textPages: ReadonlySet<number> | undefined,
  sink: PdfiumSink,
  signal?: { aborted: boolean },
  share: { of: number; index: number } = { of: 1, index: 0 },
): void {
  const opened = openPdfiumDocument(pdfium, pdf);
  try {
    if (!sink.opened(opened.pageCount)) return;
    for (let n = 1 + share.index; n <= opened.pageCount; n += share.of) {
      if (signal?.aborted) return;
      const { geo, text, needsPdfjs, readPoorly } = extractPdfiumPage(pdfium, opened, n, !textPages || textPages.has(n));
      sink.page(geo, text, needsPdfjs, readPoorly);
    }
  } finally {
    closePdfiumDocument(pdfium, opened);
  }
}

/** Anything thrown while extracting, as plain data that survives postMessage (see ExtractFailure). */
export function pdfiumFailure(error: unknown): { code: string; message: string; internal: boolean } {
  if (error instanceof PdfParseError) return { code: error.code, message: error.message, internal: false };
  const reason = error instanceof Error ? error.message : String(error);
  return { code: 'PDF_UNREADABLE', message: `The PDF cannot be read (${reason}): it may be damaged or truncated.`, internal: false };
}
