/** The fixed time tests set their clock to, when the time itself does not matter (one constant, not a literal per file). */
export const TEST_NOW = '2026-11-21T10:00:00Z';

/**
 * `openssl ocsp` arguments that judge a response at `at` rather than now: `-attime` only moves certificate checks,
 * so the response's own thisUpdate/nextUpdate window is widened by how far `at` lies from the real clock.
 */
export function opensslOcspTimeArgs(at: Date): string[] {
  const skewSeconds = Math.ceil(Math.abs(Date.now() - at.getTime()) / 1000) + 86_400;
  return ['-attime', String(Math.floor(at.getTime() / 1000)), '-validity_period', String(skewSeconds)];
}
