/**
 * Where punctuation and digits drawn beside right-to-left text belong in reading order, as the Unicode bidirectional
 * algorithm (and so poppler's pdftotext) puts them. A PDF draws such a line in visual order, left to right; the text
 * index turns each right-to-left run back into reading order (text-index/builder.ts). Two simplified rules of the
 * algorithm, enough for what a user types as a Search:
 * - punctuation between two right-to-left letters of a line (`שלום, עולם`) takes their direction: it is part of the run;
 * - punctuation and digits that start a line and are followed by a right-to-left run (`?םולש`, `11:דבוע` as drawn)
 *   end that run in reading order (`שלום?`, `עובד11:`), the digits keeping their own left-to-right order.
 * Brackets are left where they are (they would also have to be mirrored).
 */

/** Punctuation that takes the direction of the letters around it (bidi classes CS, ES, ET, ON without brackets). */
const NEUTRAL = /^[.,:;!?"'\u00AB\u00BB\u2026\u2013\u2014\u2018\u2019\u201C\u201D%/*+\-]$/;
const DIGIT = /^[0-9]$/;

/** Whether `ch` is punctuation that joins the right-to-left run around it. */
export function isBidiNeutral(ch: string): boolean {
  return NEUTRAL.test(ch);
}

/**
 * Where the punctuation and digits that start a line before the right-to-left run at `runStart` begin: `runStart`
 * itself when there are none, or when a letter precedes them on the same line. `onRunLine(k)` says whether character
 * `k` is drawn on the run's line (a space has no box: it never is).
 */
export function leadingGroupStart(chars: readonly string[], runStart: number, onRunLine: (k: number) => boolean): number {
  let k = runStart - 1;
  while (k >= 0 && chars[k] === ' ') k--;
  const groupEnd = k + 1;
  while (k >= 0 && (isBidiNeutral(chars[k]!) || DIGIT.test(chars[k]!)) && onRunLine(k)) k--;
  if (k + 1 === groupEnd) return runStart;
  let before = k;
  while (before >= 0 && chars[before] === ' ') before--;
  return before >= 0 && onRunLine(before) ? runStart : k + 1;
}

/**
 * Moves `[from, runStart)` (the leading group and the spaces after it) behind the run `[runStart, runEnd)`: the run,
 * then those spaces, then the group, each keeping its order. `boxes` holds four numbers per character.
 */
export function moveGroupBehindRun(chars: string[], boxes: Float64Array, from: number, runStart: number, runEnd: number): void {
  let groupEnd = runStart;
  while (groupEnd > from && chars[groupEnd - 1] === ' ') groupEnd--;
  const order = [...range(runStart, runEnd), ...range(groupEnd, runStart), ...range(from, groupEnd)];
  const movedChars = order.map((k) => chars[k]!);
  const movedBoxes = Float64Array.from(order.flatMap((k) => [boxes[k * 4]!, boxes[k * 4 + 1]!, boxes[k * 4 + 2]!, boxes[k * 4 + 3]!]));
  for (let k = 0; k < movedChars.length; k++) chars[from + k] = movedChars[k]!;
  boxes.set(movedBoxes, from * 4);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k);
}
