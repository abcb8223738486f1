/**
 * Retry schedule of the outbox (docs/design/events.md#retries): exponential backoff with jitter, the first retry within
 * a minute, later ones at most an hour apart, given up 72 hours after the row was first due.
 */

/** How long deliveries are retried. */
export const RETRY_WINDOW_MS = 72 * 3_600_000;
/** The default delay before the first retry (PARAPH_RETRY_BASE_MS). */
const RETRY_BASE_MS = 30_000;
const MAX_MS = 3_600_000;

/**
 * The delay before retry number `attempts` (1 after the first failed attempt): `baseMs` doubled each time, capped
 * at one hour, scaled by `random()` into [½, 1] of that ("equal jitter": never more than the cap, never a stampede).
 */
export function retryDelayMs(attempts: number, random: () => number, baseMs = RETRY_BASE_MS): number {
  const base = Math.min(MAX_MS, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 20)));
  return Math.round(base / 2 + (base / 2) * Math.min(1, Math.max(0, random())));
}

/** When to retry after a failed attempt, or undefined when the retry window is over (give up). */
export function nextRetryAt(now: Date, firstDueAt: Date, attempts: number, random: () => number, baseMs = RETRY_BASE_MS): Date | undefined {
  const at = now.getTime() + retryDelayMs(attempts, random, baseMs);
  return at > firstDueAt.getTime() + RETRY_WINDOW_MS ? undefined : new Date(at);
}
