/**
 * Collecting one page's characters into the text index's per-page form (text-index/text-index.ts): normalized text (ligatures
 * expanded, control characters dropped, a single space at word and line breaks) and encoded per-character reader
 * boxes. Shared by the text engines (pdf.js: text-index/pdfjs-extract.ts, PDFium: text-index/pdfium-extract.ts), so both produce
 * exactly the same structure.
 */
import { type PageGeometry, userPointToReader } from '../page-geometry.js';
import { isBidiNeutral, leadingGroupStart, moveGroupBehindRun } from '../bidi-neutrals.js';
import { bigramSignature } from './bigrams.js';
import { foldForSearch } from '../search-folding.js';
import { encodeBoxes } from './boxes.js';

/** One page's extracted text: normalized string plus its encoded per-character boxes (see text-index/boxes.ts). */
export interface ExtractedText {
  pageNumber: number;
  text: string;
  boxes: Uint8Array;
  /** Bigram signatures of the text and of the text without spaces (text-index/bigrams.ts). */
  signature: Uint32Array;
  compactSignature: Uint32Array;
}

/** Box below the baseline, in em: the box spans baseline − 0.2 em … baseline + 0.8 em (height = font size). */
export const EM_BELOW = 0.2;
export const EM_ABOVE = 0.8;
/** A gap wider than this many em between two glyphs on a line is a word break (poppler uses 0.1 too). */
const WORD_GAP_EM = 0.1;
/** A baseline shift of more than this many em starts a new line. */
const LINE_SHIFT_EM = 0.5;

/** Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic and their presentation forms: written right to left. */
const RIGHT_TO_LEFT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;
/** Combining marks of those scripts (points, vowel signs): they stay with the letter before them. */
const RTL_MARK = /[\u0591-\u05C7\u0610-\u061A\u064B-\u065F\u0670\u06D6-\u06ED]/;
const WHITESPACE = /^\s+$/;

const glyphTexts = new Map<string, string>();

/** `WHITESPACE.test(text)`, without the regular expression for the usual one-character ASCII glyph. */
export function isWhitespace(text: string): boolean {
  if (text.length === 1) {
    const c = text.charCodeAt(0);
    if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  }
  return WHITESPACE.test(text);
}

/** Glyph text normalized the way search expects (search-folding.ts): ligatures and presentation forms as base letters. */
export function glyphText(unicode: string): string {
  if (unicode.length === 1) {
    const c = unicode.charCodeAt(0);
    if (c >= 0x20 && c < 0x7f) return unicode; // printable ASCII, most glyphs: nothing to normalize
  }
  let text = glyphTexts.get(unicode);
  if (text === undefined) {
    text = foldForSearch(unicode);
    if (glyphTexts.size < 65536) glyphTexts.set(unicode, text);
  }
  return text;
}

/** Collects characters and their reader boxes, inserting single spaces at word and line breaks. */
export class PageTextBuilder {
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
   * Adds one glyph's text. A glyph of right-to-left text that stands for several characters (ﻻ: lam, alef) gives its
   * first character the right end of its box, as a reader sees it. `m0…m5` map glyph-local text space (x along the advance, y up from the baseline, already
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
    const rtl = n > 1 && RIGHT_TO_LEFT.test(text);
    for (let k = 0; k < n; k++) {
      // A glyph that stands for several characters (a ligature) is split evenly among them.
      const part = rtl ? n - 1 - k : k;
      const x0 = (advance * part) / n;
      const x1 = (advance * (part + 1)) / n;
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

  /**
   * Puts every run of right-to-left text on a line into reading order (logical order, as users type it): from the
   * rightmost character to the leftmost. PDFs usually draw such text in visual order (left to right), and an engine
   * hands its characters over in drawing order; a run already in reading order stays as it is. A run is right-to-left
   * letters with the spaces and marks between them, on one line (centres within half a box height); a digit or a
   * Latin letter ends it.
   */
  private rightToLeftInReadingOrder(): void {
    const { chars, boxes } = this;
    let i = 0;
    while (i < this.count) {
      if (!RIGHT_TO_LEFT.test(chars[i]!) || Number.isNaN(boxes[i * 4]!)) {
        i++;
        continue;
      }
      let last = i;
      let end = i + 1;
      while (end < this.count) {
        const ch = chars[end]!;
        if (ch === ' ') {
          end++;
          continue;
        }
        if (isBidiNeutral(ch)) {
          // Punctuation between two right-to-left letters of the line belongs to the run (bidi-neutrals.ts).
          let next = end + 1;
          while (next < this.count && (chars[next] === ' ' || isBidiNeutral(chars[next]!))) next++;
          if (next < this.count && RIGHT_TO_LEFT.test(chars[next]!) && this.onLine(last, end) && this.onLine(last, next)) {
            end = next;
            continue;
          }
        }
        if (!RIGHT_TO_LEFT.test(ch) || Number.isNaN(boxes[end * 4]!) || !this.sameLine(last, end)) break;
        last = end++;
      }
      if (last > i) this.sortRun(i, last + 1);
      const lead = leadingGroupStart(chars, i, (k) => this.onLine(i, k));
      if (lead < i) moveGroupBehindRun(chars, boxes, lead, i, last + 1);
      i = last + 1;
    }
  }

  private onLine(a: number, b: number): boolean {
    return !Number.isNaN(this.boxes[b * 4]!) && this.sameLine(a, b);
  }

  private sameLine(a: number, b: number): boolean {
    const { boxes } = this;
    const height = Math.max(boxes[a * 4 + 3]! - boxes[a * 4 + 1]!, 1e-6);
    const centreA = (boxes[a * 4 + 1]! + boxes[a * 4 + 3]!) / 2;
    const centreB = (boxes[b * 4 + 1]! + boxes[b * 4 + 3]!) / 2;
    return Math.abs(centreA - centreB) <= height / 2;
  }

  /** Orders `[from, to)` from right to left by box centre; a space sits between its neighbours, a mark after its letter. */
  private sortRun(from: number, to: number): void {
    const { chars, boxes } = this;
    const keys: number[] = [];
    for (let k = from; k < to; k++) {
      const left = boxes[k * 4]!;
      if (Number.isNaN(left)) keys.push(Number.NaN);
      else if (RTL_MARK.test(chars[k]!) && k > from && !Number.isNaN(keys[k - from - 1]!)) keys.push(keys[k - from - 1]! - 1e-9);
      else keys.push((left + boxes[k * 4 + 2]!) / 2);
    }
    for (let k = 0; k < keys.length; k++) {
      if (!Number.isNaN(keys[k]!)) continue;
      const before = keys[k - 1]!;
      let after = k + 1;
      while (Number.isNaN(keys[after]!)) after++;
      keys[k] = (before + keys[after]!) / 2;
    }
    const order = keys.map((_, k) => k).sort((a, b) => keys[b]! - keys[a]! || a - b);
    if (order.every((k, at) => k === at)) return;
    const runChars = order.map((k) => chars[from + k]!);
    const runBoxes = Float64Array.from(order.flatMap((k) => [boxes[(from + k) * 4]!, boxes[(from + k) * 4 + 1]!, boxes[(from + k) * 4 + 2]!, boxes[(from + k) * 4 + 3]!]));
    for (let k = 0; k < runChars.length; k++) chars[from + k] = runChars[k]!;
    boxes.set(runBoxes, from * 4);
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
    this.rightToLeftInReadingOrder();
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
