/**
 * The drawn signature a signer uploads is untrusted: a 250 KB PNG can claim 16000×16000 pixels and inflate to a
 * gigabyte, and an animated PNG (APNG) hides thousands of frames behind one small header, each of which a PDF
 * library would decode. A scribble is accepted only as what it is: one still, non-interlaced frame within
 * {@link SCRIBBLE_LIMITS}, made of the critical chunks (IHDR, PLTE, IDAT, IEND) plus chunks that only describe it
 * (text, time, physical size, the sRGB flag). Animation chunks (acTL, fcTL, fdAT), chunks that change the decoded
 * pixels (tRNS, gAMA, cHRM, iCCP, sBIT, cICP, …) and unknown chunks are refused.
 *
 * The header is checked first, at no cost ({@link readPngHeader}); the image data is inflated with an output limit of
 * exactly what the header needs; the pixels are re-encoded by {@link encodeRgbaPng} into a plain 8-bit RGBA PNG, so
 * what reaches the PDF is an image paraph wrote, never the signer's bytes. {@link normalizeScribblePng} is
 * synchronous and CPU-bound: the service runs it on a separate thread under a memory cap (normalize-scribble.ts).
 */
import { crc32, deflateSync, inflateSync } from 'node:zlib';
import { ServiceError } from '../service-error.js';

/** Limits of a scribble: room for a 2400 px wide pad on a high-density screen, and a budget of 2 million pixels. */
export const SCRIBBLE_LIMITS = { maxWidth: 2400, maxHeight: 1200, maxPixels: 2_000_000 } as const;

/** What the header says. */
export interface PngHeader {
  readonly width: number;
  readonly height: number;
  readonly bitDepth: number;
  readonly colorType: number;
  readonly interlaced: boolean;
}

/** A checked scribble, re-encoded: 8-bit RGBA, non-interlaced, only IHDR/IDAT/IEND. */
export interface NormalizedScribble {
  readonly png: Uint8Array;
  readonly width: number;
  readonly height: number;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Samples per pixel by colour type (W3C PNG Table 11.1), with the bit depths each allows. */
const COLOR_TYPES: Readonly<Record<number, { samples: number; depths: readonly number[] }>> = {
  0: { samples: 1, depths: [1, 2, 4, 8, 16] },
  2: { samples: 3, depths: [8, 16] },
  3: { samples: 1, depths: [1, 2, 4, 8] },
  4: { samples: 2, depths: [8, 16] },
  6: { samples: 4, depths: [8, 16] },
};
/** Chunks that only describe the image: skipped, and dropped by the re-encoding. */
const DESCRIPTIVE_CHUNKS: ReadonlySet<string> = new Set(['tEXt', 'zTXt', 'iTXt', 'tIME', 'pHYs', 'sRGB', 'bKGD', 'eXIf']);
const ANIMATION_CHUNKS: ReadonlySet<string> = new Set(['acTL', 'fcTL', 'fdAT']);

function refuse(reason: string): ServiceError {
  return new ServiceError('SCRIBBLE_INVALID', `Image: ${reason}`);
}

/**
 * Reads and checks the IHDR of `png` (the first chunk, right after the signature). Costs nothing whatever the image.
 *
 * @throws ServiceError `SCRIBBLE_INVALID` for a file that is not a PNG, a damaged header, or an image larger than
 *   {@link SCRIBBLE_LIMITS}.
 */
export function readPngHeader(png: Uint8Array): PngHeader {
  if (png.length < 33 || SIGNATURE.some((b, i) => png[i] !== b)) throw refuse('the drawn signature is not a PNG image.');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const type = String.fromCharCode(png[12]!, png[13]!, png[14]!, png[15]!);
  if (view.getUint32(8) !== 13 || type !== 'IHDR') throw refuse('the PNG image is damaged (it does not start with its header).');
  const header: PngHeader = {
    width: view.getUint32(16),
    height: view.getUint32(20),
    bitDepth: png[24]!,
    colorType: png[25]!,
    interlaced: png[28] === 1,
  };
  const color = COLOR_TYPES[header.colorType];
  if (header.width === 0 || header.height === 0 || color === undefined || !color.depths.includes(header.bitDepth) || png[26] !== 0 || png[27] !== 0 || png[28]! > 1) {
    throw refuse('the PNG image is damaged (its header is not valid).');
  }
  const { maxWidth, maxHeight, maxPixels } = SCRIBBLE_LIMITS;
  if (header.width > maxWidth || header.height > maxHeight || header.width * header.height > maxPixels) {
    throw refuse(
      `the drawn signature is ${header.width}×${header.height} pixels; at most ${maxWidth}×${maxHeight} pixels ` +
        `(${maxPixels.toLocaleString('en-US')} in all) are accepted. Send a smaller image.`,
    );
  }
  if (header.interlaced) throw refuse('interlaced PNG images are not accepted; send a non-interlaced PNG.');
  return header;
}

/** Bytes of one packed row (without its filter byte). */
function rowBytes(header: PngHeader): number {
  return Math.ceil((header.width * COLOR_TYPES[header.colorType]!.samples * header.bitDepth) / 8);
}

/** Bytes the image data of a non-interlaced image inflates to: per row a filter byte plus the packed samples. */
export function inflatedSize(header: PngHeader): number {
  return header.height * (1 + rowBytes(header));
}

/** The chunks of `png` after IHDR, checked against what a scribble may hold. */
function readChunks(png: Uint8Array): { palette?: Uint8Array; data: Uint8Array[] } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const data: Uint8Array[] = [];
  let palette: Uint8Array | undefined;
  let dataEnded = false;
  for (let at = 33; ; ) {
    if (at + 12 > png.length) throw refuse('the PNG image is damaged (a chunk is cut off).');
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    if (at + 12 + length > png.length) throw refuse('the PNG image is damaged (a chunk is cut off).');
    const body = png.subarray(at + 8, at + 8 + length);
    at += 12 + length;
    if (type === 'IEND') break;
    if (type === 'IDAT') {
      if (dataEnded) throw refuse('the PNG image is damaged (its image data is split by other chunks).');
      data.push(body);
      continue;
    }
    if (data.length > 0) dataEnded = true;
    if (ANIMATION_CHUNKS.has(type)) throw refuse('animated PNG images are not accepted; send one still image of the signature.');
    if (type === 'PLTE') {
      if (palette !== undefined || data.length > 0 || length % 3 !== 0 || length === 0 || length > 768) throw refuse('the PNG image is damaged (its palette is not valid).');
      palette = body;
      continue;
    }
    if (!DESCRIPTIVE_CHUNKS.has(type)) {
      throw refuse(`the PNG image holds a "${type.replace(/[^\x20-\x7e]/g, '?')}" chunk, which a drawn signature does not need; send a plain PNG image.`);
    }
  }
  return { ...(palette !== undefined ? { palette } : {}), data };
}

/** Undoes the PNG row filters (W3C PNG §9) in place; `raw` holds per row a filter byte and `stride` bytes. */
function unfilter(raw: Uint8Array, height: number, stride: number, bytesPerPixel: number): Uint8Array {
  const out = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bytesPerPixel ? out[row + x - bytesPerPixel]! : 0;
      const b = y > 0 ? out[prev + x]! : 0;
      const c = y > 0 && x >= bytesPerPixel ? out[prev + x - bytesPerPixel]! : 0;
      const value = raw[src + x]!;
      switch (filter) {
        case 0: out[row + x] = value; break;
        case 1: out[row + x] = value + a; break;
        case 2: out[row + x] = value + b; break;
        case 3: out[row + x] = value + ((a + b) >> 1); break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          out[row + x] = value + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default: throw refuse('the PNG image data is damaged (a row has an unknown filter).');
      }
    }
  }
  return out;
}

/** The unfiltered samples as 8-bit RGBA. */
function toRgba(header: PngHeader, pixels: Uint8Array, stride: number, palette: Uint8Array | undefined): Uint8Array {
  const { width, height, bitDepth, colorType } = header;
  const samples = COLOR_TYPES[colorType]!.samples;
  const rgba = new Uint8Array(width * height * 4);
  const max = (1 << Math.min(bitDepth, 8)) - 1;
  const sample = (row: number, index: number): number => {
    if (bitDepth === 8) return pixels[row + index]!;
    if (bitDepth === 16) return pixels[row + index * 2]!;
    const bit = index * bitDepth;
    return (pixels[row + (bit >> 3)]! >> (8 - bitDepth - (bit & 7))) & max;
  };
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      const s = x * samples;
      if (colorType === 3) {
        const index = sample(row, s);
        if (palette === undefined || index * 3 + 2 >= palette.length) throw refuse('the PNG image is damaged (a pixel is not in its palette).');
        rgba.set([palette[index * 3]!, palette[index * 3 + 1]!, palette[index * 3 + 2]!, 255], o);
        continue;
      }
      const scale = (v: number): number => (bitDepth < 8 ? Math.round((v * 255) / max) : v);
      if (colorType === 0 || colorType === 4) {
        const grey = scale(sample(row, s));
        rgba.set([grey, grey, grey, colorType === 4 ? sample(row, s + 1) : 255], o);
      } else {
        rgba.set([sample(row, s), sample(row, s + 1), sample(row, s + 2), colorType === 6 ? sample(row, s + 3) : 255], o);
      }
    }
  }
  return rgba;
}

/** A PNG chunk with its length and CRC. */
function chunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  out.set(Buffer.from(type, 'latin1'), 4);
  out.set(body, 8);
  view.setUint32(8 + body.length, crc32(out.subarray(4, 8 + body.length)));
  return out;
}

/** Encodes 8-bit RGBA pixels as a plain PNG: IHDR (colour type 6, not interlaced), one IDAT, IEND. */
function encodeRgbaPng(width: number, height: number, rgba: Uint8Array): Uint8Array {
  const stride = width * 4;
  const raw = new Uint8Array(height * (stride + 1));
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, width);
  new DataView(ihdr.buffer).setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from(SIGNATURE), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', new Uint8Array())]);
}

/**
 * Checks a scribble PNG (header, chunks, image data inflated with a limit of exactly what the header needs), decodes
 * its one frame and re-encodes it with {@link encodeRgbaPng}. Synchronous: run it off the serving thread.
 *
 * @throws ServiceError `SCRIBBLE_INVALID` (400) saying what is wrong.
 */
export function normalizeScribblePng(png: Uint8Array): NormalizedScribble {
  const header = readPngHeader(png);
  const { palette, data } = readChunks(png);
  if (data.length === 0) throw refuse('the PNG image is damaged (no image data or no end).');
  if (header.colorType === 3 && palette === undefined) throw refuse('the PNG image is damaged (its palette is missing).');
  const expected = inflatedSize(header);
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(data), { maxOutputLength: expected });
  } catch (error) {
    const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw refuse(tooLarge ? 'the PNG image data is larger than its header says; send an image that is not damaged.' : 'the PNG image data is damaged.');
  }
  if (raw.length !== expected) throw refuse('the PNG image data is damaged (it does not fill the image).');
  const stride = rowBytes(header);
  const bytesPerPixel = Math.max(1, (COLOR_TYPES[header.colorType]!.samples * header.bitDepth) >> 3);
  const rgba = toRgba(header, unfilter(raw, header.height, stride, bytesPerPixel), stride, palette);
  return { png: encodeRgbaPng(header.width, header.height, rgba), width: header.width, height: header.height };
}
