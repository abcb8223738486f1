/**
 * A phone or camera stores a photograph as its sensor saw it and records in the EXIF Orientation tag (1 to 8) how it
 * is to be turned or mirrored for display; browsers apply it. paraph re-encodes a logo without its EXIF
 * (logo-image.ts), so it applies the orientation to the pixels first, and the logo shows as it did on the uploader's
 * screen. Only this one tag is read, from the first IFD of the JPEG's APP1 Exif segment, with every offset checked:
 * an absent, damaged or odd EXIF block means orientation 1 (as stored), never a refusal. (A general EXIF reader
 * builds an array for every value the block claims: a 64 KB block can make it claim billions.)
 */

/** The EXIF Orientation values: 1 as stored, 2 mirrored, 3 turned half round, 4 flipped, 5-8 with width and height swapped. */
export type ExifOrientation = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

const ORIENTATION_TAG = 0x0112;
const TIFF_SHORT = 3;
const EXIF_HEADER = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]; // "Exif\0\0"

/** The orientation a JPEG's first Exif segment records; 1 when there is none or it cannot be read. */
export function readExifOrientation(jpeg: Uint8Array): ExifOrientation {
  let at = 2;
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff) {
    const marker = jpeg[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    // Metadata segments come before the image data; the first scan or the end of the image ends the search.
    if (marker === 0xda || marker === 0xd9) return 1;
    const length = (jpeg[at + 2]! << 8) | jpeg[at + 3]!;
    if (length < 2 || at + 2 + length > jpeg.length) return 1;
    const body = jpeg.subarray(at + 4, at + 2 + length);
    if (marker === 0xe1 && body.length >= EXIF_HEADER.length && EXIF_HEADER.every((b, i) => body[i] === b)) return orientationInTiff(body.subarray(EXIF_HEADER.length));
    at += 2 + length;
  }
  return 1;
}

/** The Orientation entry of the TIFF structure's first IFD, if it is one SHORT of 1 to 8. */
function orientationInTiff(tiff: Uint8Array): ExifOrientation {
  if (tiff.length < 8) return 1;
  const order = String.fromCharCode(tiff[0]!, tiff[1]!);
  if (order !== 'II' && order !== 'MM') return 1;
  const little = order === 'II';
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  if (view.getUint16(2, little) !== 42) return 1;
  const ifd = view.getUint32(4, little);
  if (ifd < 8 || ifd + 2 > tiff.length) return 1;
  const entries = view.getUint16(ifd, little);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) return 1;
    if (view.getUint16(entry, little) !== ORIENTATION_TAG) continue;
    if (view.getUint16(entry + 2, little) !== TIFF_SHORT || view.getUint32(entry + 4, little) !== 1) return 1;
    const value = view.getUint16(entry + 8, little);
    return value >= 1 && value <= 8 ? (value as ExifOrientation) : 1;
  }
  return 1;
}

/** RGBA pixels and their size. */
export interface RgbaImage {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** The image as it is displayed under `orientation`: turned and mirrored as the tag says; width and height swapped for 5 to 8. */
export function applyExifOrientation(image: RgbaImage, orientation: ExifOrientation): RgbaImage {
  if (orientation === 1) return image;
  const { width: w, height: h } = image;
  const swapped = orientation >= 5;
  const outWidth = swapped ? h : w;
  const outHeight = swapped ? w : h;
  // One 32-bit word a pixel; the copy keeps the view aligned whatever the input's offset.
  const source = new Uint32Array(image.data.slice(0, w * h * 4).buffer);
  const target = new Uint32Array(w * h);
  for (let y = 0; y < outHeight; y++) {
    for (let x = 0; x < outWidth; x++) {
      let sx: number;
      let sy: number;
      switch (orientation) {
        case 2: sx = w - 1 - x; sy = y; break;
        case 3: sx = w - 1 - x; sy = h - 1 - y; break;
        case 4: sx = x; sy = h - 1 - y; break;
        case 5: sx = y; sy = x; break;
        case 6: sx = y; sy = h - 1 - x; break;
        case 7: sx = w - 1 - y; sy = h - 1 - x; break;
        case 8: sx = w - 1 - y; sy = x; break;
      }
      target[y * outWidth + x] = source[sy * w + sx]!;
    }
  }
  return { width: outWidth, height: outHeight, data: new Uint8Array(target.buffer) };
}
