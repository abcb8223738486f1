/**
 * Retry schedule of the outbox (docs/design/events.md#retries): exponential backoff with jitter, the first retry within
 * a minute, later ones at most an hour apart, given up 72 hours after the row was first due; and how long after a
 * crash a delivery that was being made is tried again.
 */

/** How long deliveries are retried. */
export const RETRY_WINDOW_MS = 72 * 3_600_000;
/** The default delay before the first retry (PARAPH_RETRY_BASE_MS). */
export const RETRY_BASE_MS = 30_000;
/** Default lease of a claimed outbox row on SQLite: after a crash it is delivered again this long after the claim. */
export const DEFAULT_OUTBOX_LEASE_MS = 120_000;
/** Default time after which PostgreSQL workers take over the jobs of a process that stopped sending heartbeats. */
export const DEFAULT_NODE_TIMEOUT_MS = 60_000;
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
