/**
 * A JPEG logo carrying an EXIF Orientation tag is stored as it is displayed: turned or mirrored as the tag says, width
 * and height those shown, since the stored logo has no EXIF left to say it. An EXIF block that is absent, damaged or
 * odd leaves the pixels as stored and refuses nothing.
 */
import fc from 'fast-check';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { normalizeLogo } from '../../../src/service/branding/logo-image.js';

const W = 48;
const H = 32;
const BLOCK = 16;
type Rgb = readonly [number, number, number];
const RED: Rgb = [230, 20, 20];
const GREEN: Rgb = [20, 200, 20];
/** Every other 16-pixel block grey, so no corner but the two named ones is red or green. */
const GREY: Rgb = [128, 128, 128];

/** A 48×32 JPEG whose top-left block is red and top-right block green, the rest grey (blocks on JPEG's 8-pixel grid). */
function cornerJpeg(): Buffer {
  const data = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const colour = y < BLOCK && x < BLOCK ? RED : y < BLOCK && x >= W - BLOCK ? GREEN : GREY;
      data.set([...colour, 255], (y * W + x) * 4);
    }
  }
  return Buffer.from(jpeg.encode({ width: W, height: H, data }, 95).data);
}

/** An APP1 Exif segment: the TIFF header in the byte order given, then IFD0 holding `entries` (tag, type, count, value). */
function exifSegment(order: 'II' | 'MM', entries: readonly (readonly [number, number, number, number])[]): Buffer {
  const tiff = Buffer.alloc(8 + 2 + entries.length * 12 + 4);
  const little = order === 'II';
  const u16 = (value: number, at: number): number => (little ? tiff.writeUInt16LE(value, at) : tiff.writeUInt16BE(value, at));
  const u32 = (value: number, at: number): number => (little ? tiff.writeUInt32LE(value, at) : tiff.writeUInt32BE(value, at));
  tiff.write(order, 0, 'latin1');
  u16(42, 2);
  u32(8, 4);
  u16(entries.length, 8);
  entries.forEach(([tag, type, count, value], i) => {
    const at = 10 + i * 12;
    u16(tag, at);
    u16(type, at + 2);
    u32(count, at + 4);
    // A SHORT value sits in the first two bytes of the value field.
    if (type === 3) u16(value, at + 8);
    else u32(value, at + 8);
  });
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  return Buffer.concat([Buffer.from([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
}

function withSegment(image: Buffer, segment: Buffer): Uint8Array {
  return new Uint8Array(Buffer.concat([image.subarray(0, 2), segment, image.subarray(2)]));
}

/** The Orientation tag (0x0112, one SHORT), after an ImageWidth entry so it is not always first. */
function withOrientation(orientation: number, order: 'II' | 'MM' = 'MM'): Uint8Array {
  return withSegment(cornerJpeg(), exifSegment(order, [[0x0100, 3, 1, W], [0x0112, 3, 1, orientation]]));
}

type Corner = 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right';

/** Where the stored image's top-left and top-right corners are displayed under each orientation, as EXIF defines it. */
const SHOWN_AT: Record<number, readonly [Corner, Corner]> = {
  1: ['top-left', 'top-right'],
  2: ['top-right', 'top-left'],
  3: ['bottom-right', 'bottom-left'],
  4: ['bottom-left', 'bottom-right'],
  5: ['top-left', 'bottom-left'],
  6: ['top-right', 'bottom-right'],
  7: ['bottom-right', 'top-right'],
  8: ['bottom-left', 'top-left'],
};

/** The colour 4 pixels in from `corner` (inside its 16-pixel block, away from the block's edges). */
function colourAt(image: { width: number; height: number; data: Uint8Array }, corner: Corner): Rgb {
  const x = corner.endsWith('left') ? 4 : image.width - 5;
  const y = corner.startsWith('top') ? 4 : image.height - 5;
  const i = (y * image.width + x) * 4;
  return [image.data[i]!, image.data[i + 1]!, image.data[i + 2]!];
}

function expectNear(actual: Rgb, expected: Rgb): void {
  for (let c = 0; c < 3; c++) expect(Math.abs(actual[c]! - expected[c]!), `${actual.join(',')} vs ${expected.join(',')}`).toBeLessThan(40);
}

function expectShownAs(input: Uint8Array, orientation: number): void {
  const logo = normalizeLogo(input);
  const swapped = orientation >= 5;
  expect([logo.width, logo.height]).toEqual(swapped ? [H, W] : [W, H]);
  const decoded = jpeg.decode(logo.bytes, { useTArray: true });
  expect([decoded.width, decoded.height]).toEqual([logo.width, logo.height]);
  const [red, green] = SHOWN_AT[orientation]!;
  expectNear(colourAt(decoded, red), RED);
  expectNear(colourAt(decoded, green), GREEN);
  const others = (['top-left', 'top-right', 'bottom-left', 'bottom-right'] as const).filter((c) => c !== red && c !== green);
  for (const corner of others) expectNear(colourAt(decoded, corner), GREY);
}

describe('logo EXIF orientation', () => {
  it.each([1, 3, 6, 8])('orientation %i: stored turned as displayed, with the displayed width and height', (orientation) => {
    expectShownAs(withOrientation(orientation), orientation);
  });

  it('every orientation 1-8 in either byte order is applied as EXIF defines it, and the stored logo has no EXIF left', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.constantFrom('II' as const, 'MM' as const), (orientation, order) => {
        const input = withOrientation(orientation, order);
        expectShownAs(input, orientation);
        expect(Buffer.from(normalizeLogo(input).bytes).includes(Buffer.from('Exif', 'latin1'))).toBe(false);
      }),
      { numRuns: 24 },
    );
  });

  it('a JPEG without EXIF is stored as its pixels are', () => {
    expectShownAs(new Uint8Array(cornerJpeg()), 1);
  });

  it('an odd or damaged Orientation entry or EXIF block leaves the image as stored and refuses nothing', () => {
    const image = cornerJpeg();
    const odd = [
      exifSegment('MM', [[0x0112, 3, 1, 0]]),
      exifSegment('MM', [[0x0112, 3, 1, 9]]),
      exifSegment('II', [[0x0112, 4, 1, 6]]),
      exifSegment('II', [[0x0112, 3, 2, 6]]),
    ];
    // The IFD claims 65535 entries in a block that holds one, not the Orientation: read to the block's end, no further.
    const truncatedIfd = exifSegment('MM', [[0x0100, 3, 1, W]]);
    truncatedIfd.writeUInt16BE(0xffff, 4 + 6 + 8);
    const ifdOutside = exifSegment('MM', [[0x0112, 3, 1, 6]]);
    ifdOutside.writeUInt32BE(0x7fff_fff0, 4 + 6 + 4);
    const wrongMagic = exifSegment('II', [[0x0112, 3, 1, 6]]);
    wrongMagic.writeUInt16LE(43, 4 + 6 + 2);
    for (const segment of [...odd, truncatedIfd, ifdOutside, wrongMagic]) expectShownAs(withSegment(image, segment), 1);
  });

  it('random bytes in the Exif segment never refuse the logo: it comes out as stored or turned, never otherwise', () => {
    const image = cornerJpeg();
    fc.assert(
      fc.property(fc.constantFrom('II', 'MM', 'XX'), fc.uint8Array({ maxLength: 120 }), (order, rest) => {
        const body = Buffer.concat([Buffer.from(`Exif\0\0${order}`, 'latin1'), Buffer.from(rest)]);
        const segment = Buffer.concat([Buffer.from([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
        const logo = normalizeLogo(withSegment(image, segment));
        expect([[W, H], [H, W]]).toContainEqual([logo.width, logo.height]);
      }),
      { numRuns: 100 },
    );
  });
});
