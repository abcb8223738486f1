/**
 * An account's logo is judged by its content: a PNG or a JPEG within the size limits, decoded in full and re-encoded
 * (what is served is an image paraph wrote: same size, near pixels, no metadata, nothing appended); SVG, GIF, WebP,
 * HTML named .png, a header claiming 100000×100000 pixels, a scan bomb, arithmetic coding, truncated, damaged or
 * oversize files are refused with LOGO_INVALID or LOGO_TOO_LARGE.
 */
import { crc32, deflateSync } from 'node:zlib';
import fc from 'fast-check';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { ParaphError } from '../../../src/errors.js';
import { LOGO_LIMITS } from '../../../src/service/branding/logo-header.js';
import { normalizeLogo } from '../../../src/service/branding/logo-image.js';
import { gradientJpeg, noisyJpeg, noisyRgbPng, smallJpeg, smallPng } from './logo-fixtures.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof ParaphError) return error.code;
    throw error;
  }
}

/** A PNG with only a header (IHDR) claiming `width`×`height`, its checksum right. */
function pngHeaderOnly(width: number, height: number): Uint8Array {
  const png = Buffer.from(smallPng(2, 2));
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  return new Uint8Array(png);
}

describe('logo image', () => {
  it('accepts a PNG and returns a plain RGBA PNG paraph wrote, the same pixels', () => {
    const input = smallPng(30, 10);
    const logo = normalizeLogo(input);
    expect(logo).toMatchObject({ contentType: 'image/png', width: 30, height: 10 });
    const before = PNG.sync.read(Buffer.from(input));
    const after = PNG.sync.read(Buffer.from(logo.bytes));
    expect(Buffer.from(after.data).equals(Buffer.from(before.data))).toBe(true);
  });

  it('decodes a JPEG and re-encodes it: the same size, pixels within a JPEG round trip of the original', () => {
    const input = gradientJpeg(64, 32);
    const logo = normalizeLogo(input);
    expect(logo).toMatchObject({ contentType: 'image/jpeg', width: 64, height: 32 });
    expect(Buffer.from(logo.bytes).equals(Buffer.from(input))).toBe(false);
    const before = jpeg.decode(input, { useTArray: true });
    const after = jpeg.decode(logo.bytes, { useTArray: true });
    expect([after.width, after.height]).toEqual([64, 32]);
    let worst = 0;
    for (let i = 0; i < before.data.length; i++) worst = Math.max(worst, Math.abs(before.data[i]! - after.data[i]!));
    expect(worst).toBeLessThan(24);
    // The libjpeg-made fixture (with its JFIF header) decodes too.
    expect(normalizeLogo(smallJpeg())).toMatchObject({ contentType: 'image/jpeg', width: 16, height: 8 });
  });

  it('serves none of the uploaded EXIF, comment or bytes appended after the image', () => {
    const image = Buffer.from(gradientJpeg(32, 16));
    const exifBody = Buffer.concat([Buffer.from('Exif\0\0MM\0*GPS 52.37N 4.89E secret-owner', 'latin1')]);
    const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, (exifBody.length + 2) >> 8, (exifBody.length + 2) & 0xff]), exifBody]);
    const comBody = Buffer.from('<script>alert(1)</script>', 'latin1');
    const com = Buffer.concat([Buffer.from([0xff, 0xfe, 0, comBody.length + 2]), comBody]);
    const appended = Buffer.from('PK\x03\x04 a zip after the image <html>', 'latin1');
    const input = Buffer.concat([image.subarray(0, 2), app1, com, image.subarray(2), appended]);
    const logo = Buffer.from(normalizeLogo(new Uint8Array(input)).bytes);
    for (const needle of ['Exif', 'secret-owner', '<script>', 'PK', '<html>']) expect(logo.includes(Buffer.from(needle, 'latin1'))).toBe(false);
    expect(logo.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
  });

  it('refuses a progressive JPEG of thousands of scans (a CPU bomb) and arithmetic coding, before decoding', () => {
    const base = Buffer.from(smallJpeg());
    const sos = base.indexOf(Buffer.from([0xff, 0xda]));
    const scan = base.subarray(sos, base.length - 2);
    const progressive = Buffer.from(base.subarray(0, sos));
    progressive[progressive.indexOf(Buffer.from([0xff, 0xc0])) + 1] = 0xc2;
    const bomb = Buffer.concat([progressive, ...Array.from({ length: 5000 }, () => scan), Buffer.from([0xff, 0xd9])]);
    expect(bomb.length).toBeLessThan(LOGO_LIMITS.maxBytes);
    expect(codeOf(() => normalizeLogo(new Uint8Array(bomb)))).toBe('LOGO_INVALID');
    const arithmetic = Buffer.from(base);
    arithmetic[arithmetic.indexOf(Buffer.from([0xff, 0xc0])) + 1] = 0xc9;
    expect(codeOf(() => normalizeLogo(new Uint8Array(arithmetic)))).toBe('LOGO_INVALID');
  });

  it('refuses a JPEG whose entropy-coded data is damaged, never serving a half-decoded image', () => {
    const input = Buffer.from(gradientJpeg(64, 32));
    const sos = input.indexOf(Buffer.from([0xff, 0xda]));
    // A marker that may not stand inside a scan, in the middle of the scan data.
    input[sos + 40] = 0xff;
    input[sos + 41] = 0xc4;
    expect(codeOf(() => normalizeLogo(new Uint8Array(input)))).toBe('LOGO_INVALID');
  });

  it('refuses SVG, GIF, WebP and HTML named .png by their content', () => {
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const gif = new TextEncoder().encode('GIF89a\x01\x00\x01\x00\x00\x00\x00;');
    const webp = new TextEncoder().encode('RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00/\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00');
    const html = new TextEncoder().encode('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');
    for (const bytes of [svg, gif, webp, html, new Uint8Array(0)]) expect(codeOf(() => normalizeLogo(bytes))).toBe('LOGO_INVALID');
  });

  it('refuses a PNG whose header claims 100000×100000 pixels (a bomb) before inflating anything, and one past the pixel budget', () => {
    expect(codeOf(() => normalizeLogo(pngHeaderOnly(100_000, 100_000)))).toBe('LOGO_INVALID');
    expect(codeOf(() => normalizeLogo(pngHeaderOnly(2048, 1000)))).toBe('LOGO_INVALID');
    expect(codeOf(() => normalizeLogo(pngHeaderOnly(2049, 1)))).toBe('LOGO_INVALID');
  });

  it('refuses a JPEG whose frame header claims 60000×60000 pixels', () => {
    const jpeg = Buffer.from(smallJpeg());
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    jpeg.writeUInt16BE(60_000, sof + 5);
    jpeg.writeUInt16BE(60_000, sof + 7);
    expect(codeOf(() => normalizeLogo(new Uint8Array(jpeg)))).toBe('LOGO_INVALID');
  });

  it('refuses a PNG that inflates to more than its header says (the extra data is not read)', () => {
    const png = Buffer.from(smallPng(4, 4));
    // Replace the image data with a stream that inflates to a megabyte.
    const idat = png.indexOf(Buffer.from('IDAT'));
    const length = png.readUInt32BE(idat - 4);
    const bomb = deflateSync(Buffer.alloc(1 << 20));
    const chunk = Buffer.alloc(12 + bomb.length);
    chunk.writeUInt32BE(bomb.length, 0);
    chunk.write('IDAT', 4, 'latin1');
    bomb.copy(chunk, 8);
    chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + bomb.length)) >>> 0, 8 + bomb.length);
    const forged = Buffer.concat([png.subarray(0, idat - 4), chunk, png.subarray(idat + 8 + length)]);
    expect(codeOf(() => normalizeLogo(new Uint8Array(forged)))).toBe('LOGO_INVALID');
  });

  it('refuses every truncation of a PNG or a JPEG', () => {
    const png = smallPng(8, 8);
    for (const whole of [png, smallJpeg(), gradientJpeg(24, 24)]) {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: whole.length - 1 }), (cut) => {
          expect(codeOf(() => normalizeLogo(whole.subarray(0, cut)))).toBe('LOGO_INVALID');
        }),
        { numRuns: 200 },
      );
    }
  });

  it('refuses anything larger than 256 KiB with LOGO_TOO_LARGE', () => {
    const big = new Uint8Array(LOGO_LIMITS.maxBytes + 1);
    big.set(smallPng(2, 2));
    expect(codeOf(() => normalizeLogo(big))).toBe('LOGO_TOO_LARGE');
  });

  it('stores at most 256 KiB: a noisy JPEG sent at a low quality, larger at 90, is written at a lower quality that fits', () => {
    const input = noisyJpeg(460, 460, 30);
    expect(input.length).toBeLessThanOrEqual(LOGO_LIMITS.maxBytes);
    const decodedInput = jpeg.decode(input, { useTArray: true });
    expect(jpeg.encode(decodedInput, 90).data.length).toBeGreaterThan(LOGO_LIMITS.maxBytes);
    const logo = normalizeLogo(input);
    expect(logo.bytes.length).toBeLessThanOrEqual(LOGO_LIMITS.maxBytes);
    expect(logo).toMatchObject({ contentType: 'image/jpeg', width: 460, height: 460 });
    const decoded = jpeg.decode(logo.bytes, { useTArray: true });
    expect([decoded.width, decoded.height]).toEqual([460, 460]);
  });

  it('refuses with LOGO_TOO_LARGE, saying to send a smaller image, a JPEG that fits at no quality and a PNG whose RGBA rewrite does not fit', () => {
    const jpegInput = noisyJpeg(760, 760, 20);
    const pngInput = noisyRgbPng(290, 290);
    for (const input of [jpegInput, pngInput]) {
      expect(input.length).toBeLessThanOrEqual(LOGO_LIMITS.maxBytes);
      expect(() => normalizeLogo(input)).toThrow(expect.objectContaining({ code: 'LOGO_TOO_LARGE', message: expect.stringContaining('Send a smaller image') }));
    }
  });

  it('never throws anything but a typed refusal on random bytes after a PNG or JPEG signature', () => {
    fc.assert(
      fc.property(fc.constantFrom(smallPng(3, 3).subarray(0, 33), smallJpeg().subarray(0, 3)), fc.uint8Array({ maxLength: 400 }), (head, tail) => {
        const bytes = new Uint8Array([...head, ...tail]);
        expect(['LOGO_INVALID', undefined]).toContain(codeOf(() => normalizeLogo(bytes)));
      }),
      { numRuns: 300 },
    );
  });

  it('never throws anything but a typed refusal on a real JPEG with bytes changed: refused, or a valid image of its size', () => {
    const whole = gradientJpeg(24, 24);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: whole.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), (changes) => {
        const bytes = new Uint8Array(whole);
        for (const [at, value] of changes) bytes[at] = value;
        let logo;
        try {
          logo = normalizeLogo(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(ParaphError);
          expect(['LOGO_INVALID', 'LOGO_TOO_LARGE']).toContain((error as ParaphError).code);
          return;
        }
        const decoded = jpeg.decode(logo.bytes, { useTArray: true });
        expect([decoded.width, decoded.height]).toEqual([logo.width, logo.height]);
      }),
      { numRuns: 300 },
    );
  });
});
