/**
 * Compact storage of per-character boxes for the text index (decisions.md §4 search boxes). A 5,000-page document
 * holds millions of characters; four doubles each would cost hundreds of MB. Boxes are quantized to 1/16 pt and
 * stored as zig-zag varints of small deltas (left from the previous right, width, top from the previous top, height
 * from the previous height), about 4 bytes per character on ordinary text.
 */

const SCALE = 16;
const LIMIT = 2 ** 40;

function quantize(v: number): number {
  const q = Math.round(v * SCALE);
  return q > LIMIT ? LIMIT : q < -LIMIT ? -LIMIT : q;
}

/**
 * Encodes boxes given as `[left, top, right, bottom]` per character (reader coordinates). A character whose box is
 * NaN (a space) is stored as an empty box at the previous character's right edge.
 */
export function encodeBoxes(boxes: ArrayLike<number>): Uint8Array {
  const count = Math.floor(boxes.length / 4);
  let out = new Uint8Array(Math.max(16, count * 5));
  let pos = 0;
  const write = (n: number): void => {
    let z = n >= 0 ? n * 2 : -n * 2 - 1;
    if (pos + 8 > out.length) {
      const grown = new Uint8Array(out.length * 2);
      grown.set(out);
      out = grown;
    }
    while (z >= 0x80) {
      out[pos++] = (z % 0x80) | 0x80;
      z = Math.floor(z / 0x80);
    }
    out[pos++] = z;
  };
  let prevRight = 0;
  let prevTop = 0;
  let prevHeight = 0;
  for (let i = 0; i < count; i++) {
    const o = i * 4;
    const l = boxes[o]!;
    if (Number.isNaN(l)) {
      write(0);
      write(0);
      write(0);
      write(-prevHeight);
      prevHeight = 0;
      continue;
    }
    const left = quantize(l);
    const top = quantize(boxes[o + 1]!);
    const right = quantize(boxes[o + 2]!);
    const height = quantize(boxes[o + 3]!) - top;
    write(left - prevRight);
    write(right - left);
    write(top - prevTop);
    write(height - prevHeight);
    prevRight = right;
    prevTop = top;
    prevHeight = height;
  }
  return out.slice(0, pos);
}

/** Decodes the first `count` boxes of {@link encodeBoxes}' output into `[left, top, right, bottom]` per character. */
export function decodeBoxes(encoded: Uint8Array, count: number): Float64Array {
  const out = new Float64Array(count * 4);
  let pos = 0;
  const read = (): number => {
    let z = 0;
    let mul = 1;
    for (;;) {
      const b = encoded[pos++];
      if (b === undefined) throw new RangeError('encoded boxes are truncated');
      z += (b & 0x7f) * mul;
      if (b < 0x80) break;
      mul *= 0x80;
    }
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  };
  let prevRight = 0;
  let prevTop = 0;
  let prevHeight = 0;
  for (let i = 0; i < count; i++) {
    const left = prevRight + read();
    const right = left + read();
    const top = prevTop + read();
    const height = prevHeight + read();
    const o = i * 4;
    out[o] = left / SCALE;
    out[o + 1] = top / SCALE;
    out[o + 2] = right / SCALE;
    out[o + 3] = (top + height) / SCALE;
    prevRight = right;
    prevTop = top;
    prevHeight = height;
  }
  return out;
}
