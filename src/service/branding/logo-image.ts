/**
 * An account's logo is untrusted bytes that every signer's browser and mail client will render, so it is accepted
 * only as what it claims to be, judged by its content (never a file name or Content-Type): a PNG or a baseline or
 * progressive JPEG. SVG (a document that can carry script), GIF, WebP, HTML and everything else are refused. The
 * header is read first at no cost and its size checked against {@link LOGO_LIMITS}, so a small file claiming
 * 100000×100000 pixels (a decompression bomb) is refused before anything is inflated.
 *
 * A PNG is then decoded in full by pngjs (chunk checksums, the image data inflated to exactly the size its header
 * needs, the end chunk present) and re-encoded: what is stored and served is a plain RGBA PNG paraph wrote, without
 * animation, text or metadata chunks. A JPEG has its marker structure walked to the end-of-image marker (a truncated
 * file, junk between segments or a frame header out of bounds is refused); its bytes are kept as they are, since
 * re-encoding would lose quality, and its compressed data is left to the browsers' decoders, which are hardened
 * against damaged scans. {@link normalizeLogo} is synchronous and CPU-bound: the service runs it in a PDF process
 * (normalize-logo.ts); the serving process takes only the header's look (logo-header.ts).
 */
import { PNG } from 'pngjs';
import { readLogoHeader, refuse, type NormalizedLogo } from './logo-header.js';

/**
 * Checks `bytes` as a logo and returns what is to be stored: a re-encoded PNG, or the JPEG as it came.
 *
 * @throws ServiceError `LOGO_INVALID` saying what is wrong, `LOGO_TOO_LARGE` past 256 KiB (LOGO_LIMITS in logo-header.ts).
 */
export function normalizeLogo(bytes: Uint8Array): NormalizedLogo {
  const header = readLogoHeader(bytes);
  if (header.contentType === 'image/jpeg') return { bytes, ...header };
  let decoded: PNG;
  try {
    decoded = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { checkCRC: true });
  } catch (error) {
    throw refuse(`the PNG image is damaged or truncated (${error instanceof Error ? error.message : 'unreadable'}).`);
  }
  if (decoded.width !== header.width || decoded.height !== header.height) throw refuse('the PNG image is damaged (its size changes while it is read).');
  const png = PNG.sync.write(decoded, { colorType: 6, inputColorType: 6, bitDepth: 8, inputHasAlpha: true, deflateLevel: 9 });
  return { bytes: new Uint8Array(png.buffer, png.byteOffset, png.byteLength), contentType: 'image/png', width: header.width, height: header.height };
}
