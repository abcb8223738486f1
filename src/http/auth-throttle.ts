/**
 * Failed credentials are throttled per client address: each request to the API that presents credentials which
 * match no account spends one token of its address's bucket (IPv6 addresses counted by their /64, which one client
 * usually holds whole); an empty bucket answers 429 with `Retry-After` before the credentials are looked up, so
 * guessing API keys costs time. Requests with valid credentials spend nothing. The buckets live in this process's
 * memory, at most {@link MAX_TRACKED_ADDRESSES} of them (the oldest forgotten first).
 */
import { isIPv6 } from 'node:net';
import { QuotaError } from '../service/policies/quota-error.js';

/** Failed attempts an address may make at once, and per minute after that. */
const DEFAULT_AUTH_FAILURES = { burst: 20, perMinute: 10 } as const;
const MAX_TRACKED_ADDRESSES = 50_000;

/** The address a bucket is kept for: IPv4 as is, IPv6 by its /64 prefix. */
export function throttleKey(address: string): string {
  if (!isIPv6(address)) return address;
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** Buckets of failed credentials per address. */
export class AuthFailureThrottle {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private readonly limits: { burst: number; perMinute: number } = DEFAULT_AUTH_FAILURES,
    private readonly now: () => number = Date.now,
  ) {}

  /** @throws QuotaError `AUTH_THROTTLED` (429) when `address` has no failed attempt left for now. */
  check(address: string): void {
    const bucket = this.#refilled(throttleKey(address));
    if (bucket === undefined || bucket.tokens >= 1) return;
    const retryAfter = Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / this.limits.perMinute));
    throw new QuotaError(
      'AUTH_THROTTLED',
      `Too many requests with wrong credentials from your address: retry after ${retryAfter} s with the right APIKey and APPKey.`,
      retryAfter,
    );
  }

  /** Counts one failed attempt of `address`. */
  fail(address: string): void {
    const key = throttleKey(address);
    const bucket = this.#refilled(key) ?? { tokens: this.limits.burst, at: this.now() };
    this.#buckets.delete(key);
    if (this.#buckets.size >= MAX_TRACKED_ADDRESSES) this.#buckets.delete(this.#buckets.keys().next().value as string);
    this.#buckets.set(key, { tokens: bucket.tokens - 1, at: bucket.at });
  }

  #refilled(key: string): { tokens: number; at: number } | undefined {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return undefined;
    const now = this.now();
    const tokens = Math.min(this.limits.burst, bucket.tokens + ((now - bucket.at) / 60_000) * this.limits.perMinute);
    const next = { tokens, at: now };
    this.#buckets.set(key, next);
    return next;
  }
}
