import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boxCheckpoints, CHECKPOINT_EVERY, decodeBoxes, encodeBoxes } from '../../src/pdf/text-index/boxes.js';

const coordinate = fc.double({ min: -20_000, max: 20_000, noNaN: true });
const box = fc.oneof(
  fc.tuple(coordinate, coordinate, fc.double({ min: 0, max: 600, noNaN: true }), fc.double({ min: -50, max: 600, noNaN: true })).map(
    ([left, top, width, height]) => [left, top, left + width, top + height] as const,
  ),
  fc.constant([Number.NaN, Number.NaN, Number.NaN, Number.NaN] as const),
);

describe('encodeBoxes / decodeBoxes', () => {
  it('round-trip any boxes within 1/16 pt (spaces: NaN in, anything out)', () => {
    fc.assert(
      fc.property(fc.array(box, { maxLength: 60 }), (boxes) => {
        const flat = boxes.flat();
        const decoded = decodeBoxes(encodeBoxes(flat), boxes.length);
        boxes.forEach((b, i) => {
          if (Number.isNaN(b[0])) return;
          for (let k = 0; k < 4; k++) expect(Math.abs(decoded[i * 4 + k]! - b[k]!)).toBeLessThanOrEqual(1 / 16 + 1e-9);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('decodes a range from..count exactly as the same boxes of a full decode', () => {
    fc.assert(
      fc.property(fc.array(box, { minLength: 1, maxLength: 60 }), fc.nat(), fc.nat(), (boxes, a, b) => {
        const encoded = encodeBoxes(boxes.flat());
        const count = 1 + (a % boxes.length);
        const from = b % count;
        expect(Array.from(decodeBoxes(encoded, count, from))).toEqual(Array.from(decodeBoxes(encoded, count)).slice(from * 4));
      }),
      { numRuns: 300 },
    );
  });

  it('decodes a prefix only when asked for fewer boxes', () => {
    const flat = [10, 20, 15, 30, 15, 20, 19, 30, 40, 50, 45, 60];
    expect(Array.from(decodeBoxes(encodeBoxes(flat), 2))).toEqual(flat.slice(0, 8));
  });

  it('stores text that continues its line in about one byte per character', () => {
    const flat: number[] = [];
    for (let i = 0; i < 1000; i++) flat.push(72 + i * 5.5, 100, 72 + (i + 1) * 5.5, 112);
    expect(encodeBoxes(flat).length).toBeLessThan(1100);
  });

  it('refuses truncated data', () => {
    const encoded = encodeBoxes([1000, 2000, 1500, 2600]);
    expect(() => decodeBoxes(encoded.slice(0, encoded.length - 1), 1)).toThrow(RangeError);
  });
});

describe('encodeBoxes on words', () => {
  it('keeps words separated by spaces at little more than one byte per character', () => {
    const flat: number[] = [];
    let x = 72;
    for (let w = 0; w < 200; w++) {
      for (let c = 0; c < 5; c++, x += 5.5) flat.push(x, 100, x + 5.5, 112);
      flat.push(Number.NaN, Number.NaN, Number.NaN, Number.NaN);
      x += 2.75;
    }
    expect(encodeBoxes(flat).length).toBeLessThan(1300);
    const decoded = decodeBoxes(encodeBoxes(flat), 12);
    expect(decoded[6 * 4]).toBeCloseTo(72 + 5 * 5.5 + 2.75, 1);
  });
});

describe('boxCheckpoints', () => {
  it('decoding from a checkpoint gives the same boxes as decoding from the start', () => {
    fc.assert(
      fc.property(fc.array(box, { minLength: 1, maxLength: 400 }), fc.nat(), fc.nat(), (boxes, a, b) => {
        const encoded = encodeBoxes(boxes.flat());
        const checkpoints = boxCheckpoints(encoded, boxes.length);
        const count = 1 + (a % boxes.length);
        const from = b % count;
        expect(Array.from(decodeBoxes(encoded, count, from, checkpoints))).toEqual(Array.from(decodeBoxes(encoded, count, from)));
      }),
      { numRuns: 200 },
    );
  });

  it('one lookup reads only the bytes from its checkpoint to its end, however long the page (a search is linear)', () => {
    const boxesOfLine = Array.from({ length: 20_000 }, (_, i) => [i * 5, 100, i * 5 + 4.5, 110]).flat();
    const encoded = encodeBoxes(boxesOfLine);
    const checkpoints = boxCheckpoints(encoded, 20_000);
    let reads = 0;
    const counting = new Proxy(encoded, {
      get(target, key) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key) as unknown;
      },
    });
    const from = 19_990;
    const decoded = decodeBoxes(counting, from + 3, from, checkpoints);
    expect(Array.from(decoded.slice(0, 4))).toEqual([from * 5, 100, from * 5 + 4.5, 110]);
    // At most CHECKPOINT_EVERY + 3 boxes of at most 5 varints of at most 6 bytes; decoding from the start reads ~20,000.
    expect(reads).toBeLessThanOrEqual((CHECKPOINT_EVERY + 3) * 30);
    expect(reads).toBeGreaterThan(0);
  });
});
