/**
 * Checking a received postback, for client code (docs/design/events.md#checksum): the `X-Paraph-Signature` HMAC over the exact body bytes, the
 * delivery's `webhook-signature` over its id, send time and body, that send time within a tolerance of now (a
 * replayed postback is refused), and the Signhost-compatible `Checksum` (body field and header) over Id, Status and
 * the shared secret.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ParaphError } from '../errors.js';
import { deliverySignature, postbackChecksum, postbackSignature } from './postback.js';

/** Default of {@link VerifyPostbackOptions.toleranceSeconds}: five minutes, as Standard Webhooks recommends. */
const POSTBACK_TOLERANCE_SECONDS = 300;

/** Options of {@link verifyPostback}. */
export interface VerifyPostbackOptions {
  /** How far the delivery's `webhook-timestamp` may be from now, either way (default {@link POSTBACK_TOLERANCE_SECONDS}). */
  readonly toleranceSeconds?: number;
  /** Now (default: the system clock). */
  readonly now?: Date;
}

/** The verdict of {@link verifyPostback}. */
export type PostbackVerification =
  | { readonly valid: true; readonly transaction: { readonly Id: string; readonly Status: number; readonly [key: string]: unknown } }
  | { readonly valid: false; readonly reason: string };

/** Request headers as node or fetch give them (names in any case). */
export type PostbackHeaders = Readonly<Record<string, string | readonly string[] | undefined>> | Headers;

/**
 * Verifies a postback with the account's shared secret, or with any of several: while paraph rotates the secret
 * (docs/design/events.md#secret-rotation) a postback carries signatures under the new and the replaced one, and a
 * receiver that holds either (or both, passed as a list) accepts it. Pass the body exactly as received (bytes or the
 * raw string, not re-serialized JSON). A postback whose `webhook-timestamp` is more than `toleranceSeconds` from now
 * is refused; remember the `webhook-id`s seen within that window to refuse a replay inside it too.
 *
 * @throws ParaphError `POSTBACK_SECRET_MISSING` when no secret is given, or one is empty or not a string: with an
 *   empty key anyone can forge a postback, so that is a configuration mistake, not a verdict. `paraph serve` prints
 *   the secret it generates (or takes PARAPH_POSTBACK_SECRET).
 * @example
 * const verdict = verifyPostback(rawBody, req.headers, [newSecret, oldSecret]);
 * if (!verdict.valid) return res.writeHead(400).end(verdict.reason);
 */
export function verifyPostback(
  body: string | Uint8Array,
  headers: PostbackHeaders,
  secret: string | readonly string[],
  options: VerifyPostbackOptions = {},
): PostbackVerification {
  const secrets: readonly unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [secret];
  const wrongAt = secrets.findIndex((s) => typeof s !== 'string' || s === '');
  if (secrets.length === 0 || wrongAt >= 0) {
    const wrong = secrets[wrongAt];
    throw new ParaphError(
      'POSTBACK_SECRET_MISSING',
      `verifyPostback needs the account's postback secret, got ${secrets.length === 0 ? 'no secret' : wrong === '' ? 'an empty string' : String(wrong)}: pass the secret paraph serve printed (or PARAPH_POSTBACK_SECRET).`,
    );
  }
  let first: PostbackVerification | undefined;
  for (const candidate of secrets as readonly string[]) {
    const verdict = verifyWith(body, headers, candidate, options);
    if (verdict.valid) return verdict;
    first ??= verdict;
  }
  return first!;
}

/** The verdict under one secret: the signatures made with it, current or previous, must match. */
function verifyWith(body: string | Uint8Array, headers: PostbackHeaders, secret: string, options: VerifyPostbackOptions): PostbackVerification {
  const signature = header(headers, 'x-paraph-signature');
  if (signature === undefined) return { valid: false, reason: 'X-Paraph-Signature header missing' };
  const expectedSignature = postbackSignature(body, secret);
  const previousSignature = header(headers, 'x-paraph-signature-previous');
  if (!equalText(signature, expectedSignature) && !(previousSignature !== undefined && equalText(previousSignature, expectedSignature))) {
    return { valid: false, reason: 'X-Paraph-Signature does not match the body' };
  }
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestampText === undefined || signatures === undefined) {
    return { valid: false, reason: 'webhook-id, webhook-timestamp or webhook-signature header missing' };
  }
  if (!/^\d{1,12}$/.test(timestampText)) return { valid: false, reason: 'webhook-timestamp is not a Unix time in seconds' };
  const timestamp = Number(timestampText);
  const expectedDelivery = deliverySignature(id, timestamp, body, secret);
  if (!signatures.split(' ').some((candidate) => equalText(candidate, expectedDelivery))) {
    return { valid: false, reason: 'webhook-signature does not match the delivery id, time and body' };
  }
  const tolerance = options.toleranceSeconds ?? POSTBACK_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > tolerance) {
    return { valid: false, reason: `webhook-timestamp is ${now - timestamp} s from now, more than the ${tolerance} s tolerated: an old postback replayed, or a clock off` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
  } catch {
    return { valid: false, reason: 'body is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null) return { valid: false, reason: 'body is not a JSON object' };
  const { Id, Status, Checksum } = parsed as Record<string, unknown>;
  if (typeof Id !== 'string' || typeof Status !== 'number') return { valid: false, reason: 'body lacks Id or Status' };
  const expected = postbackChecksum(Id, Status, secret);
  // The body's Checksum is made with the current secret; during a rotation Checksum-Previous carries the one made
  // with the replaced secret (the body is authenticated by the HMAC above either way).
  const checksumHeader = header(headers, 'checksum');
  const current = typeof Checksum === 'string' && equalText(Checksum, expected);
  if (current && checksumHeader !== undefined && !equalText(checksumHeader, expected)) return { valid: false, reason: 'Checksum header does not match' };
  const previousChecksum = header(headers, 'checksum-previous');
  if (!current && !(previousChecksum !== undefined && equalText(previousChecksum, expected))) return { valid: false, reason: 'Checksum in the body does not match' };
  return { valid: true, transaction: parsed as { Id: string; Status: number } };
}

function header(headers: PostbackHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

/** Constant time, also in the length: both sides are hashed to 32 bytes before the comparison. */
function equalText(a: string, b: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}
