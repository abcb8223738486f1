/**
 * The per-account request rate quota of the API (SECURITY.md "Quotas"), enforced after
 * authentication, at the account's own limit when it has one: a used-up quota answers 429 `{"Message"}` with `Retry-After` (seconds until one request is allowed
 * again). The buckets are src/service/policies/account-rate-quota.ts's: in memory, or shared through the store.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountRateQuota } from '../service/policies/account-rate-quota.js';
import { QuotaError } from '../service/policies/quota-error.js';

/**
 * An onRequest hook (after authentication) that spends one request of the account's quota: its own
 * `Limits.RequestsPerMinute` when it has one, else the service-wide `servicePerMinute` (none: unlimited).
 *
 * @example
 * api.addHook('onRequest', limitAccountRate(accountRateQuotas(store.rateBuckets), 1200));
 */
export function limitAccountRate(quotas: (perMinute: number) => AccountRateQuota, servicePerMinute: number | undefined) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const account = request.account;
    if (account === null || account === undefined) return;
    const requestsPerMinute = account.Limits?.RequestsPerMinute ?? servicePerMinute;
    if (requestsPerMinute === undefined) return;
    const refused = await quotas(requestsPerMinute).take(account.Id);
    if (refused === undefined) return;
    const retryAfter = refused.retryAfterSeconds;
    throw new QuotaError('ACCOUNT_RATE_LIMITED', `Too many requests: this account may send ${requestsPerMinute} per minute; retry after ${retryAfter} s.`, retryAfter);
  };
}
