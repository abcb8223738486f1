/**
 * Fetching an account's Branding.LogoUrl, once, when the admin sets it: the service makes a request to an address an
 * admin names, so it is guarded as a postback is (delivery/postback-target.ts): the URL's host must resolve to public
 * addresses only (the configuration's allowed ranges aside), the connection goes to the address that was checked,
 * every redirect (at most {@link MAX_REDIRECTS}) is checked again the same way, the whole fetch has a deadline and the
 * body a byte cap. Failures are told in words that name no address, port or system error (they reach the API client).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ServiceError } from '../service-error.js';
import { checkPostbackTarget, pinnedLookup, STRICT_POSTBACK_POLICY, type PostbackPolicy, type ResolveHost } from '../delivery/postback-target.js';
import { LOGO_LIMITS } from './logo-header.js';

const MAX_REDIRECTS = 3;
const DEFAULT_TIMEOUT_MS = 10_000;

/** What the fetch may reach and how long it may take. */
export interface LogoFetchOptions {
  readonly policy?: PostbackPolicy;
  readonly resolve?: ResolveHost;
  readonly timeoutMs?: number;
}

function failed(url: string, reason: string): ServiceError {
  return new ServiceError('LOGO_FETCH_FAILED', `Branding.LogoUrl: ${reason} (got ${JSON.stringify(url)}); nothing was changed.`);
}

/**
 * The bytes at `url` (at most {@link LOGO_LIMITS}.maxBytes), following up to three redirects, each target checked.
 *
 * @throws ServiceError `LOGO_FETCH_FAILED` saying why.
 */
export async function fetchLogo(url: string, options: LogoFetchOptions = {}): Promise<Uint8Array> {
  const policy = options.policy ?? STRICT_POSTBACK_POLICY;
  const deadline = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let current = url;
  for (let hop = 0; ; hop++) {
    const target = await checkPostbackTarget(current, policy, options.resolve);
    if (!target.ok) throw failed(url, hop === 0 ? target.reason : `it redirects to an address that is refused: ${target.reason}`);
    const answer = await get(target.url, pinnedLookup(target), deadline).catch((error: unknown) => {
      throw error instanceof ServiceError ? error : failed(url, deadline.aborted ? 'no complete answer in time' : 'could not connect or the connection failed');
    });
    if (answer.kind === 'redirect') {
      if (hop >= MAX_REDIRECTS) throw failed(url, `more than ${MAX_REDIRECTS} redirects`);
      try {
        current = new URL(answer.location, target.url).toString();
      } catch {
        throw failed(url, 'it redirects to something that is not a URL');
      }
      continue;
    }
    if (answer.kind === 'status') throw failed(url, `the server answered HTTP ${answer.status}, not 200`);
    if (answer.kind === 'too-large') throw failed(url, `the answer is larger than ${LOGO_LIMITS.maxBytes} bytes (256 KiB)`);
    return answer.bytes;
  }
}

type Answer =
  | { kind: 'body'; bytes: Uint8Array }
  | { kind: 'redirect'; location: string }
  | { kind: 'status'; status: number }
  | { kind: 'too-large' };

function get(url: URL, lookup: ReturnType<typeof pinnedLookup>, signal: AbortSignal): Promise<Answer> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Answer>((resolve, reject) => {
    const req = send(url, { method: 'GET', lookup, signal, headers: { accept: 'image/png, image/jpeg', 'user-agent': 'paraph-logo/1' } }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if ([301, 302, 303, 307, 308].includes(status) && typeof location === 'string') {
        res.destroy();
        resolve({ kind: 'redirect', location });
        return;
      }
      if (status !== 200) {
        res.destroy();
        resolve({ kind: 'status', status });
        return;
      }
      const declared = Number(res.headers['content-length'] ?? 0);
      if (declared > LOGO_LIMITS.maxBytes) {
        res.destroy();
        resolve({ kind: 'too-large' });
        return;
      }
      const parts: Buffer[] = [];
      let size = 0;
      res.on('data', (part: Buffer) => {
        size += part.length;
        if (size > LOGO_LIMITS.maxBytes) {
          res.destroy();
          resolve({ kind: 'too-large' });
          return;
        }
        parts.push(part);
      });
      res.on('end', () => resolve({ kind: 'body', bytes: new Uint8Array(Buffer.concat(parts)) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
