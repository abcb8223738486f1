/**
 * The per-account request rate quota of the API (issue 13 point 7, SECURITY.md "Quotas"): a token bucket per
 * account of `requestsPerMinute` (burst of one minute's worth), refilled continuously; an empty bucket answers 429
 * `{"Message"}` with `Retry-After` (seconds until one request is allowed again). Real elapsed time is measured
 * (a monotonic clock), not the service's business clock, which tests freeze. Buckets live in memory per process.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QuotaError } from '../service/quota-error.js';

/** A rate quota's state, kept per account. */
interface Bucket {
  tokens: number;
  at: number;
}

/** Most accounts tracked at once; the oldest idle bucket is dropped beyond (a full bucket is the default anyway). */
const MAX_BUCKETS = 100_000;

/**
 * An onRequest hook (after authentication) that enforces `requestsPerMinute` per account.
 *
 * @example
 * api.addHook('onRequest', limitAccountRate(1200));
 */
export function limitAccountRate(requestsPerMinute: number, now: () => number = () => performance.now()) {
  const buckets = new Map<string, Bucket>();
  const perMs = requestsPerMinute / 60_000;
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const accountId = request.account?.Id;
    if (accountId === undefined) return;
    const t = now();
    const bucket = buckets.get(accountId) ?? { tokens: requestsPerMinute, at: t };
    bucket.tokens = Math.min(requestsPerMinute, bucket.tokens + (t - bucket.at) * perMs);
    bucket.at = t;
    buckets.delete(accountId);
    buckets.set(accountId, bucket);
    if (buckets.size > MAX_BUCKETS) buckets.delete(buckets.keys().next().value as string);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
    throw new QuotaError('ACCOUNT_RATE_LIMITED', `Too many requests: this account may send ${requestsPerMinute} per minute; retry after ${retryAfter} s.`, retryAfter);
  };
}
