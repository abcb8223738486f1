/**
 * The signer's scribble PNG is untrusted. A 16000×16000 PNG of ~250 KB is refused from its header (400, a clear
 * message) without decoding and without the service's memory growing; an image whose data inflates to more than its
 * header says is stopped at that limit; an animated PNG (thousands of frames behind one small header) and chunks that
 * change decoding are refused; damaged data is refused; ordinary drawings pass and are re-encoded by paraph in a
 * PDF process under its caps. The service runs on 127.0.0.1, driven through the signer API.
 */
import { constants as zlibConstants, createDeflate, deflateSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inflatedSize, normalizeScribblePng, readPngHeader, SCRIBBLE_LIMITS } from '../../src/service/signer/scribble-image.js';
import { normalizeScribble } from '../../src/service/signer/normalize-scribble.js';
import { ServiceError } from '../../src/service/service-error.js';
import { call } from '../helpers/service-harness.js';
import { createSigningTransaction, SCRIBBLE_DATA_URL, startSignerService, type SignerService } from '../service/signer/signer-fixture.js';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
}
/** A PNG with the given header and already-deflated image data; `extra` chunks go between IHDR and IDAT. */
function png(width: number, height: number, idat: Uint8Array, colorType = 0, bitDepth = 8, interlace = 0, extra: readonly Buffer[] = []): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([bitDepth, colorType, 0, 0, interlace], 8);
  const palette = colorType === 3 && !extra.some((c) => c.toString('latin1', 4, 8) === 'PLTE') ? [chunk('PLTE', Buffer.alloc(3 * 256, 7))] : [];
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), ...palette, ...extra, chunk('IDAT', idat), chunk('IEND', new Uint8Array())]);
}
/** The chunk types of a PNG, in order. */
function chunkTypes(bytes: Uint8Array): string[] {
  const types: string[] = [];
  const b = Buffer.from(bytes);
  for (let at = 8; at < b.length; at += 12 + b.readUInt32BE(at)) types.push(b.toString('latin1', at + 4, at + 8));
  return types;
}
/**
 * An animated PNG: `frames` frames of width×height RGBA, the first in IDAT, the others in fcTL+fdAT pairs — the shape
 * that made a PDF library decode every frame on the serving thread.
 */
function apng(width: number, height: number, frames: number): Buffer {
  const frame = deflateSync(Buffer.alloc(height * (1 + width * 4)));
  const actl = Buffer.alloc(8);
  actl.writeUInt32BE(frames, 0);
  const fctl = (sequence: number): Buffer => {
    const body = Buffer.alloc(26);
    body.writeUInt32BE(sequence, 0);
    body.writeUInt32BE(width, 4);
    body.writeUInt32BE(height, 8);
    return chunk('fcTL', body);
  };
  const later: Buffer[] = [];
  for (let i = 1, seq = 1; i < frames; i++) {
    later.push(fctl(seq++));
    const seqBytes = Buffer.alloc(4);
    seqBytes.writeUInt32BE(seq++, 0);
    later.push(chunk('fdAT', Buffer.concat([seqBytes, frame])));
  }
  const still = png(width, height, frame, 6, 8, 0, [chunk('acTL', actl), fctl(0)]);
  const iend = still.subarray(still.length - 12);
  return Buffer.concat([still.subarray(0, still.length - 12), ...later, iend]);
}
/** `total` zero bytes deflated, without ever holding them in memory. */
async function deflatedZeros(total: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9, strategy: zlibConstants.Z_RLE }); // as small as level 9 for zeros, twice as fast
  const parts: Buffer[] = [];
  deflate.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const block = Buffer.alloc(1 << 20);
  for (let left = total; left > 0; left -= block.length) {
    if (!deflate.write(left >= block.length ? block : block.subarray(0, left))) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  return Buffer.concat(parts);
}
const MAX_UPLOAD = 512 * 1024;
const dataUrl = (bytes: Uint8Array): string => `data:image/png;base64,${Buffer.from(bytes).toString('base64')}`;

let s: SignerService;
let base: string;
beforeAll(async () => {
  s = await startSignerService();
  base = s.service.url;
});
afterAll(async () => {
  await s.service.dispose();
});

/** A signer at the Scribble step; `post` sends a scribble and answers status and message. */
async function atScribble(): Promise<(image: string) => Promise<{ status: number; message: string }>> {
  const tx = await createSigningTransaction(base, { signers: [{ Email: 'alice@example.com', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] }] });
  const path = `/api/signer/${tx.signers[0]!.token}/verification`;
  expect((await call(base, 'POST', path, { auth: false, json: { Type: 'Consent' } })).status).toBe(200);
  return async (image) => {
    const answer = await call(base, 'POST', path, { auth: false, json: { Type: 'Scribble', Image: image, Name: 'Alice Janssen' } });
    return { status: answer.status, message: String(answer.json?.Message ?? '') };
  };
}

async function scribbleAs(image: string): Promise<{ status: number; message: string }> {
  return (await atScribble())(image);
}

describe('scribble PNG bombs', () => {
  it('refuses a 16000×16000 PNG of ~250 KB from its header, with a clear 400, and the service memory stays flat', async () => {
    const bomb = png(16000, 16000, await deflatedZeros(16000 * 16001));
    expect(bomb.length).toBeLessThan(300_000);
    const post = await atScribble();
    const image = dataUrl(bomb);
    const before = process.memoryUsage().rss;
    const answer = await post(image);
    const grown = process.memoryUsage().rss - before;
    expect(answer.status).toBe(400);
    expect(answer.message).toBe(
      'Image: the drawn signature is 16000×16000 pixels; at most 2400×1200 pixels (2,000,000 in all) are accepted. Send a smaller image.',
    );
    // Decoding it would take 256 MB (grey) to 1 GB (RGBA); the refusal needs next to nothing.
    expect(grown).toBeLessThan(32 * 1024 * 1024);
  });

  it('stops image data that inflates to more than its header says at that limit (64 MB behind a 100×100 header)', async () => {
    const liar = png(100, 100, await deflatedZeros(64 * 1024 * 1024), 6);
    const post = await atScribble();
    const image = dataUrl(liar);
    const before = process.memoryUsage().rss;
    const answer = await post(image);
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
    expect(answer).toEqual({ status: 400, message: 'Image: the PNG image data is larger than its header says; send an image that is not damaged.' });
  });

  it('refuses damaged data, a damaged header and a file that is not a PNG; accepts an ordinary drawing', async () => {
    const rows = 40 * (1 + 200 * 4);
    const good = png(200, 40, deflateSync(Buffer.alloc(rows)), 6);
    const cut = good.subarray(0, good.length - 20);
    const garbage = png(200, 40, Buffer.from('not zlib at all'), 6);
    const short = png(200, 40, deflateSync(Buffer.alloc(rows - 1)), 6);
    const badDepth = png(200, 40, deflateSync(Buffer.alloc(rows)), 6, 4);
    expect(await scribbleAs(dataUrl(cut))).toEqual({ status: 400, message: 'Image: the PNG image is damaged (a chunk is cut off).' });
    expect(await scribbleAs(dataUrl(garbage))).toEqual({ status: 400, message: 'Image: the PNG image data is damaged.' });
    expect(await scribbleAs(dataUrl(short))).toEqual({ status: 400, message: 'Image: the PNG image data is damaged (it does not fill the image).' });
    expect(await scribbleAs(dataUrl(badDepth))).toEqual({ status: 400, message: 'Image: the PNG image is damaged (its header is not valid).' });
    expect(await scribbleAs('data:image/png;base64,R0lGODlhAQABAAAAACw=')).toEqual({ status: 400, message: 'Image: the drawn signature is not a PNG image.' });
    expect((await scribbleAs(dataUrl(good))).status).toBe(200);
    expect((await scribbleAs(SCRIBBLE_DATA_URL)).status).toBe(200);
  });
});

describe('a scribble is one still frame, re-encoded by paraph off the serving thread', () => {
  it('refuses an animated PNG (200 frames in 20 KB) with a clear 400 before any frame is decoded', async () => {
    const animated = apng(400, 100, 200);
    expect(animated.length).toBeLessThan(MAX_UPLOAD);
    expect(await scribbleAs(dataUrl(animated))).toEqual({
      status: 400,
      message: 'Image: animated PNG images are not accepted; send one still image of the signature.',
    });
  });

  it('refuses chunks that change decoding (transparency, gamma, colour profile) and unknown chunks; skips descriptive ones', () => {
    const rows = deflateSync(Buffer.alloc(10 * (1 + 10 * 4)));
    for (const type of ['tRNS', 'gAMA', 'cHRM', 'iCCP', 'sBIT', 'cICP', 'vpAg', 'IHDR']) {
      expect(() => normalizeScribblePng(png(10, 10, rows, 6, 8, 0, [chunk(type, Buffer.alloc(6))]))).toThrow(`holds a "${type}" chunk`);
    }
    const described = png(10, 10, rows, 6, 8, 0, [chunk('tEXt', Buffer.from('Software\0pad')), chunk('pHYs', Buffer.alloc(9)), chunk('sRGB', Buffer.from([0]))]);
    expect(chunkTypes(normalizeScribblePng(described).png)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(() => normalizeScribblePng(png(10, 10, rows, 6, 8, 1))).toThrow('interlaced PNG images are not accepted');
  });

  it('decodes every colour type and bit depth to the same pixels and re-encodes them as 8-bit RGBA (property)', () => {
    const depths: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 120 }),
        fc.constantFrom(0, 2, 3, 4, 6).chain((c) => fc.tuple(fc.constant(c), fc.constantFrom(...depths[c]!))),
        fc.integer({ min: 0, max: 4 }),
        (width, height, [colorType, bitDepth], filter) => {
          const size = inflatedSize({ width, height, bitDepth, colorType, interlaced: false });
          const raw = Buffer.alloc(size);
          for (let y = 0; y < height; y++) raw[y * (size / height)] = filter; // all-zero samples stay zero under every filter
          const out = normalizeScribblePng(png(width, height, deflateSync(raw), colorType, bitDepth));
          expect({ width: out.width, height: out.height }).toEqual({ width, height });
          expect(chunkTypes(out.png)).toEqual(['IHDR', 'IDAT', 'IEND']);
          expect([...Buffer.from(out.png).subarray(24, 29)]).toEqual([8, 6, 0, 0, 0]);
          // Re-encoding paraph's own image gives it back unchanged.
          expect(Buffer.from(normalizeScribblePng(out.png).png).equals(Buffer.from(out.png))).toBe(true);
        },
      ),
      { numRuns: 80 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 100_000 }), (width, height) => {
        const { maxWidth, maxHeight, maxPixels } = SCRIBBLE_LIMITS;
        fc.pre(width > maxWidth || height > maxHeight || width * height > maxPixels);
        // The image data is absent: the header alone decides.
        expect(() => readPngHeader(png(width, height, new Uint8Array()))).toThrow(ServiceError);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps the pixels: grey, palette and RGBA samples come out as the same RGBA', () => {
    const rgbaOf = (bytes: Uint8Array): number[] => {
      const b = Buffer.from(bytes);
      const idat = b.subarray(41, 41 + b.readUInt32BE(33));
      return [...inflateSync(idat)];
    };
    // 2×1 grey 8-bit (filter 0): 0x00, 0x80.
    expect(rgbaOf(normalizeScribblePng(png(2, 1, deflateSync(Buffer.from([0, 0x00, 0x80])), 0)).png)).toEqual([0, 0, 0, 0, 255, 0x80, 0x80, 0x80, 255]);
    // 2×1 palette 1-bit: indexes 1, 0 → palette entries (10,20,30), (1,2,3); filter 0.
    const plte = chunk('PLTE', Buffer.from([1, 2, 3, 10, 20, 30]));
    expect(rgbaOf(normalizeScribblePng(png(2, 1, deflateSync(Buffer.from([0, 0b1000_0000])), 3, 1, 0, [plte])).png)).toEqual([0, 10, 20, 30, 255, 1, 2, 3, 255]);
    // 2×1 RGBA 8-bit with the Sub filter: the second pixel adds the first.
    expect(rgbaOf(normalizeScribblePng(png(2, 1, deflateSync(Buffer.from([1, 1, 2, 3, 4, 1, 1, 1, 1])), 6)).png)).toEqual([0, 1, 2, 3, 4, 2, 3, 4, 5]);
    // A palette index beyond the palette is damage, not a crash.
    expect(() => normalizeScribblePng(png(1, 1, deflateSync(Buffer.from([0, 5])), 3, 8, 0, [plte]))).toThrow('not in its palette');
  });

  it('decodes in a PDF process under its caps: one past its memory or time refuses the scribble and the service goes on', async () => {
    const good = png(200, 40, deflateSync(Buffer.alloc(40 * (1 + 200 * 4))), 6);
    const ok = await normalizeScribble(good);
    expect(chunkTypes(ok.png)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const large = png(1600, 1200, deflateSync(Buffer.alloc(1200 * (1 + 1600 * 4))), 6);
    await expect(normalizeScribble(large, { maxHeapMb: 64, maxRssMb: 1, baseMs: 1, perPageMs: 0 })).rejects.toThrow(
      'Image: decoding the drawn signature needs more memory or time than a drawing of at most 2400×1200 pixels; send a plain PNG image.',
    );
    expect((await normalizeScribble(good)).png).toEqual(ok.png);
  });
});
