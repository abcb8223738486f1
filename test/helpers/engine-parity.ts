/**
 * Comparing two text indexes of one document (the PDFium engine against pdf.js): every page's words of 3+
 * characters that occur once on the page are anchors; an anchor found once on the same page by both engines is
 * compared by its box (largest difference of left, top, width, height, in pt). Used by the parity tests and by
 * bench/engine-parity.ts.
 */
import type { ReaderRect } from '../../src/pdf/page-geometry.js';
import type { TextIndex } from '../../src/pdf/text-index/text-index.js';

export function boxDistance(a: ReaderRect, b: ReaderRect): number {
  return Math.max(Math.abs(a.left - b.left), Math.abs(a.top - b.top), Math.abs(a.width - b.width), Math.abs(a.height - b.height));
}

/** Words (3+ non-space characters) that occur once in `text`, with their index, in text order. */
function uniqueWords(text: string): Map<string, number> {
  const seen = new Map<string, number>();
  for (const m of text.matchAll(/\S{3,}/g)) seen.set(m[0], seen.has(m[0]) ? -1 : m.index);
  for (const [word, at] of seen) if (at < 0) seen.delete(word);
  return seen;
}

export interface AnchorDifference {
  pageNumber: number;
  word: string;
  distance: number;
  a: ReaderRect;
  b: ReaderRect;
}

export interface EngineComparison {
  /** Anchors found once on their page by both engines, and compared. */
  anchors: number;
  /** The largest box difference of a compared anchor, in pt. */
  worst: number;
  /** Compared anchors whose boxes differ by more than the tolerance, worst first. */
  over: AnchorDifference[];
  /** `page N: word` for anchors of `a` that `b` does not have once on that page. */
  missingInB: string[];
  /** The same the other way round. */
  missingInA: string[];
  /** Pages both extracted whose text differs (word breaks, order, characters). */
  textDiffers: number[];
}

/**
 * Compares `a` with `b` on the pages both extracted. `perPage` caps the anchors taken from each engine's page (in text
 * order; the parity tests use 30), `tolerance` is the box difference that counts as agreement.
 */
export function compareIndexes(a: TextIndex, b: TextIndex, perPage = 30, tolerance = 1): EngineComparison {
  const result: EngineComparison = { anchors: 0, worst: 0, over: [], missingInB: [], missingInA: [], textDiffers: [] };
  for (let n = 1; n <= Math.min(a.pageCount, b.pageCount); n++) {
    const pa = a.text(n);
    const pb = b.text(n);
    if (!pa || !pb) continue;
    if (pa.text !== pb.text) result.textDiffers.push(n);
    const wa = uniqueWords(pa.text);
    const wb = uniqueWords(pb.text);
    for (const word of [...wb.keys()].slice(0, perPage)) if (!wa.has(word)) result.missingInA.push(`page ${n}: ${word}`);
    for (const [word, at] of [...wa].slice(0, perPage)) {
      const there = wb.get(word);
      if (there === undefined) {
        result.missingInB.push(`page ${n}: ${word}`);
        continue;
      }
      const boxA = pa.rangeBox(at, at + word.length)!;
      const boxB = pb.rangeBox(there, there + word.length)!;
      const distance = boxDistance(boxA, boxB);
      result.anchors++;
      result.worst = Math.max(result.worst, distance);
      if (distance > tolerance) result.over.push({ pageNumber: n, word, distance, a: boxA, b: boxB });
    }
  }
  result.over.sort((x, y) => y.distance - x.distance);
  return result;
}
