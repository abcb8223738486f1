/**
 * The signer's scribble PNG is a decompression-bomb vector. A 16000×16000 PNG of ~250 KB is refused
 * from its header (400, a clear message) without decoding and without the service's memory growing; an image whose
 * data inflates to more than its header says is stopped at that limit; damaged data is refused; ordinary drawings
 * pass. The service runs on 127.0.0.1, driven through the signer API.
 */
import { constants as zlibConstants, createDeflate, deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScribblePng, inflatedSize, readPngHeader, SCRIBBLE_LIMITS } from '../../src/service/signer/scribble-image.js';
import { ServiceError } from '../../src/service/service-error.js';
import { call } from '../e2e/service-harness.js';
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
/** A PNG with the given header and already-deflated image data. */
function png(width: number, height: number, idat: Uint8Array, colorType = 0, bitDepth = 8, interlace = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([bitDepth, colorType, 0, 0, interlace], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', new Uint8Array())]);
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

describe('checkScribblePng', () => {
  it('accepts every well-formed image within the limits and refuses every one beyond them, before inflating (property)', async () => {
    const depths: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 120 }),
        fc.constantFrom(0, 2, 3, 4, 6).chain((c) => fc.tuple(fc.constant(c), fc.constantFrom(...depths[c]!))),
        async (width, height, [colorType, bitDepth]) => {
          const size = inflatedSize({ width, height, bitDepth, colorType, interlaced: false });
          const header = await checkScribblePng(png(width, height, deflateSync(Buffer.alloc(size)), colorType, bitDepth));
          expect(header).toEqual({ width, height, bitDepth, colorType, interlaced: false });
        },
      ),
      { numRuns: 60 },
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 100_000 }), async (width, height) => {
        const { maxWidth, maxHeight, maxPixels } = SCRIBBLE_LIMITS;
        fc.pre(width > maxWidth || height > maxHeight || width * height > maxPixels);
        // The image data is absent: the header alone decides.
        expect(() => readPngHeader(png(width, height, new Uint8Array()))).toThrow(ServiceError);
      }),
      { numRuns: 200 },
    );
  });

  it('knows the size of interlaced (Adam7) image data', () => {
    expect(inflatedSize({ width: 8, height: 8, bitDepth: 8, colorType: 0, interlaced: true })).toBe(79);
    expect(inflatedSize({ width: 1, height: 1, bitDepth: 8, colorType: 6, interlaced: true })).toBe(5);
  });
});
