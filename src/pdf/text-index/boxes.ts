/**
 * Compact storage of per-character boxes for the text index (search boxes, docs/design/locations.md#search). A
 * 5,000-page document holds millions of characters; four doubles each would cost hundreds of MB. Boxes are quantized to
 * 1/8 pt and stored as varints. A character that continues its line (its left edge is the previous right edge, same top
 * and height; a space spans the gap to the next character) costs only its width: one byte up to 8 pt, two up to 1,024
 * pt. Any other character stores all four deltas. Ordinary text takes a little over one byte per character.
 */

const SCALE = 8;
const LIMIT = 2 ** 40;

function quantize(v: number): number {
  const q = Math.round(v * SCALE);
  return q > LIMIT ? LIMIT : q < -LIMIT ? -LIMIT : q;
}

function zigzag(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

function unzigzag(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

/**
 * Encodes boxes given as `[left, top, right, bottom]` per character (reader coordinates). A character whose box is
 * NaN (a space) is stored as an empty box at the previous character's right edge.
 */
export function encodeBoxes(boxes: ArrayLike<number>): Uint8Array {
  const count = Math.floor(boxes.length / 4);
  let out = new Uint8Array(Math.max(16, Math.ceil(count * 1.5)));
  let pos = 0;
  const write = (value: number): void => {
    let z = value;
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
      // A space spans the gap to the next character when that one continues the line, so the next costs one byte.
      let width = 0;
      const n = o + 4;
      if (n < count * 4 && !Number.isNaN(boxes[n]!)) {
        const nextLeft = quantize(boxes[n]!);
        if (nextLeft >= prevRight && quantize(boxes[n + 1]!) === prevTop) width = nextLeft - prevRight;
      }
      write(width * 2);
      prevRight += width;
      continue;
    }
    const left = quantize(l);
    const top = quantize(boxes[o + 1]!);
    const right = quantize(boxes[o + 2]!);
    const height = quantize(boxes[o + 3]!) - top;
    if (left === prevRight && top === prevTop && height === prevHeight && right >= left) {
      write((right - left) * 2); // low bit 0: continuation, the rest is the width
    } else {
      write(zigzag(left - prevRight) * 2 + 1); // low bit 1: all four deltas follow the first
      write(zigzag(right - left));
      write(zigzag(top - prevTop));
      write(zigzag(height - prevHeight));
    }
    prevRight = right;
    prevTop = top;
    prevHeight = height;
  }
  return out.slice(0, pos);
}

/** Boxes between two checkpoints of {@link boxCheckpoints}. */
export const CHECKPOINT_EVERY = 64;

/** Decoder state before box `index`: stream position and the running deltas. */
interface DecodeState {
  index: number;
  pos: number;
  prevRight: number;
  prevTop: number;
  prevHeight: number;
}

/**
 * The decoder state before every {@link CHECKPOINT_EVERY}-th box (4 numbers each: stream position, right, top,
 * height), from one pass over the stream. With it, {@link decodeBoxes} starts next to the wanted range instead of
 * at the stream's start, so n lookups on a page cost O(n) rather than O(n × page length).
 */
export function boxCheckpoints(encoded: Uint8Array, count: number): Float64Array {
  const out = new Float64Array(Math.ceil(count / CHECKPOINT_EVERY) * 4);
  decodeFrom(encoded, { index: 0, pos: 0, prevRight: 0, prevTop: 0, prevHeight: 0 }, count, count, undefined, out);
  return out;
}

/**
 * Decodes boxes `from..count-1` of {@link encodeBoxes}' output into `[left, top, right, bottom]` per character (box
 * `from + k` at `4k`). Without `checkpoints` the stream is read from its start (only the wanted boxes take memory);
 * with the page's {@link boxCheckpoints}, from the last checkpoint at or before `from`.
 */
export function decodeBoxes(encoded: Uint8Array, count: number, from = 0, checkpoints?: Float64Array): Float64Array {
  const start = Math.max(0, Math.min(from, count));
  const out = new Float64Array((count - start) * 4);
  let state: DecodeState = { index: 0, pos: 0, prevRight: 0, prevTop: 0, prevHeight: 0 };
  const k = Math.floor(start / CHECKPOINT_EVERY);
  if (checkpoints && k > 0 && k * 4 + 3 < checkpoints.length) {
    state = {
      index: k * CHECKPOINT_EVERY,
      pos: checkpoints[k * 4]!,
      prevRight: checkpoints[k * 4 + 1]!,
      prevTop: checkpoints[k * 4 + 2]!,
      prevHeight: checkpoints[k * 4 + 3]!,
    };
  }
  decodeFrom(encoded, state, count, start, out, undefined);
  return out;
}

function decodeFrom(
  encoded: Uint8Array,
  state: DecodeState,
  count: number,
  start: number,
  out: Float64Array | undefined,
  checkpoints: Float64Array | undefined,
): void {
  let pos = state.pos;
  const read = (): number => {
    let z = 0;
    let mul = 1;
    for (;;) {
      const b = encoded[pos++];
      if (b === undefined) throw new RangeError('encoded boxes are truncated');
      z += (b & 0x7f) * mul;
      if (b < 0x80) return z;
      mul *= 0x80;
    }
  };
  let { prevRight, prevTop, prevHeight } = state;
  for (let i = state.index; i < count; i++) {
    if (checkpoints && i % CHECKPOINT_EVERY === 0) {
      const o = (i / CHECKPOINT_EVERY) * 4;
      checkpoints[o] = pos;
      checkpoints[o + 1] = prevRight;
      checkpoints[o + 2] = prevTop;
      checkpoints[o + 3] = prevHeight;
    }
    const head = read();
    let left: number;
    let right: number;
    if (head % 2 === 0) {
      left = prevRight;
      right = left + head / 2;
    } else {
      left = prevRight + unzigzag((head - 1) / 2);
      right = left + unzigzag(read());
      prevTop += unzigzag(read());
      prevHeight += unzigzag(read());
    }
    if (out && i >= start) {
      const o = (i - start) * 4;
      out[o] = left / SCALE;
      out[o + 1] = prevTop / SCALE;
      out[o + 2] = right / SCALE;
      out[o + 3] = (prevTop + prevHeight) / SCALE;
    }
    prevRight = right;
  }
}
