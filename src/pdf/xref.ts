/**
 * Cross-reference sections and the objects a reader sees at one revision (ISO 32000-2 §7.5.4 xref tables, §7.5.8
 * xref streams, §7.5.8.4 hybrid files, §7.5.7 object streams, §7.4.4.4 PNG/TIFF predictors). Verification must see
 * what a viewer sees, so every object is resolved through the xref chain of its revision (`startxref`, `/Prev`,
 * `/XRefStm`), never by scanning the file for `N G obj`.
 */
import { inflateSync, constants as zlibConstants } from 'node:zlib';
import {
  PDFArray,
  PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFObjectParser,
  PDFRawStream,
  decodePDFRawStream,
  type PDFObject,
} from './pdf-lib.js';
import { PdfParseError } from '../errors.js';

/** Where a cross-reference entry says an object lives. */
export type XrefEntry =
  | { readonly kind: 'free' }
  | { readonly kind: 'offset'; readonly offset: number; readonly generation: number }
  | { readonly kind: 'compressed'; readonly stream: number; readonly index: number };

/** One cross-reference section: a table (with its trailer) or an xref stream (its dictionary is the trailer). */
export interface XrefSection {
  readonly offset: number;
  readonly kind: 'table' | 'stream';
  readonly entries: ReadonlyMap<number, XrefEntry>;
  readonly trailer: PDFDict;
  /** Where readers could read this section differently (an object listed twice with different entries). */
  readonly ambiguities: readonly string[];
  /** Table entries that are not exactly 20 bytes: some readers reject the table and rebuild it by scanning. */
  readonly malformedEntries: number;
}

/** An entry as text, for messages. */
function describeEntry(entry: XrefEntry | undefined): string {
  if (!entry || entry.kind === 'free') return 'free';
  return entry.kind === 'offset' ? `offset ${entry.offset}` : `object stream ${entry.stream} index ${entry.index}`;
}

function sameEntry(a: XrefEntry, b: XrefEntry): boolean {
  return describeEntry(a) === describeEntry(b);
}

const EXACT_ENTRY = /^\d{10} \d{5} [fn](?: \r| \n|\r\n)$/;

function unreadable(detail: string): PdfParseError {
  return new PdfParseError('PDF_XREF_UNREADABLE', `The cross-reference data cannot be read: ${detail}.`);
}

function isWhite(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
}

function intOf(dict: PDFDict, key: string): number | undefined {
  const value = dict.get(PDFName.of(key));
  return value instanceof PDFNumber && Number.isInteger(value.asNumber()) ? value.asNumber() : undefined;
}

/** Undoes a PNG (10–15) or TIFF (2) predictor, ISO 32000-2 §7.4.4.4. */
export function undoPredictor(data: Uint8Array, params: PDFDict | undefined): Uint8Array {
  const predictor = params ? (intOf(params, 'Predictor') ?? 1) : 1;
  if (predictor <= 1 || !params) return data;
  const colors = intOf(params, 'Colors') ?? 1;
  const bits = intOf(params, 'BitsPerComponent') ?? 8;
  const columns = intOf(params, 'Columns') ?? 1;
  const bpp = Math.max(1, Math.ceil((colors * bits) / 8));
  const rowLength = Math.ceil((colors * bits * columns) / 8);
  if (predictor === 2) {
    if (bits !== 8) throw unreadable(`TIFF predictor with ${bits} bits per component is not supported`);
    const out = Uint8Array.from(data);
    for (let row = 0; row + rowLength <= out.length; row += rowLength) {
      for (let i = bpp; i < rowLength; i++) out[row + i] = (out[row + i]! + out[row + i - bpp]!) & 0xff;
    }
    return out;
  }
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowLength + 1)]!;
    const src = r * (rowLength + 1) + 1;
    const dst = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const raw = data[src + i]!;
      const left = i >= bpp ? out[dst + i - bpp]! : 0;
      const up = r > 0 ? out[dst - rowLength + i]! : 0;
      const upLeft = r > 0 && i >= bpp ? out[dst - rowLength + i - bpp]! : 0;
      let value: number;
      switch (type) {
        case 0: value = raw; break;
        case 1: value = raw + left; break;
        case 2: value = raw + up; break;
        case 3: value = raw + ((left + up) >> 1); break;
        case 4: {
          const p = left + up - upLeft;
          const pa = Math.abs(p - left);
          const pb = Math.abs(p - up);
          const pc = Math.abs(p - upLeft);
          value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
          break;
        }
        default: throw unreadable(`unknown PNG predictor row type ${type}`);
      }
      out[dst + i] = value & 0xff;
    }
  }
  return out;
}

function asList(value: PDFObject | undefined): (PDFObject | undefined)[] {
  if (value instanceof PDFArray) return value.asArray();
  return value === undefined ? [] : [value];
}

/** The decoded data of a stream, predictors undone (pdf-lib's decoders ignore /DecodeParms). */
function decodeStream(stream: PDFRawStream): Uint8Array {
  const filters = asList(stream.dict.get(PDFName.of('Filter')));
  const params = asList(stream.dict.get(PDFName.of('DecodeParms')));
  const onlyFlate = filters.every((f) => f instanceof PDFName && (f.decodeText() === 'FlateDecode' || f.decodeText() === 'Fl'));
  if (!onlyFlate) return decodePDFRawStream(stream).decode();
  let data: Uint8Array = stream.getContents();
  filters.forEach((_, i) => {
    // Tolerate a missing Adler-32 trailer, as readers do.
    data = inflateSync(data, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    const param = params[i];
    data = undoPredictor(data, param instanceof PDFDict ? param : undefined);
  });
  return data;
}

const OBJECT_HEADER = /^\s*(\d+)\s+(\d+)\s+obj\b/;

/** Parses the indirect object at `offset`; undefined when object `expected` (if given) is not defined there. */
export function parseIndirectObjectAt(pdf: Uint8Array, offset: number, expected?: number): { objectNumber: number; object: PDFObject } | undefined {
  if (!Number.isInteger(offset) || offset < 0 || offset >= pdf.length) return undefined;
  const head = OBJECT_HEADER.exec(Buffer.from(pdf.buffer, pdf.byteOffset + offset, Math.min(48, pdf.length - offset)).toString('latin1'));
  if (!head) return undefined;
  const objectNumber = Number(head[1]);
  if (expected !== undefined && objectNumber !== expected) return undefined;
  try {
    return { objectNumber, object: PDFObjectParser.forBytes(pdf.subarray(offset + head[0].length), PDFContext.create()).parseObject() };
  } catch {
    return undefined;
  }
}

function readTable(pdf: Uint8Array, offset: number): XrefSection {
  const buf = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  let pos = offset;
  while (isWhite(buf[pos])) pos++;
  pos += 4; // "xref"
  const entries = new Map<number, XrefEntry>();
  const ambiguities: string[] = [];
  let malformedEntries = 0;
  const lineRe = /^[ \t\r\n\f\0]*(\d+)[ \t]+(\d+)[ \t]*(?:([fn])[ \t]*)?(?=[\r\n])/;
  const entryRe = /^[ \t\r\n\f\0]*(\d{1,10})[ \t]+(\d{1,5})[ \t]+([fn])/;
  for (;;) {
    const window = buf.toString('latin1', pos, Math.min(pos + 64, buf.length));
    if (/^[ \t\r\n\f\0]*trailer/.test(window)) {
      pos += window.indexOf('trailer') + 7;
      break;
    }
    const sub = lineRe.exec(window);
    if (!sub || sub[3] !== undefined) throw unreadable(`the xref table at offset ${offset} has a malformed subsection header`);
    const first = Number(sub[1]);
    const count = Number(sub[2]);
    pos += sub[0].length;
    for (let k = 0; k < count; k++) {
      const entry = entryRe.exec(buf.toString('latin1', pos, Math.min(pos + 40, buf.length)));
      if (!entry) throw unreadable(`the xref table at offset ${offset} has a malformed entry for object ${first + k}`);
      const start = pos + entry[0].length - entry[0].trimStart().length;
      if (!EXACT_ENTRY.test(buf.toString('latin1', start, start + 20))) malformedEntries++;
      pos += entry[0].length;
      const n = first + k;
      const parsed: XrefEntry = entry[3] === 'f' ? { kind: 'free' } : { kind: 'offset', offset: Number(entry[1]), generation: Number(entry[2]) };
      const earlier = entries.get(n);
      if (earlier) {
        if (!sameEntry(earlier, parsed)) {
          ambiguities.push(`object ${n} is listed twice in the xref table at offset ${offset}: ${describeEntry(earlier)} for a reader that takes the first entry, ${describeEntry(parsed)} for one that takes the last`);
        }
        continue;
      }
      entries.set(n, parsed);
    }
  }
  let trailer: PDFObject;
  try {
    trailer = PDFObjectParser.forBytes(pdf.subarray(pos), PDFContext.create()).parseObject();
  } catch {
    throw unreadable(`the trailer of the xref table at offset ${offset} cannot be parsed`);
  }
  if (!(trailer instanceof PDFDict)) throw unreadable(`the trailer of the xref table at offset ${offset} is not a dictionary`);
  return { offset, kind: 'table', entries, trailer, ambiguities, malformedEntries };
}

function readStream(pdf: Uint8Array, offset: number): XrefSection {
  const parsed = parseIndirectObjectAt(pdf, offset);
  const stream = parsed?.object;
  if (!(stream instanceof PDFRawStream) || stream.dict.get(PDFName.of('Type')) !== PDFName.of('XRef')) {
    throw unreadable(`offset ${offset} holds no cross-reference table or stream`);
  }
  const dict = stream.dict;
  const widths = dict.get(PDFName.of('W'));
  const w = widths instanceof PDFArray ? widths.asArray().map((x) => (x instanceof PDFNumber ? x.asNumber() : -1)) : [];
  if (w.length !== 3 || w.some((x) => !Number.isInteger(x) || x < 0 || x > 8)) throw unreadable(`the xref stream at offset ${offset} has an invalid /W`);
  const size = intOf(dict, 'Size') ?? 0;
  const indexObj = dict.get(PDFName.of('Index'));
  const index = indexObj instanceof PDFArray ? indexObj.asArray().map((x) => (x instanceof PDFNumber ? x.asNumber() : -1)) : [0, size];
  let data: Uint8Array;
  try {
    data = decodeStream(stream);
  } catch (error) {
    if (error instanceof PdfParseError) throw error;
    throw unreadable(`the xref stream at offset ${offset} cannot be decoded`);
  }
  const rowLength = w[0]! + w[1]! + w[2]!;
  const field = (at: number, width: number): number => {
    let value = 0;
    for (let i = 0; i < width; i++) value = value * 256 + data[at + i]!;
    return value;
  };
  const entries = new Map<number, XrefEntry>();
  const ambiguities: string[] = [];
  let row = 0;
  for (let s = 0; s + 1 < index.length; s += 2) {
    const first = index[s]!;
    const count = index[s + 1]!;
    for (let k = 0; k < count; k++, row++) {
      const at = row * rowLength;
      if (at + rowLength > data.length) throw unreadable(`the xref stream at offset ${offset} is shorter than its /Index says`);
      const type = w[0] === 0 ? 1 : field(at, w[0]!);
      const f2 = field(at + w[0]!, w[1]!);
      const f3 = field(at + w[0]! + w[1]!, w[2]!);
      const n = first + k;
      const earlier = entries.get(n);
      if (earlier) {
        const parsed: XrefEntry = type === 1 ? { kind: 'offset', offset: f2, generation: f3 } : type === 2 ? { kind: 'compressed', stream: f2, index: f3 } : { kind: 'free' };
        if (!sameEntry(earlier, parsed)) {
          ambiguities.push(`object ${n} is listed twice in the xref stream at offset ${offset}: ${describeEntry(earlier)} for a reader that takes the first entry, ${describeEntry(parsed)} for one that takes the last`);
        }
        continue;
      }
      if (type === 0) entries.set(n, { kind: 'free' });
      else if (type === 1) entries.set(n, { kind: 'offset', offset: f2, generation: f3 });
      else if (type === 2) entries.set(n, { kind: 'compressed', stream: f2, index: f3 });
      // Other types are reserved: readers treat the object as null (absent).
    }
  }
  return { offset, kind: 'stream', entries, trailer: dict, ambiguities, malformedEntries: 0 };
}

/** Reads the cross-reference section (table or stream) at `offset`. Throws PdfParseError `PDF_XREF_UNREADABLE`. */
function readXrefSection(pdf: Uint8Array, offset: number): XrefSection {
  if (!Number.isInteger(offset) || offset < 0 || offset >= pdf.length) throw unreadable(`offset ${offset} is outside the file`);
  let at = offset;
  while (isWhite(pdf[at])) at++;
  if (Buffer.from(pdf.buffer, pdf.byteOffset + at, Math.min(4, pdf.length - at)).toString('latin1') === 'xref') return readTable(pdf, offset);
  return readStream(pdf, offset);
}

/** A stable identity of where an entry's object is stored (equal keys: the same bytes). */
export type EntryKey = string;

/**
 * The objects of a document as a reader sees them when the file ends after one revision: the merged entries of
 * the xref chain that starts at `startxref` (newer sections win; a hybrid table's `/XRefStm` entries come right
 * after its own), and a resolver that parses each object once.
 */
export class XrefView {
  /** In-use and free entries, by object number (object 0 excluded). */
  readonly entries = new Map<number, XrefEntry>();
  /** The newest trailer of the chain. */
  readonly trailer: PDFDict;
  /** Offsets of the sections of the chain, newest first. */
  readonly sectionOffsets: number[] = [];
  /** Where readers could resolve an object of this chain differently; each names the object and the readings. */
  readonly ambiguities: string[] = [];
  /** Table entries of the chain that are not exactly 20 bytes. */
  malformedEntries = 0;
  private readonly cache = new Map<number, PDFObject | null>();

  constructor(
    private readonly pdf: Uint8Array,
    startxref: number,
    private readonly objectStreams: ObjectStreamCache,
    sectionCache: Map<number, XrefSection>,
  ) {
    const read = (offset: number): XrefSection => {
      let section = sectionCache.get(offset);
      if (!section) sectionCache.set(offset, (section = readXrefSection(pdf, offset)));
      return section;
    };
    const first = read(startxref);
    this.trailer = first.trailer;
    const visited = new Set<number>();
    let current: XrefSection | undefined = first;
    while (current && !visited.has(current.offset)) {
      visited.add(current.offset);
      this.sectionOffsets.push(current.offset);
      this.merge(current);
      this.ambiguities.push(...current.ambiguities);
      this.malformedEntries += current.malformedEntries;
      const xrefStm = current.kind === 'table' ? intOf(current.trailer, 'XRefStm') : undefined;
      if (xrefStm !== undefined && !visited.has(xrefStm)) {
        visited.add(xrefStm);
        const hybrid = read(xrefStm);
        this.ambiguities.push(...hybrid.ambiguities);
        // A reader of xref tables only sees the table; one that prefers the stream sees the stream: they must agree.
        for (const [n, entry] of hybrid.entries) {
          const inTable = current.entries.get(n);
          if (inTable && inTable.kind !== 'free' && entry.kind !== 'free' && !sameEntry(inTable, entry)) {
            this.ambiguities.push(`object ${n}: the hybrid file's xref table at offset ${current.offset} says ${describeEntry(inTable)}, its /XRefStm at offset ${xrefStm} says ${describeEntry(entry)}`);
          }
        }
        this.merge(hybrid);
      }
      const prev = intOf(current.trailer, 'Prev');
      current = prev === undefined ? undefined : read(prev);
    }
    this.entries.delete(0);
  }

  private merge(section: XrefSection): void {
    for (const [n, entry] of section.entries) if (!this.entries.has(n)) this.entries.set(n, entry);
  }

  /** Where object `n` is stored, as a comparable key (undefined when it is free or absent). */
  keyOf(n: number): EntryKey | undefined {
    const entry = this.entries.get(n);
    if (!entry || entry.kind === 'free') return undefined;
    if (entry.kind === 'offset') return `${entry.offset}`;
    const streamKey = this.entries.get(entry.stream);
    return streamKey?.kind === 'offset' ? `${streamKey.offset}:${entry.index}` : `?${entry.stream}:${entry.index}`;
  }

  /** Whether object `n` is in use at this revision. */
  has(n: number): boolean {
    return this.keyOf(n) !== undefined;
  }

  /** Object `n` as a reader sees it at this revision, or undefined (free, absent, or not where its entry says). */
  get(n: number): PDFObject | undefined {
    const cached = this.cache.get(n);
    if (cached !== undefined) return cached ?? undefined;
    const object = this.resolve(n);
    this.cache.set(n, object ?? null);
    return object;
  }

  private resolve(n: number): PDFObject | undefined {
    const entry = this.entries.get(n);
    if (!entry || entry.kind === 'free') return undefined;
    if (entry.kind === 'offset') return parseIndirectObjectAt(this.pdf, entry.offset, n)?.object;
    const container = this.entries.get(entry.stream);
    if (container?.kind !== 'offset') return undefined;
    return this.objectStreams.objectAt(container.offset, entry.stream, entry.index, n);
  }
}

/** Decoded object streams, shared by the views of all revisions of one file. */
export class ObjectStreamCache {
  private readonly streams = new Map<number, { numbers: number[]; objects: (PDFObject | undefined)[] } | null>();
  /** Object streams holding one object number twice with different objects (readers pick different ones). */
  readonly ambiguities: string[] = [];

  constructor(private readonly pdf: Uint8Array) {}

  objectAt(offset: number, streamNumber: number, index: number, expected: number): PDFObject | undefined {
    let decoded = this.streams.get(offset);
    if (decoded === undefined) {
      decoded = this.decode(offset, streamNumber) ?? null;
      this.streams.set(offset, decoded);
    }
    if (!decoded || decoded.numbers[index] !== expected) return undefined;
    return decoded.objects[index];
  }

  private decode(offset: number, streamNumber: number): { numbers: number[]; objects: (PDFObject | undefined)[] } | undefined {
    const stream = parseIndirectObjectAt(this.pdf, offset, streamNumber)?.object;
    if (!(stream instanceof PDFRawStream) || stream.dict.get(PDFName.of('Type')) !== PDFName.of('ObjStm')) return undefined;
    const count = intOf(stream.dict, 'N');
    const first = intOf(stream.dict, 'First');
    if (count === undefined || first === undefined) return undefined;
    let data: Uint8Array;
    try {
      data = decodeStream(stream);
    } catch {
      return undefined;
    }
    const header = Buffer.from(data.buffer, data.byteOffset, Math.min(first, data.length)).toString('latin1').trim().split(/\s+/).map(Number);
    const numbers: number[] = [];
    const objects: (PDFObject | undefined)[] = [];
    for (let i = 0; i < count; i++) {
      const n = header[2 * i];
      const at = header[2 * i + 1];
      if (n === undefined || at === undefined || !Number.isInteger(n) || !Number.isInteger(at)) break;
      numbers.push(n);
      try {
        objects.push(PDFObjectParser.forBytes(data.subarray(first + at), PDFContext.create()).parseObject());
      } catch {
        objects.push(undefined);
      }
    }
    const firstIndex = new Map<number, number>();
    numbers.forEach((n, i) => {
      const j = firstIndex.get(n) ?? i;
      if (j === i) firstIndex.set(n, i);
      else if (String(objects[j]) !== String(objects[i])) {
        this.ambiguities.push(`object ${n} is defined twice in object stream ${streamNumber} (indexes ${j} and ${i}, with different values): readers that look an object up by its number take different ones`);
      }
    });
    return { numbers, objects };
  }
}
