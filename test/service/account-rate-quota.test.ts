/**
 * The account rate quota's buckets: the in-memory one of a single process, and the leased one
 * that spends batches taken from a shared bucket (here an in-memory stand-in for the PostgreSQL table).
 */
import { describe, expect, it } from 'vitest';
import { accountRateQuota, leaseBatch } from '../../src/service/policies/account-rate-quota.js';
import type { RateBuckets, RateLease } from '../../src/store/store.js';

/** A shared bucket like account_rate_buckets, on the test's clock, counting the leases asked for. */
class FakeBuckets implements RateBuckets {
  readonly buckets = new Map<string, { tokens: number; at: number }>();
  leases = 0;
  constructor(private readonly clock: { t: number }) {}
  async take(accountId: string, want: number, perMinute: number): Promise<RateLease> {
    this.leases++;
    await Promise.resolve();
    const b = this.buckets.get(accountId) ?? { tokens: perMinute, at: this.clock.t };
    const refilled = Math.min(perMinute, b.tokens + Math.max(0, this.clock.t - b.at) * (perMinute / 60_000));
    const taken = Math.min(want, Math.floor(refilled));
    this.buckets.set(accountId, { tokens: refilled - taken, at: this.clock.t });
    return { taken, left: refilled - taken };
  }
}

async function spend(quota: ReturnType<typeof accountRateQuota>, accountId: string, n: number) {
  return Promise.all(Array.from({ length: n }, () => quota.take(accountId)));
}

describe('the account rate quota', () => {
  it('leases 2 % of a minute’s quota at a time, at least one token', () => {
    expect(leaseBatch(1)).toBe(1);
    expect(leaseBatch(60)).toBe(2);
    expect(leaseBatch(1200)).toBe(24);
  });

  it('in memory: allows a minute’s worth at once, then refuses with the seconds until one token is back', async () => {
    const clock = { t: 0 };
    const quota = accountRateQuota(60, undefined, () => clock.t);
    const first = await spend(quota, 'a', 60);
    expect(first.every((d) => d === undefined)).toBe(true);
    expect(await quota.take('a')).toEqual({ retryAfterSeconds: 1 });
    expect(await quota.take('b')).toBeUndefined();
    clock.t += 1000;
    expect(await quota.take('a')).toBeUndefined();
    expect(await quota.take('a')).toEqual({ retryAfterSeconds: 1 });
  });

  it('leased: two processes together accept what the shared bucket holds, asking the store once per batch', async () => {
    const clock = { t: 0 };
    const shared = new FakeBuckets(clock);
    const processes = [accountRateQuota(600, shared, () => clock.t), accountRateQuota(600, shared, () => clock.t)];
    const decisions = (await Promise.all(Array.from({ length: 1000 }, (_, i) => processes[i % 2]!.take('a')))).flat();
    const accepted = decisions.filter((d) => d === undefined).length;
    // Batches of 12: each process may hold up to 11 unspent when the other is refused.
    expect(accepted).toBeGreaterThanOrEqual(600 - 2 * 11);
    expect(accepted).toBeLessThanOrEqual(600);
    // One lease per 12 tokens, plus the one of each process that found the bucket empty.
    expect(shared.leases).toBeLessThanOrEqual(Math.ceil(600 / 12) + 2);
    for (const d of decisions) if (d !== undefined) expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('leased: a refused process answers from memory until the bucket has a token again, then leases anew', async () => {
    const clock = { t: 0 };
    const shared = new FakeBuckets(clock);
    const quota = accountRateQuota(60, shared, () => clock.t);
    expect((await spend(quota, 'a', 60)).every((d) => d === undefined)).toBe(true);
    const leasesWhenFull = shared.leases;
    expect(await quota.take('a')).toEqual({ retryAfterSeconds: 1 });
    const leasesWhenEmpty = shared.leases;
    expect(leasesWhenEmpty).toBe(leasesWhenFull + 1);
    clock.t += 500;
    expect(await quota.take('a')).toEqual({ retryAfterSeconds: 1 });
    expect(shared.leases).toBe(leasesWhenEmpty);
    clock.t += 1500;
    // Two seconds: two tokens, one batch.
    expect(await spend(quota, 'a', 3)).toEqual([undefined, undefined, { retryAfterSeconds: 1 }]);
    expect(shared.leases).toBe(leasesWhenEmpty + 2);
  });

  it('leased: a failing store fails the requests waiting for that lease, and the next request asks again', async () => {
    let fail = true;
    const shared: RateBuckets = {
      take: async () => {
        if (fail) throw new Error('database down');
        return { taken: 1, left: 5 };
      },
    };
    const quota = accountRateQuota(60, shared, () => 0);
    await expect(quota.take('a')).rejects.toThrow('database down');
    fail = false;
    expect(await quota.take('a')).toBeUndefined();
  });
});
