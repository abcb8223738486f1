/**
 * A small flowing-page layout for the evidential receipt: headings, wrapped paragraphs and tables whose
 * cells wrap long values (hashes, user agents, e-mail addresses) and whose rows continue on the next page with the
 * header repeated, so that nothing ever runs outside the page and a 10,000-entry audit trail stays fast.
 *
 * Text is measured and encoded one character at a time with a per-font cache instead of through pdf-lib's
 * `drawText` (which runs a full OpenType layout per call, ~0.2 ms: 30 s for a 10,000-entry trail). Without layout
 * there is no kerning and no ligatures; that keeps measured and drawn widths identical and extracted text literal.
 */
import { deflateSync } from 'node:zlib';
import { PDFName, type PDFDocument, type PDFFont, type PDFPage } from '../pdf/pdf-lib.js';

/** A4 portrait, in points. */
export const A4: readonly [number, number] = [595.28, 841.89];

/** The two faces the layout writes with (embedded with subsetting by the caller). */
export interface LayoutFonts {
  readonly regular: PDFFont;
  readonly bold: PDFFont;
}

/** Style of a run of text. */
export interface TextStyle {
  readonly size: number;
  readonly bold?: boolean;
  /** Grey level 0 (black) … 1 (white). */
  readonly grey?: number;
}

/** A table column: its header text, its width in points and the style of its body cells. */
export interface TableColumn {
  readonly header: string;
  readonly width: number;
  readonly style?: Partial<TextStyle>;
}

/** Options of {@link ReceiptLayout.table}. */
export interface TableOptions {
  readonly size: number;
  /** Fill every second body row lightly. */
  readonly zebra?: boolean;
  /** Draw the header row (and repeat it after page breaks). Default true. */
  readonly header?: boolean;
}

const PAD_X = 4;
const PAD_Y = 3;
const LINE = 1.28; // line height as a multiple of the font size
const RULE_GREY = 0.78;
/** Drawn for characters the font cannot show (DejaVu Sans has U+FFFD). */
const REPLACEMENT = '\ufffd';

interface Glyph {
  readonly hex: string;
  /** Advance at size 1. */
  readonly width: number;
}

/**
 * What a font program answers the same for every document: the characters it has and their advances. Keyed by the
 * font's character set, one array per parsed font (fonts.ts parses each bundled face once).
 */
interface FontMetrics {
  readonly supported: Set<number>;
  readonly widths: Map<string, number>;
}

const fontMetrics = new WeakMap<readonly number[], FontMetrics>();

function metricsOf(font: PDFFont): FontMetrics {
  const characterSet = font.getCharacterSet();
  let metrics = fontMetrics.get(characterSet);
  if (metrics === undefined) fontMetrics.set(characterSet, (metrics = { supported: new Set(characterSet), widths: new Map() }));
  return metrics;
}

/** Measures and encodes text of one font, one character at a time, with a cache. */
class GlyphCache {
  private readonly glyphs = new Map<string, Glyph>();
  private readonly supported: Set<number>;
  private readonly widths: Map<string, number>;

  constructor(readonly font: PDFFont) {
    ({ supported: this.supported, widths: this.widths } = metricsOf(font));
  }

  /**
   * Replaces what cannot be shown: control characters, and white space the font has no glyph for (U+3000, …), by a
   * space; other characters without a glyph by U+FFFD.
   */
  clean(text: string): string {
    let out = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp === 0x2028 || cp === 0x2029) out += ' ';
      else if (!this.supported.has(cp)) out += /\s/u.test(ch) ? ' ' : REPLACEMENT;
      else out += ch;
    }
    return out;
  }

  private glyph(ch: string): Glyph {
    let glyph = this.glyphs.get(ch);
    if (glyph === undefined) {
      try {
        // encodeText also registers the glyph (and its Unicode value) with the font subset.
        const hex = this.font.encodeText(ch).asString();
        let width = this.widths.get(ch);
        if (width === undefined) this.widths.set(ch, (width = this.font.widthOfTextAtSize(ch, 1)));
        glyph = { hex, width };
      } catch (error) {
        // fontkit's universal shaper (Tifinagh, …) needs a global regeneratorRuntime we must not install.
        if (ch === REPLACEMENT) throw error;
        glyph = this.glyph(REPLACEMENT);
      }
      this.glyphs.set(ch, glyph);
    }
    return glyph;
  }

  /** Width of cleaned `text` at `size`. */
  width(text: string, size: number): number {
    let w = 0;
    for (const ch of text) w += this.glyph(ch).width;
    return w * size;
  }

  /** Hex glyph codes of cleaned `text` for a `Tj` operator. */
  hex(text: string): string {
    let out = '';
    for (const ch of text) out += this.glyph(ch).hex;
    return out;
  }

  /**
   * Breaks cleaned `text` into lines no wider than `max` points: at spaces when it can, inside a word when the
   * word alone is too wide (hashes, e-mail addresses). Keeps explicit line breaks.
   */
  wrap(text: string, size: number, max: number): string[] {
    const lines: string[] = [];
    for (const paragraph of text.split('\n')) {
      const clean = this.clean(paragraph);
      let line = '';
      let lineWidth = 0;
      const spaceWidth = this.width(' ', size);
      for (const word of clean.split(' ')) {
        const wordWidth = this.width(word, size);
        const joined = line === '' ? wordWidth : lineWidth + spaceWidth + wordWidth;
        if (joined <= max) {
          line = line === '' ? word : `${line} ${word}`;
          lineWidth = joined;
          continue;
        }
        if (line !== '') lines.push(line);
        if (wordWidth <= max) {
          line = word;
          lineWidth = wordWidth;
          continue;
        }
        line = '';
        lineWidth = 0;
        for (const ch of word) {
          const w = this.width(ch, size);
          if (lineWidth + w > max && line !== '') {
            lines.push(line);
            line = '';
            lineWidth = 0;
          }
          line += ch;
          lineWidth += w;
        }
      }
      lines.push(line);
    }
    return lines;
  }
}

const num = (n: number): string => (Math.round(n * 100) / 100).toString();

/**
 * Lays out content top to bottom over as many pages as it needs. Call the content methods in reading order, then
 * {@link ReceiptLayout.finish} once to write the content streams and footers.
 */
export class ReceiptLayout {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
  private readonly pages: { page: PDFPage; ops: string[] }[] = [];
  private y = 0;
  private readonly regular: GlyphCache;
  private readonly bold: GlyphCache;
  /** Re-draws the current table's header after a page break. */
  private repeatHeader: (() => void) | undefined;

  constructor(
    private readonly doc: PDFDocument,
    fonts: LayoutFonts,
    size: readonly [number, number] = A4,
    margin = 50,
  ) {
    [this.width, this.height] = size;
    this.left = margin;
    this.right = this.width - margin;
    this.top = this.height - margin;
    this.bottom = margin + 24; // room for the footer
    this.regular = new GlyphCache(fonts.regular);
    this.bold = new GlyphCache(fonts.bold);
    this.newPage();
  }

  /** Width available between the margins. */
  get contentWidth(): number {
    return this.right - this.left;
  }

  /** Number of pages so far. */
  get pageCount(): number {
    return this.pages.length;
  }

  private cache(style: Partial<TextStyle>): GlyphCache {
    return style.bold ? this.bold : this.regular;
  }

  private get ops(): string[] {
    return this.pages[this.pages.length - 1]!.ops;
  }

  /** Starts a new page (and repeats the current table header on it). */
  newPage(): void {
    const page = this.doc.addPage([this.width, this.height]);
    this.pages.push({ page, ops: [] });
    this.y = this.top;
    this.repeatHeader?.();
  }

  /** Moves to a new page unless `height` points still fit on this one. */
  keepTogether(height: number): void {
    if (this.y - height < this.bottom) this.newPage();
  }

  /** Vertical space. */
  space(height: number): void {
    this.y -= height;
  }

  private text(x: number, baseline: number, line: string, style: TextStyle): void {
    if (line === '') return;
    const font = style.bold ? '/F2' : '/F1';
    this.ops.push(`BT ${font} ${num(style.size)} Tf ${num(style.grey ?? 0.08)} g ${num(x)} ${num(baseline)} Td <${this.cache(style).hex(line)}> Tj ET`);
  }

  private fill(x: number, y: number, w: number, h: number, grey: number): void {
    this.ops.push(`${num(grey)} g ${num(x)} ${num(y)} ${num(w)} ${num(h)} re f`);
  }

  private rule(x1: number, y: number, x2: number, grey: number, width = 0.5): void {
    this.ops.push(`${num(width)} w ${num(grey)} G ${num(x1)} ${num(y)} m ${num(x2)} ${num(y)} l S`);
  }

  /** Width of `text` in `style`, as it will be drawn. */
  measure(text: string, style: TextStyle): number {
    const cache = this.cache(style);
    return cache.width(cache.clean(text), style.size);
  }

  /** The lines `text` wraps into at `width` points, as paragraphs and table cells draw them. */
  wrap(text: string, style: TextStyle, width: number): string[] {
    return this.cache(style).wrap(text, style.size, width);
  }

  /** A wrapped paragraph over the full width (or `width` from `indent`). */
  paragraph(text: string, style: TextStyle, indent = 0): void {
    const lines = this.cache(style).wrap(text, style.size, this.contentWidth - indent);
    const lh = style.size * LINE;
    for (const line of lines) {
      if (this.y - lh < this.bottom) this.newPage();
      this.y -= lh;
      this.text(this.left + indent, this.y + style.size * 0.25, line, style);
    }
  }

  /** A heading with a rule under it, kept on the same page as the next `keepWith` points of content. */
  heading(text: string, size: number, keepWith = 60): void {
    const style: TextStyle = { size, bold: true, grey: 0.05 };
    const lines = this.bold.wrap(text, size, this.contentWidth);
    this.keepTogether(lines.length * size * LINE + 8 + keepWith);
    this.space(size * 0.5);
    this.paragraph(text, style);
    this.space(3);
    this.rule(this.left, this.y, this.right, 0.35, 0.8);
    this.space(6);
  }

  /** A small bold caption kept on the same page as the first `keepWith` points of what follows. */
  caption(text: string, keepWith = 40): void {
    this.keepTogether(9 * LINE + keepWith);
    this.paragraph(text, { size: 9, bold: true, grey: 0.2 });
    this.space(2);
  }

  /**
   * A table. Rows never split unless one is taller than a whole page; a row that does not fit goes to the next
   * page, where the header is drawn again.
   */
  table(columns: readonly TableColumn[], rows: readonly (readonly string[])[], options: TableOptions): void {
    const size = options.size;
    const lh = size * LINE;
    const headerStyle: TextStyle = { size, bold: true, grey: 0.2 };
    const x: number[] = [];
    let edge = this.left;
    for (const column of columns) {
      x.push(edge);
      edge += column.width;
    }
    const tableWidth = edge - this.left;
    const drawHeader = (): void => {
      const lines = columns.map((c) => this.bold.wrap(c.header, size, c.width - 2 * PAD_X));
      const height = Math.max(...lines.map((l) => l.length)) * lh + 2 * PAD_Y;
      this.fill(this.left, this.y - height, tableWidth, height, 0.9);
      lines.forEach((cell, i) =>
        cell.forEach((line, j) => this.text(x[i]! + PAD_X, this.y - PAD_Y - (j + 1) * lh + size * 0.28, line, headerStyle)),
      );
      this.y -= height;
      this.rule(this.left, this.y, this.left + tableWidth, 0.45, 0.6);
    };
    const withHeader = options.header !== false;
    const headerHeight = withHeader ? Math.max(...columns.map((c) => this.bold.wrap(c.header, size, c.width - 2 * PAD_X).length)) * lh + 2 * PAD_Y : 0;
    this.keepTogether(headerHeight + lh + 2 * PAD_Y);
    if (withHeader) {
      drawHeader();
      this.repeatHeader = drawHeader;
    }
    rows.forEach((row, r) => {
      const styles = columns.map((c): TextStyle => ({ size, grey: 0.08, ...c.style }));
      const cells = columns.map((c, i) => this.cache(styles[i]!).wrap(row[i] ?? '', size, c.width - 2 * PAD_X));
      const total = Math.max(...cells.map((c) => c.length));
      const pageCapacity = Math.floor((this.top - headerHeight - this.bottom - 2 * PAD_Y) / lh);
      if (total <= pageCapacity && this.y - total * lh - 2 * PAD_Y < this.bottom) this.newPage();
      let from = 0;
      while (from < total) {
        let fit = Math.floor((this.y - this.bottom - 2 * PAD_Y) / lh);
        if (fit < 1) {
          this.newPage();
          fit = Math.floor((this.y - this.bottom - 2 * PAD_Y) / lh);
        }
        const to = Math.min(total, from + fit);
        const height = (to - from) * lh + 2 * PAD_Y;
        if (options.zebra && r % 2 === 1) this.fill(this.left, this.y - height, tableWidth, height, 0.965);
        cells.forEach((cell, i) => {
          for (let j = from; j < to && j < cell.length; j++) {
            this.text(x[i]! + PAD_X, this.y - PAD_Y - (j - from + 1) * lh + size * 0.28, cell[j]!, styles[i]!);
          }
        });
        this.y -= height;
        this.rule(this.left, this.y, this.left + tableWidth, RULE_GREY, 0.4);
        from = to;
        if (from < total) this.newPage();
      }
    });
    this.repeatHeader = undefined;
  }

  /** A two-column label/value table over the full width. */
  keyValues(rows: readonly (readonly [string, string])[], size = 8.5, labelWidth = 138): void {
    this.table(
      [
        { header: '', width: labelWidth, style: { bold: true, grey: 0.3 } },
        { header: '', width: this.contentWidth - labelWidth },
      ],
      rows,
      { size, header: false },
    );
  }

  /**
   * Writes every page's content stream, with a rule and a footer (`left` text, `right` text such as "page 2 of 9")
   * at the bottom. Call once, after all content.
   */
  finish(footer: (page: number, pages: number) => { left: string; right: string }): void {
    const total = this.pages.length;
    const style: TextStyle = { size: 7, grey: 0.4 };
    this.pages.forEach(({ page, ops }, i) => {
      const { left, right } = footer(i + 1, total);
      const baseline = this.bottom - 20;
      ops.push(`${num(0.5)} w ${num(0.6)} G ${num(this.left)} ${num(baseline + 10)} m ${num(this.right)} ${num(baseline + 10)} l S`);
      const rightText = this.regular.clean(right);
      const rightWidth = this.regular.width(rightText, style.size);
      const leftLines = this.regular.wrap(left, style.size, this.contentWidth - rightWidth - 12);
      const text = (tx: number, line: string): void => {
        if (line !== '') ops.push(`BT /F1 ${num(style.size)} Tf ${num(style.grey!)} g ${num(tx)} ${num(baseline)} Td <${this.regular.hex(line)}> Tj ET`);
      };
      text(this.left, leftLines[0] ?? '');
      text(this.right - rightWidth, rightText);
      // node:zlib rather than pdf-lib's flateStream (pako in JavaScript): a third of the build time at 10,000 entries.
      const stream = this.doc.context.stream(deflateSync(Buffer.from(ops.join('\n'), 'latin1')), { Filter: 'FlateDecode' });
      page.node.addContentStream(this.doc.context.register(stream));
      page.node.setFontDictionary(PDFName.of('F1'), this.regular.font.ref);
      page.node.setFontDictionary(PDFName.of('F2'), this.bold.font.ref);
    });
  }
}
