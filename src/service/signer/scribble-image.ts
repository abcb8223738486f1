/**
 * The drawn signature a signer uploads (Scribble, docs/design/signer-api.md) is untrusted: a 250 KB PNG can claim
 * 16000×16000 pixels and inflate to a gigabyte. This module checks the PNG's header (W3C PNG §11.2.2 IHDR)
 * against a size cap and a pixel budget BEFORE anything is decoded, then inflates the image data with zlib on the
 * thread pool (never the serving thread) with an output limit equal to what the header's size needs, so a stream
 * that inflates to more is refused at the limit, not after. Only a PNG that passes both reaches pdf-lib, whose own
 * decoding is then bounded by the cap.
 */
import { promisify } from 'node:util';
import { inflate } from 'node:zlib';
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

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Samples per pixel by colour type (W3C PNG Table 11.1), with the bit depths each allows. */
const COLOR_TYPES: Readonly<Record<number, { samples: number; depths: readonly number[] }>> = {
  0: { samples: 1, depths: [1, 2, 4, 8, 16] },
  2: { samples: 3, depths: [8, 16] },
  3: { samples: 1, depths: [1, 2, 4, 8] },
  4: { samples: 2, depths: [8, 16] },
  6: { samples: 4, depths: [8, 16] },
};
const inflateAsync = promisify(inflate);

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
  return header;
}

/** Bytes the image data inflates to: per row a filter byte plus the packed samples, per Adam7 pass when interlaced. */
export function inflatedSize(header: PngHeader): number {
  const bitsPerPixel = (COLOR_TYPES[header.colorType]?.samples ?? 4) * header.bitDepth;
  const rows = (width: number, height: number): number => (width === 0 || height === 0 ? 0 : height * (1 + Math.ceil((width * bitsPerPixel) / 8)));
  if (!header.interlaced) return rows(header.width, header.height);
  // Adam7 passes: [x start, x step, y start, y step].
  const passes = [[0, 8, 0, 8], [4, 8, 0, 8], [0, 4, 4, 8], [2, 4, 0, 4], [0, 2, 2, 4], [1, 2, 0, 2], [0, 1, 1, 2]] as const;
  return passes.reduce((sum, [x0, dx, y0, dy]) => sum + rows(Math.ceil((header.width - x0) / dx), Math.ceil((header.height - y0) / dy)), 0);
}

/**
 * Checks a scribble PNG: the header first ({@link readPngHeader}), then the chunks, then the image data inflated on
 * zlib's thread pool with an output limit of exactly what the header needs.
 *
 * @throws ServiceError `SCRIBBLE_INVALID` (400) saying what is wrong.
 */
export async function checkScribblePng(png: Uint8Array): Promise<PngHeader> {
  const header = readPngHeader(png);
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const data: Uint8Array[] = [];
  let ended = false;
  for (let at = 8; at < png.length; ) {
    if (at + 12 > png.length) throw refuse('the PNG image is damaged (a chunk is cut off).');
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    if (at + 12 + length > png.length) throw refuse('the PNG image is damaged (a chunk is cut off).');
    if (type === 'IDAT') data.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
    if (type === 'IEND') {
      ended = true;
      break;
    }
  }
  if (!ended || data.length === 0) throw refuse('the PNG image is damaged (no image data or no end).');
  const expected = inflatedSize(header);
  let pixels: Buffer;
  try {
    pixels = await inflateAsync(Buffer.concat(data), { maxOutputLength: expected });
  } catch (error) {
    const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw refuse(tooLarge ? 'the PNG image data is larger than its header says; send an image that is not damaged.' : 'the PNG image data is damaged.');
  }
  if (pixels.length !== expected) throw refuse('the PNG image data is damaged (it does not fill the image).');
  return header;
}
