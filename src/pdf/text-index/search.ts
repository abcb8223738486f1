/**
 * Searching one page's extracted text: where the text index worker extracted the page, so that
 * searches run off the serving thread, inside the extraction's time budget (text-index/limits.ts), and only the
 * boxes of the matches a Location can use cross back. The same Search semantics as `findText`
 * (docs/design/locations.md#search): case-sensitive, white space runs as one space, non-overlapping, never across
 * pages; when nothing matches in the whole document (or the page asked for), white space is ignored on both sides.
 */
import type { ReaderRect } from '../page-geometry.js';
import { foldForSearch, skippedWhenCompact } from '../search-folding.js';
import { boxCheckpoints, decodeBoxes } from './boxes.js';

/** A text to find while the pages are extracted. */
export interface TextQuery {
  /** The Search text as the client sent it (normalized here). */
  readonly needle: string;
  /** Search only this 1-based page. */
  readonly pageNumber?: number;
  /** How many matches (in page order) to keep the boxes of; every match is counted. */
  readonly keep: number;
}

/** The matches of one query on one page: all counted, the first `keep` with their boxes. */
export interface PageFound {
  readonly query: number;
  readonly pageNumber: number;
  readonly count: number;
  readonly boxes: ReaderRect[];
  /** The same, with white space ignored on both sides. */
  readonly compactCount: number;
  readonly compactBoxes: ReaderRect[];
}

/** One match: its page and box. */
export interface FoundMatch {
  readonly pageNumber: number;
  readonly box: ReaderRect;
}

/** Matches of a query in page order: the first `keep` with their boxes; `total` counts them all. */
export type FoundMatches = FoundMatch[] & { total: number };

/**
 * Normalizes a search text the way the index is normalized (search-folding.ts): Latin ligatures and Hebrew and Arabic
 * presentation forms as their base letters (ﬁ → fi, ﻧ → ن), control characters and bidirectional formatting marks
 * dropped, runs of white space as one space, trimmed.
 */
export function normalizeSearchText(text: string): string {
  return foldForSearch(text).replace(/\s+/g, ' ').trim();
}

/** The boxes of one page's characters (text-index/boxes.ts encoding), decoded only where asked. */
export class PageBoxes {
  private checkpoints: Float64Array | undefined;

  constructor(
    readonly text: string,
    private readonly boxes: Uint8Array,
  ) {}

  /** Union of the boxes of `text[start..end)`, spaces ignored; undefined when the range holds no visible character. */
  rangeBox(start: number, end: number): ReaderRect | undefined {
    const from = Math.max(0, Math.floor(start));
    const to = Math.min(this.text.length, Math.ceil(end));
    if (to <= from) return undefined;
    // Only the range's boxes, decoded from the nearest checkpoint: decoding from the page's start for each match
    // made a search quadratic in the matches of a page (a search for "the" on a dense 4.5 KB PDF took 77 s).
    this.checkpoints ??= boxCheckpoints(this.boxes, this.text.length);
    const b = decodeBoxes(this.boxes, to, from, this.checkpoints);
    let left = Infinity;
    let top = Infinity;
    let right = -Infinity;
    let bottom = -Infinity;
    for (let i = from; i < to; i++) {
      if (this.text.charCodeAt(i) === 32) continue;
      const o = (i - from) * 4;
      left = Math.min(left, b[o]!);
      top = Math.min(top, b[o + 1]!);
      right = Math.max(right, b[o + 2]!);
      bottom = Math.max(bottom, b[o + 3]!);
    }
    if (left === Infinity) return undefined;
    return { left, top, width: right - left, height: bottom - top };
  }
}

/**
 * `text` as it is matched with white space ignored: without spaces, and without a hyphen that ends a word before a
 * space (a word hyphenated across lines, `sig- nature`, which readers such as pdftotext join), and for each of its
 * characters the index in `text`.
 */
export function withoutSpaces(text: string): { text: string; map: Int32Array } {
  const map = new Int32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) if (!skippedWhenCompact(text, i)) map[n++] = i;
  let compact = '';
  for (let k = 0; k < n; k++) compact += text[map[k]!];
  return { text: compact, map: map.slice(0, n) };
}

/** A needle as {@link withoutSpaces} matches it. */
export function compactNeedle(needle: string): string {
  return withoutSpaces(needle).text;
}

/**
 * What one extraction has kept of each query's matches, so that a whole document (or one thread's share of its pages,
 * searched in page order) keeps the boxes of at most `keep` matches per query however many pages match: a Search
 * for `e` matches millions of times in a long document, and only the first `keep` can be used. Once a query has
 * matched normally, its matches with white space ignored can never be used, so they are no longer looked for.
 */
export class SearchBudget {
  private readonly kept: number[];
  private readonly compactKept: number[];
  private readonly matched: boolean[];

  constructor(private readonly queries: readonly TextQuery[]) {
    this.kept = queries.map(() => 0);
    this.compactKept = queries.map(() => 0);
    this.matched = queries.map(() => false);
  }

  /** Boxes query `index` may still keep (normal matches). */
  left(index: number): number {
    return Math.max(0, (this.queries[index]?.keep ?? 0) - (this.kept[index] ?? 0));
  }

  /** Boxes query `index` may still keep of its matches with white space ignored; 0 once it matched normally. */
  compactLeft(index: number): number {
    if (this.matched[index]) return 0;
    return Math.max(0, (this.queries[index]?.keep ?? 0) - (this.compactKept[index] ?? 0));
  }

  /** Whether the matches with white space ignored of query `index` are still worth counting. */
  wantsCompact(index: number): boolean {
    return !this.matched[index];
  }

  /** Records what a page kept. */
  spend(index: number, found: { count: number; boxes: number; compactBoxes: number }): void {
    this.kept[index] = (this.kept[index] ?? 0) + found.boxes;
    this.compactKept[index] = (this.compactKept[index] ?? 0) + found.compactBoxes;
    if (found.count > 0) this.matched[index] = true;
  }
}

/**
 * Runs `queries` on one extracted page; returns an entry for each query found on it (normally or with white space
 * ignored). Linear in the page's length per query; boxes are decoded only for the kept matches: each query's `keep`
 * on this page, or what `budget` (shared by the pages of one extraction, searched in page order) has left.
 */
export function searchPage(pageNumber: number, text: string, boxes: Uint8Array, queries: readonly TextQuery[], budget?: SearchBudget): PageFound[] {
  const page = new PageBoxes(text, boxes);
  let compact: { text: string; map: Int32Array } | undefined;
  const out: PageFound[] = [];
  queries.forEach((query, index) => {
    if (query.pageNumber !== undefined && query.pageNumber !== pageNumber) return;
    const needle = normalizeSearchText(query.needle);
    if (needle === '') return;
    const normal = collect(text, needle, budget ? budget.left(index) : query.keep, (at) => page.rangeBox(at, at + needle.length));
    let loose: { count: number; boxes: ReaderRect[] } = { count: 0, boxes: [] };
    // Matches with white space ignored are used only when the document has no normal match at all.
    if (normal.count === 0 && (budget === undefined || budget.wantsCompact(index))) {
      compact ??= withoutSpaces(text);
      const { map } = compact;
      const joined = compactNeedle(needle);
      loose = collect(compact.text, joined, budget ? budget.compactLeft(index) : query.keep, (at) => page.rangeBox(map[at]!, map[at + joined.length - 1]! + 1));
    }
    budget?.spend(index, { count: normal.count, boxes: normal.boxes.length, compactBoxes: loose.boxes.length });
    if (normal.count === 0 && loose.count === 0) return;
    out.push({ query: index, pageNumber, count: normal.count, boxes: normal.boxes, compactCount: loose.count, compactBoxes: loose.boxes });
  });
  return out;
}

function collect(haystack: string, needle: string, keep: number, boxAt: (at: number) => ReaderRect | undefined): { count: number; boxes: ReaderRect[] } {
  const boxes: ReaderRect[] = [];
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    // A match with no visible character has no box and is no match (as in findText).
    if (boxes.length < keep) {
      const box = boxAt(at);
      if (!box) continue;
      boxes.push(box);
    }
    count++;
  }
  return { count, boxes };
}

/**
 * The document's matches of query `query` from the pages' results, in page order: the normal matches, or when there
 * are none at all, those with white space ignored.
 */
export function mergeFound(found: readonly PageFound[], query: number, keep: number): FoundMatches {
  const pages = found.filter((f) => f.query === query).sort((a, b) => a.pageNumber - b.pageNumber);
  const loose = pages.every((f) => f.count === 0);
  const matches: FoundMatch[] = [];
  let total = 0;
  for (const f of pages) {
    total += loose ? f.compactCount : f.count;
    for (const box of loose ? f.compactBoxes : f.boxes) if (matches.length < keep) matches.push({ pageNumber: f.pageNumber, box });
  }
  return Object.assign(matches, { total });
}
