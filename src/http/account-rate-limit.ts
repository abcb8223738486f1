/**
 * The per-account request rate quota of the API (SECURITY.md "Quotas"), enforced after
 * authentication: a used-up quota answers 429 `{"Message"}` with `Retry-After` (seconds until one request is allowed
 * again). The buckets are src/service/account-rate-quota.ts's: in memory, or shared through the store.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountRateQuota } from '../service/account-rate-quota.js';
import { QuotaError } from '../service/quota-error.js';

/**
 * An onRequest hook (after authentication) that spends one request of the account's quota.
 *
 * @example
 * api.addHook('onRequest', limitAccountRate(accountRateQuota(1200, store.rateBuckets), 1200));
 */
export function limitAccountRate(quota: AccountRateQuota, requestsPerMinute: number) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const accountId = request.account?.Id;
    if (accountId === undefined) return;
    const refused = await quota.take(accountId);
    if (refused === undefined) return;
    const retryAfter = refused.retryAfterSeconds;
    throw new QuotaError('ACCOUNT_RATE_LIMITED', `Too many requests: this account may send ${requestsPerMinute} per minute; retry after ${retryAfter} s.`, retryAfter);
  };
}
