/**
 * Where a postback may go (SECURITY.md "Postbacks"): an `https:` URL (`http:` only when the
 * configuration allows it) whose host resolves only to public unicast addresses. Loopback, private, link-local,
 * carrier-grade NAT, multicast, broadcast, unspecified and reserved ranges are refused, in IPv4 and IPv6; the
 * WHATWG URL parser has already turned decimal, hex and octal IPv4 spellings into dotted quads, and IPv4-mapped
 * IPv6 addresses are judged as the IPv4 address they carry (ipaddr.js `process`). A development or test set-up
 * names the ranges it may reach anyway (`postbackAllowedRanges`). The check runs when a transaction is created and
 * again before every delivery, and the delivery connects to the address that was checked (a `lookup` pinned to
 * it), so a DNS answer that changes in between (rebinding) cannot redirect it.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '../../errors.js';

/** What the configuration allows. */
export interface PostbackPolicy {
  /** Accept `http:` URLs (default false). */
  readonly allowHttp: boolean;
  /** CIDR ranges (or single addresses) allowed although not public. */
  readonly allowedRanges: readonly string[];
}

/** The policy of a service that was given none: https only, public addresses only. */
export const STRICT_POSTBACK_POLICY: PostbackPolicy = { allowHttp: false, allowedRanges: [] };

/** Resolves a host name to its addresses (injectable for tests; default: the system resolver). */
export type ResolveHost = (host: string) => Promise<readonly { address: string; family: number }[]>;

const systemResolve: ResolveHost = (host) => dnsLookup(host, { all: true, verbatim: true });

/** A checked target: the address to connect to. */
export interface CheckedTarget {
  readonly ok: true;
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * A refused or unresolvable target. `reason` is safe to show to the API client and to write to the audit trail:
 * it never names an address or port that answered.
 */
export interface RefusedTarget {
  readonly ok: false;
  readonly kind: 'scheme' | 'address' | 'unresolved';
  readonly reason: string;
}

/** Throws on a range that is not an address or CIDR (the configuration is checked at start). */
export function parseAllowedRanges(ranges: readonly string[]): [ipaddr.IPv4 | ipaddr.IPv6, number][] {
  return ranges.map((range) => {
    if (range.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(range);
      return [address.kind() === 'ipv6' ? (address as ipaddr.IPv6) : address, bits];
    }
    const address = ipaddr.process(range);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

/** Whether `address` (any textual spelling ipaddr.js accepts) may receive postbacks under `policy`. */
export function isAllowedAddress(address: string, policy: PostbackPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  for (const [range, bits] of parseAllowedRanges(policy.allowedRanges)) {
    if (range.kind() === parsed.kind() && parsed.match(range, bits)) return true;
  }
  // ::/96, the deprecated IPv4-compatible form (`[::127.0.0.1]`): stacks route it to the IPv4 address it spells,
  // and ipaddr.js calls it unicast. Nothing public is reached that way.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return parsed.range() === 'unicast';
}

/**
 * Checks `url` under `policy`, resolving its host.
 *
 * @example
 * const target = await checkPostbackTarget('https://hooks.example.com/paraph', policy);
 * if (!target.ok) throw new Error(target.reason);
 */
export async function checkPostbackTarget(url: string, policy: PostbackPolicy, resolve: ResolveHost = systemResolve): Promise<CheckedTarget | RefusedTarget> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, kind: 'scheme', reason: 'not an absolute URL' };
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && policy.allowHttp)) {
    return { ok: false, kind: 'scheme', reason: policy.allowHttp ? 'must be an http(s) URL' : 'must be an https URL (PARAPH_POSTBACK_ALLOW_HTTP=true allows http, for development)' };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, kind: 'scheme', reason: 'must not contain credentials' };
  }
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  let addresses: readonly { address: string; family: number }[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, kind: 'unresolved', reason: 'its host name could not be resolved' };
    }
  }
  if (addresses.length === 0) return { ok: false, kind: 'unresolved', reason: 'its host name could not be resolved' };
  // One forbidden answer refuses the name: a resolver that mixes public and internal answers is not to be trusted.
  if (addresses.some((a) => !isAllowedAddress(a.address, policy))) {
    return { ok: false, kind: 'address', reason:
        'its host is not a public address (loopback, private, link-local, multicast and reserved ranges are refused; PARAPH_POSTBACK_ALLOWED_RANGES admits ranges you trust, e.g. 127.0.0.0/8 for a local receiver)',
    };
  }
  const first = addresses[0] as { address: string; family: number };
  const address = ipaddr.process(first.address);
  return { ok: true, url: parsed, address: address.toString(), family: address.kind() === 'ipv6' ? 6 : 4 };
}

/** A `lookup` for `http.request` that answers with the checked address only (no second DNS query). */
export function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true) {
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    } else {
      callback(null, target.address, target.family);
    }
  };
}

/** How long the check at creation waits for DNS before accepting the name (delivery checks it again). */
const CREATION_LOOKUP_MS = 3000;

/**
 * The check when a transaction is created: refuses a URL whose scheme or resolved address the policy forbids with
 * a 400 naming `PostbackUrl`. A name that does not resolve (yet) is accepted: every delivery checks it again.
 *
 * @throws ValidationError `INVALID_TRANSACTION`.
 */
export async function assertPostbackTarget(url: string | undefined, policy: PostbackPolicy, resolve: ResolveHost = systemResolve): Promise<void> {
  if (url === undefined) return;
  const bounded: ResolveHost = (host) =>
    new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error('timeout')), CREATION_LOOKUP_MS);
      resolve(host).then(
        (answer) => (clearTimeout(timer), ok(answer)),
        (error: unknown) => (clearTimeout(timer), fail(error)),
      );
    });
  const target = await checkPostbackTarget(url, policy, bounded);
  if (!target.ok && target.kind !== 'unresolved') {
    throw new ValidationError([`PostbackUrl: ${target.reason} (got ${JSON.stringify(url)})`], 'INVALID_TRANSACTION');
  }
}
