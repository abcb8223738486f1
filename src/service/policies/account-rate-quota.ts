/**
 * The per-account request rate quota (SECURITY.md "Quotas"): a token bucket per account of
 * `perMinute` tokens (burst of one minute's worth), refilled continuously. Real elapsed time is measured (a monotonic
 * clock), not the service's business clock, which tests freeze.
 *
 * With one process (SQLite) the buckets live in memory. When the store is shared by several processes (PostgreSQL,
 * `Store.rateBuckets`), the bucket lives in the database and each process leases a batch of tokens at a time
 * ({@link leaseBatch}) and spends them locally, so most requests cost no database round trip. A leased token is
 * taken from the shared bucket, so the processes together never accept more than it hands out; the slack is the up to
 * `batch - 1` tokens a process holds unspent: over any period, all processes together accept at most what one process
 * would plus `processes × (batch - 1)`, and a process may be refused while others hold that many unspent.
 */
import type { RateBuckets } from '../../store/store.js';

/** A request is allowed (`undefined`) or must wait `retryAfterSeconds` (≥ 1). */
export type RateDecision = undefined | { readonly retryAfterSeconds: number };

export interface AccountRateQuota {
  /** Spends one request of the account's quota, when there is one. */
  take(accountId: string): Promise<RateDecision>;
}

/** Most accounts tracked at once; the oldest idle one is dropped beyond (a full bucket is the default anyway). */
const MAX_ACCOUNTS = 100_000;

/** Tokens a process leases from the shared bucket at a time: 2 % of a minute's quota, at least one. */
export function leaseBatch(perMinute: number): number {
  return Math.max(1, Math.ceil(perMinute / 50));
}

/**
 * The quota of `perMinute` requests per account: shared through `shared` when the store has it, else in memory.
 *
 * @example
 * const quota = accountRateQuota(securitySettings(config).accountRequestsPerMinute, store.rateBuckets);
 * const decision = await quota.take(account.Id); // undefined: go on
 */
export function accountRateQuota(perMinute: number, shared?: RateBuckets, now: () => number = () => performance.now()): AccountRateQuota {
  return shared === undefined ? new LocalRateQuota(perMinute, now) : new LeasedRateQuota(perMinute, shared, now);
}

/**
 * The quotas of accounts whose limits differ: one {@link accountRateQuota} per distinct requests-per-minute, made at
 * its first use (an account whose limit changes starts with a full bucket of the new size).
 *
 * @example
 * const quotas = accountRateQuotas(store.rateBuckets);
 * const decision = await quotas(account.Limits?.RequestsPerMinute ?? securitySettings(config).accountRequestsPerMinute).take(account.Id);
 */
export function accountRateQuotas(shared?: RateBuckets, now: () => number = () => performance.now()): (perMinute: number) => AccountRateQuota {
  const quotas = new Map<number, AccountRateQuota>();
  return (perMinute) => {
    let quota = quotas.get(perMinute);
    if (quota === undefined) {
      quota = accountRateQuota(perMinute, shared, now);
      quotas.set(perMinute, quota);
    }
    return quota;
  };
}

/** Keeps `map` at most MAX_ACCOUNTS long, most recently used last. */
function touch<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ACCOUNTS) map.delete(map.keys().next().value as string);
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** The bucket of one process. */
class LocalRateQuota implements AccountRateQuota {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {
    this.perMs = perMinute / 60_000;
  }

  async take(accountId: string): Promise<RateDecision> {
    const t = this.now();
    const bucket = this.buckets.get(accountId) ?? { tokens: this.perMinute, at: t };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (t - bucket.at) * this.perMs);
    bucket.at = t;
    touch(this.buckets, accountId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return { retryAfterSeconds: seconds((1 - bucket.tokens) / this.perMs) };
  }
}

/** What a process holds of an account's shared bucket. */
interface Lease {
  /** Leased tokens not spent yet (whole). */
  tokens: number;
  /** The shared bucket had less than one token: refused locally until then, without asking the database. */
  emptyUntil: number;
  /** The lease being asked for: concurrent requests of the account wait for the same one. */
  pending?: Promise<void>;
}

/** Tokens leased from the store's shared bucket in batches. */
class LeasedRateQuota implements AccountRateQuota {
  private readonly leases = new Map<string, Lease>();
  private readonly batch: number;
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly shared: RateBuckets,
    private readonly now: () => number,
  ) {
    this.batch = leaseBatch(perMinute);
    this.perMs = perMinute / 60_000;
  }

  async take(accountId: string): Promise<RateDecision> {
    // Each round either spends a token, refuses, or waits for a lease that took at least one token (which some
    // waiter spends) or marked the bucket empty: the loop ends.
    for (;;) {
      const lease = this.leases.get(accountId) ?? { tokens: 0, emptyUntil: 0 };
      touch(this.leases, accountId, lease);
      if (lease.tokens >= 1) {
        lease.tokens -= 1;
        return undefined;
      }
      const t = this.now();
      if (lease.emptyUntil > t) return { retryAfterSeconds: seconds(lease.emptyUntil - t) };
      lease.pending ??= this.renew(accountId, lease).finally(() => {
        lease.pending = undefined;
      });
      await lease.pending;
    }
  }

  private async renew(accountId: string, lease: Lease): Promise<void> {
    const { taken, left } = await this.shared.take(accountId, this.batch, this.perMinute);
    lease.tokens += taken;
    if (taken === 0) lease.emptyUntil = this.now() + Math.max(1, (1 - left) / this.perMs);
  }
}
