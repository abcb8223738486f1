/**
 * Per-page bigram signatures for the text index: a 4,096-bit Bloom filter of the page text's character pairs, so a
 * whole-document Search (docs/design/locations.md#search) only scans the few pages that can hold the needle. 512 bytes
 * per page; a needle of n characters is ruled out on a page unless all its n − 1 pairs are set.
 */
import { skippedWhenCompact } from '../search-folding.js';

const BITS = 4096;
const WORDS = BITS / 32;

function pairHash(a: number, b: number): number {
  return (Math.imul(a * 65599 + b, 0x9e3779b1) >>> 20) & (BITS - 1);
}

/** The signature of `text`; with `skipSpaces`, of the text as matched with white space ignored (search-folding.ts). */
export function bigramSignature(text: string, skipSpaces = false): Uint32Array {
  const bits = new Uint32Array(WORDS);
  let prev = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (skipSpaces && skippedWhenCompact(text, i)) continue;
    if (prev >= 0) {
      const h = pairHash(prev, c);
      bits[h >>> 5]! |= 1 << (h & 31);
    }
    prev = c;
  }
  return bits;
}

/** The bit positions a needle's pairs set (deduplicated); empty for needles shorter than two characters. */
export function needleBits(needle: string): Uint16Array {
  const set = new Set<number>();
  for (let i = 1; i < needle.length; i++) set.add(pairHash(needle.charCodeAt(i - 1), needle.charCodeAt(i)));
  return Uint16Array.from(set);
}

/** False when a text with `signature` certainly does not contain the needle of `bits`. */
export function mayContain(signature: Uint32Array, bits: Uint16Array): boolean {
  for (let i = 0; i < bits.length; i++) {
    const h = bits[i]!;
    if ((signature[h >>> 5]! & (1 << (h & 31))) === 0) return false;
  }
  return true;
}

/**
 * The signatures of a whole document turned around: for every signature bit, the set of pages that have it. A
 * needle's candidate pages are then the AND of a few page sets, instead of one signature test per page, so a
 * search over thousands of pages only touches the pages that may hold it. Same memory as the signatures it is
 * built from (one bit per page and signature bit).
 */
export class BigramPostings {
  private readonly words: number;
  private readonly columns: Uint32Array;
  private readonly present: Uint32Array;

  /** `signatures[i]` is the signature of slot i; undefined slots are never candidates. */
  constructor(signatures: readonly (Uint32Array | undefined)[]) {
    this.words = Math.ceil(signatures.length / 32);
    this.columns = new Uint32Array(BITS * this.words);
    this.present = new Uint32Array(this.words);
    for (let slot = 0; slot < signatures.length; slot++) {
      const signature = signatures[slot];
      if (!signature) continue;
      const word = slot >>> 5;
      const mask = 1 << (slot & 31);
      this.present[word]! |= mask;
      for (let w = 0; w < WORDS; w++) {
        let v = signature[w]!;
        while (v !== 0) {
          const low = v & -v;
          const bit = w * 32 + (31 - Math.clz32(low));
          this.columns[bit * this.words + word]! |= mask;
          v ^= low;
        }
      }
    }
  }

  /** Slots, ascending, whose signature may contain the needle of `bits` (every present slot for empty `bits`). */
  candidates(bits: Uint16Array): number[] {
    const found: number[] = [];
    for (let word = 0; word < this.words; word++) {
      let v = this.present[word]!;
      for (let i = 0; i < bits.length && v !== 0; i++) v &= this.columns[bits[i]! * this.words + word]!;
      while (v !== 0) {
        const low = v & -v;
        found.push(word * 32 + (31 - Math.clz32(low)));
        v ^= low;
      }
    }
    return found;
  }
}
