/**
 * An account's logo is untrusted bytes that every signer's browser and mail client will render, so it is accepted
 * only as what it claims to be, judged by its content (never a file name or Content-Type): a PNG or a baseline or
 * progressive JPEG. SVG (a document that can carry script), GIF, WebP, HTML and everything else are refused. The
 * header is read first at no cost and its size checked against {@link LOGO_LIMITS}, so a small file claiming
 * 100000×100000 pixels (a decompression bomb) is refused before anything is inflated.
 *
 * Then the image is decoded in full and re-encoded, so what is stored and served is an image paraph wrote, never the
 * uploaded bytes. A PNG is decoded by pngjs (chunk checksums, the image data inflated to exactly the size its header
 * needs, the end chunk present) and written as a plain RGBA PNG without animation, text or metadata chunks. A JPEG has
 * its marker structure walked first (a truncated file, junk between segments, a frame header out of bounds or too many
 * progressive scans is refused), is decoded by jpeg-js under a pixel and a memory cap, turned as its EXIF Orientation
 * tag says (exif-orientation.ts: a phone photograph shows as it did on the uploader's screen once its EXIF is gone; the
 * width and height returned are those displayed), and written as a baseline JPEG without EXIF, ICC, comments or
 * anything after its end: a JPEG stays a JPEG because the same pixels as a PNG come out several times larger
 * (photographic noise does not deflate). What is stored is held to the upload's cap (LOGO_LIMITS.maxBytes): a JPEG is
 * written at quality 90, or lower in steps down to 60 ({@link JPEG_QUALITIES}) until it fits; a JPEG that fits at none
 * of them, or a PNG whose RGBA rewrite does not fit, is refused with LOGO_TOO_LARGE. {@link normalizeLogo} is
 * synchronous and CPU-bound: the service runs it in a PDF process (normalize-logo.ts); the serving process takes only
 * the header's look (logo-header.ts).
 */
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { ServiceError } from '../service-error.js';
import { applyExifOrientation, readExifOrientation } from './exif-orientation.js';
import { LOGO_LIMITS, readLogoHeader, refuse, type LogoHeader, type NormalizedLogo } from './logo-header.js';

/**
 * The qualities a JPEG is re-encoded at, tried in turn until the result fits {@link LOGO_LIMITS}: the first is high
 * enough that edges and flat colours show no visible loss; the lower ones let a noisy photograph uploaded at a low
 * quality (which comes out larger at a high one) still fit. Below the last, the loss would show: refused.
 */
const JPEG_QUALITIES = [90, 80, 70, 60] as const;

/**
 * Checks `bytes` as a logo and returns what is to be stored: the image decoded and re-encoded by paraph.
 *
 * @throws ServiceError `LOGO_INVALID` saying what is wrong, `LOGO_TOO_LARGE` past 256 KiB (LOGO_LIMITS in logo-header.ts),
 *   as uploaded or as re-encoded.
 */
export function normalizeLogo(bytes: Uint8Array): NormalizedLogo {
  const header = readLogoHeader(bytes);
  if (header.contentType === 'image/jpeg') return reencodeJpeg(bytes, header);
  let decoded: PNG;
  try {
    decoded = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { checkCRC: true });
  } catch (error) {
    throw refuse(`the PNG image is damaged or truncated (${error instanceof Error ? error.message : 'unreadable'}).`);
  }
  if (decoded.width !== header.width || decoded.height !== header.height) throw refuse('the PNG image is damaged (its size changes while it is read).');
  const png = PNG.sync.write(decoded, { colorType: 6, inputColorType: 6, bitDepth: 8, inputHasAlpha: true, deflateLevel: 9 });
  if (png.byteLength > LOGO_LIMITS.maxBytes) throw tooLargeOnceWritten('PNG', png.byteLength);
  return { bytes: new Uint8Array(png.buffer, png.byteOffset, png.byteLength), contentType: 'image/png', width: header.width, height: header.height };
}

function reencodeJpeg(bytes: Uint8Array, header: LogoHeader): NormalizedLogo {
  let decoded: { width: number; height: number; data: Uint8Array };
  try {
    decoded = jpeg.decode(bytes.subarray(0, header.end), {
      useTArray: true,
      formatAsRGBA: true,
      tolerantDecoding: false,
      maxResolutionInMP: LOGO_LIMITS.maxPixels / 1_000_000,
      // jpeg-js counts 4 bytes a coefficient for each of up to 4 components, and the RGBA output: ~48 MB at 2 MP.
      maxMemoryUsageInMB: Math.ceil((LOGO_LIMITS.maxPixels * 24) / (1024 * 1024)),
    });
  } catch (error) {
    throw refuse(`the JPEG image is damaged or cannot be decoded (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (decoded.width !== header.width || decoded.height !== header.height) throw refuse('the JPEG image is damaged (its size changes while it is read).');
  const shown = applyExifOrientation(decoded, readExifOrientation(bytes.subarray(0, header.end)));
  let smallest = Infinity;
  for (const quality of JPEG_QUALITIES) {
    const written = jpeg.encode({ width: shown.width, height: shown.height, data: shown.data }, quality).data;
    if (written.byteLength <= LOGO_LIMITS.maxBytes) {
      return { bytes: new Uint8Array(written.buffer, written.byteOffset, written.byteLength), contentType: 'image/jpeg', width: shown.width, height: shown.height };
    }
    smallest = Math.min(smallest, written.byteLength);
  }
  throw tooLargeOnceWritten('JPEG', smallest);
}

/** The stored logo is held to the upload's cap: what paraph writes may come out larger than what was sent. */
function tooLargeOnceWritten(kind: 'PNG' | 'JPEG', bytes: number): ServiceError {
  return new ServiceError(
    'LOGO_TOO_LARGE',
    `Logo: re-encoded by paraph this ${kind} image comes to ${bytes} bytes, more than the ${LOGO_LIMITS.maxBytes} (256 KiB) a logo may take (noise and fine detail compress badly). Send a smaller image: fewer pixels (a logo needs a few hundred a side), a plainer picture, or a photograph as a JPEG.`,
  );
}
