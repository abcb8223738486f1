/**
 * The byte-level look at an account's logo the serving process may take (logo-image.ts says what is accepted and why):
 * what the content is (PNG or JPEG by its signature; anything else refused), its size from the PNG header or the JPEG
 * frame header, checked against {@link LOGO_LIMITS} before anything is decoded, and a JPEG's segments walked to its
 * end-of-image marker. No image library is loaded here.
 */
import { ServiceError } from '../service-error.js';

/** Limits of a logo: the file size, each side and the pixel count. */
export const LOGO_LIMITS = { maxBytes: 256 * 1024, maxSide: 2048, maxPixels: 2_000_000 } as const;

/** What we serve a logo as. */
export type LogoContentType = 'image/png' | 'image/jpeg';

/** A checked logo. */
export interface NormalizedLogo {
  readonly bytes: Uint8Array;
  readonly contentType: LogoContentType;
  readonly width: number;
  readonly height: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function refuse(reason: string): ServiceError {
  return new ServiceError('LOGO_INVALID', `Logo: ${reason}`);
}

function checkSize(width: number, height: number): void {
  const { maxSide, maxPixels } = LOGO_LIMITS;
  if (width === 0 || height === 0) throw refuse('the image has no pixels.');
  if (width > maxSide || height > maxSide || width * height > maxPixels) {
    throw refuse(`the image is ${width}×${height} pixels; at most ${maxSide} pixels a side and ${maxPixels.toLocaleString('en-US')} in all are accepted. Send a smaller logo.`);
  }
}

/** What a logo's content says it is: its kind, its size from the header, and where the image ends (a JPEG's end-of-image marker). */
export interface LogoHeader {
  readonly contentType: LogoContentType;
  readonly width: number;
  readonly height: number;
  readonly end: number;
}

/** What a logo's content says it is; nothing decoded. @throws ServiceError `LOGO_INVALID`, `LOGO_TOO_LARGE`. */
export function readLogoHeader(bytes: Uint8Array): LogoHeader {
  if (bytes.length > LOGO_LIMITS.maxBytes) throw new ServiceError('LOGO_TOO_LARGE', `Logo: ${bytes.length} bytes; at most ${LOGO_LIMITS.maxBytes} (256 KiB) are accepted.`);
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) {
    if (bytes.length < 33) throw refuse('the PNG image is truncated.');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const type = String.fromCharCode(bytes[12]!, bytes[13]!, bytes[14]!, bytes[15]!);
    if (view.getUint32(8) !== 13 || type !== 'IHDR') throw refuse('the PNG image is damaged (it does not start with its header).');
    const width = view.getUint32(16);
    const height = view.getUint32(20);
    checkSize(width, height);
    // An interlaced image's data is inflated by pngjs without a bound; a logo has no need of interlacing.
    if (bytes[28] !== 0) throw refuse('the PNG image is interlaced; save it without interlacing.');
    return { contentType: 'image/png', width, height, end: bytes.length };
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return { contentType: 'image/jpeg', ...walkJpeg(bytes) };
  }
  throw refuse('not a PNG or JPEG image (judged by its content; SVG, GIF, WebP and other formats are not accepted).');
}

/** Start-of-frame markers of the JPEG processes browsers decode: baseline, extended and progressive Huffman. */
const FRAME_MARKERS: ReadonlySet<number> = new Set([0xc0, 0xc1, 0xc2]);
/**
 * A progressive JPEG may split its coefficients over any number of scans, each costing a pass over the whole image
 * when decoded: a small file of thousands of scans is a CPU bomb. Encoders write about ten.
 */
const MAX_SCANS = 64;
/** Other start-of-frame markers (lossless, hierarchical, arithmetic): refused. */
const OTHER_FRAME_MARKERS: ReadonlySet<number> = new Set([0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/**
 * Walks the JPEG's segments from SOI to EOI: every segment's length inside the file, one frame header (SOF0/1/2)
 * before the first scan, scans' entropy-coded data skipped up to the next marker, at most {@link MAX_SCANS} scans.
 * Bytes after EOI (padding some cameras write, or a file appended to the image) are left out of the decoding, and
 * so out of the logo paraph re-encodes.
 */
function walkJpeg(bytes: Uint8Array): { width: number; height: number; end: number } {
  const truncated = (): ServiceError => refuse('the JPEG image is truncated or damaged (it does not end with its end-of-image marker).');
  let at = 2;
  let frame: { width: number; height: number } | undefined;
  let scans = 0;
  for (;;) {
    if (at + 1 >= bytes.length) throw truncated();
    if (bytes[at] !== 0xff) throw refuse('the JPEG image is damaged (data where a marker belongs).');
    let marker = bytes[at + 1]!;
    // Fill bytes (0xFF repeated) may precede a marker.
    while (marker === 0xff) {
      at++;
      if (at + 1 >= bytes.length) throw truncated();
      marker = bytes[at + 1]!;
    }
    at += 2;
    if (marker === 0xd9) {
      if (frame === undefined || scans === 0) throw refuse('the JPEG image has no image data.');
      return { ...frame, end: at };
    }
    if (marker === 0xd8 || marker === 0x00 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) throw refuse('the JPEG image is damaged (a marker out of place).');
    if (at + 2 > bytes.length) throw truncated();
    const length = (bytes[at]! << 8) | bytes[at + 1]!;
    if (length < 2 || at + length > bytes.length) throw truncated();
    if (OTHER_FRAME_MARKERS.has(marker)) throw refuse('the JPEG image uses a coding browsers do not all show (lossless, hierarchical or arithmetic); save it as a baseline JPEG or a PNG.');
    if (FRAME_MARKERS.has(marker)) {
      if (frame !== undefined || length < 8) throw refuse('the JPEG image is damaged (a second or short frame header).');
      const height = (bytes[at + 3]! << 8) | bytes[at + 4]!;
      const width = (bytes[at + 5]! << 8) | bytes[at + 6]!;
      const components = bytes[at + 7]!;
      if (components !== 1 && components !== 3 && components !== 4) throw refuse('the JPEG image is damaged (its frame header names no valid colour components).');
      if (length !== 8 + 3 * components) throw refuse('the JPEG image is damaged (its frame header has the wrong length).');
      checkSize(width, height);
      frame = { width, height };
    }
    at += length;
    if (marker === 0xda) {
      if (frame === undefined) throw refuse('the JPEG image is damaged (image data before its frame header).');
      scans++;
      if (scans > MAX_SCANS) throw refuse(`the JPEG image has more than ${MAX_SCANS} scans; save it as a baseline JPEG or a PNG.`);
      // Entropy-coded data: runs until a marker other than a stuffed zero or a restart marker.
      for (;;) {
        if (at + 1 >= bytes.length) throw truncated();
        if (bytes[at] === 0xff) {
          const next = bytes[at + 1]!;
          if (next !== 0x00 && !(next >= 0xd0 && next <= 0xd7) && next !== 0xff) break;
        }
        at++;
      }
    }
  }
}
