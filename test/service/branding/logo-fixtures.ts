/** Small logos for the tests: PNGs drawn with pngjs, JPEGs drawn with jpeg-js, and a 16×8 baseline JPEG made by libjpeg (pdftoppm). */
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/** A `width`×`height` RGBA PNG with a gradient (every pixel different enough to notice a change). */
export function smallPng(width: number, height: number): Uint8Array {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      png.data[i] = (x * 255) / Math.max(1, width - 1);
      png.data[i + 1] = (y * 255) / Math.max(1, height - 1);
      png.data[i + 2] = 128;
      png.data[i + 3] = 255;
    }
  }
  const bytes = PNG.sync.write(png);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const JPEG_16X8 = '/9j/4AAQSkZJRgABAQEAAQAAAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjL/wAARCAAIABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD3/FFFFAH/2Q==';

/** A 16×8 baseline JPEG. */
export function smallJpeg(): Uint8Array {
  return new Uint8Array(Buffer.from(JPEG_16X8, 'base64'));
}

/** A `width`×`height` baseline JPEG of the same gradient as {@link smallPng}, written by jpeg-js at quality 95. */
export function gradientJpeg(width: number, height: number): Uint8Array {
  const png = PNG.sync.read(Buffer.from(smallPng(width, height)));
  const written = jpeg.encode({ width, height, data: png.data }, 95);
  return new Uint8Array(written.data.buffer, written.data.byteOffset, written.data.byteLength);
}

/** `width`×`height` opaque RGBA pixels of deterministic noise (a fixed linear congruential sequence). */
function noisePixels(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  let state = 1;
  for (let i = 0; i < data.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = (i & 3) === 3 ? 255 : state >>> 24;
  }
  return data;
}

/** A `width`×`height` JPEG of noise written by jpeg-js at `quality`: small at a low quality, far larger re-encoded at a high one. */
export function noisyJpeg(width: number, height: number, quality: number): Uint8Array {
  const written = jpeg.encode({ width, height, data: noisePixels(width, height) }, quality);
  return new Uint8Array(written.data.buffer, written.data.byteOffset, written.data.byteLength);
}

/** A `width`×`height` RGB PNG (no alpha) of noise: it does not deflate, and rewritten as RGBA it grows by a third. */
export function noisyRgbPng(width: number, height: number): Uint8Array {
  const png = new PNG({ width, height });
  png.data.set(noisePixels(width, height));
  const bytes = PNG.sync.write(png, { colorType: 2 });
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
