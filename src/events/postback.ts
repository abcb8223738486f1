/**
 * Postbacks (docs/design/events.md#postbacks): the body is the transaction as GET returns it plus `Checksum` (Signhost's), the same value goes in a
 * `Checksum` header, and `X-Paraph-Signature: sha256=<hex HMAC-SHA256(secret, body)>` signs the exact body bytes.
 * Each delivery attempt is also signed with its id and send time as Standard Webhooks does (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256(secret, id.timestamp.body)>`), so that a receiver
 * can refuse a postback replayed later ({@link verifyPostback}'s tolerance). While a replaced secret is still valid
 * (docs/design/events.md#secret-rotation) the postback is also signed with it: `Checksum-Previous`,
 * `X-Paraph-Signature-Previous` and a second `webhook-signature`. Sending: http(s) only, one POST,
 * redirects not followed, 30 s timeout, success on any 2xx.
 */
import { createHash, createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Transaction, TransactionStatusCode } from '../domain/transaction.js';
import { toPartialTransactionView, toTransactionView, type ResponseVersion } from '../domain/transaction-view.js';

/**
 * The `Checksum` of a postback: lowercase hex SHA-1 of `Id + "||" + Status + "|" + sharedSecret`.
 *
 * @example postbackChecksum('b10ae331-af78-4e79-a39e-5b64693b6b68', 20, 'SharedSecret') // 'cdc09eee…'
 */
export function postbackChecksum(transactionId: string, status: number, secret: string): string {
  return createHash('sha1').update(`${transactionId}||${status}|${secret}`, 'utf8').digest('hex');
}

/** The `X-Paraph-Signature` value of a body: `sha256=<hex HMAC-SHA256(secret, body)>`. */
export function postbackSignature(body: string | Uint8Array, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The `webhook-signature` value of one delivery: `v1,<base64 HMAC-SHA256(secret, "<id>.<unix seconds>.<body>")>`.
 * The key is the shared secret's UTF-8 bytes (Standard Webhooks libraries take it as raw bytes, not `whsec_…`).
 */
export function deliverySignature(id: string, timestamp: number, body: string | Uint8Array, secret: string): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.`, 'utf8').update(body).digest('base64')}`;
}

/** A rendered postback request. */
export interface PostbackRequest {
  /** The exact body bytes (UTF-8 JSON). */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** How to render a postback. */
export interface PostbackRenderOptions {
  /** The account's shared secret (empty when the account has none). */
  readonly secret: string;
  /** The secret it replaced, while that is still valid: every signature is then also given with it. */
  readonly previousSecret?: string;
  readonly version: ResponseVersion;
  readonly baseUrl: string;
  /** This delivery attempt: its id (the same on every retry of one postback) and when it is sent. */
  readonly delivery: { readonly id: string; readonly at: Date };
}

/**
 * The postback of `tx` for the status change or activity that queued it. The body shows the transaction as it is
 * when sent, with `Status` the status the event was queued with, so that every postback of a sequence keeps its own
 * status (and checksum) however late it is delivered; a cleaned transaction shows its partial view.
 */
export function renderPostback(tx: Transaction, status: TransactionStatusCode, options: PostbackRenderOptions): PostbackRequest {
  const view = tx.cleanedAt !== undefined ? toPartialTransactionView(tx, options) : toTransactionView(tx, options);
  const checksum = postbackChecksum(tx.Id, status, options.secret);
  const body = JSON.stringify({ ...view, Status: status, Checksum: checksum });
  const timestamp = Math.floor(options.delivery.at.getTime() / 1000);
  const previous = options.previousSecret;
  const signWebhook = (secret: string) => deliverySignature(options.delivery.id, timestamp, body, secret);
  return {
    body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      checksum,
      'x-paraph-signature': postbackSignature(body, options.secret),
      'webhook-id': options.delivery.id,
      'webhook-timestamp': String(timestamp),
      // Standard Webhooks lists several signatures space-separated: a receiver accepts the delivery if one matches.
      'webhook-signature': previous === undefined ? signWebhook(options.secret) : `${signWebhook(options.secret)} ${signWebhook(previous)}`,
      ...(previous === undefined
        ? {}
        : { 'checksum-previous': postbackChecksum(tx.Id, status, previous), 'x-paraph-signature-previous': postbackSignature(body, previous) }),
    },
  };
}

/** The outcome of one POST. */
export interface PostbackResult {
  readonly ok: boolean;
  readonly httpStatus?: number;
  /** Why it failed (network error, timeout, non-2xx status). */
  readonly error?: string;
}

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 16 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 16 });

/** Only http(s) URLs receive postbacks (the create rules refuse others; this re-checks before sending). */
function isPostbackUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * POSTs a rendered postback. Never throws: the result says whether a 2xx came back. A 3xx counts as a failure
 * (redirects are not followed, so a receiver cannot bounce the signed body elsewhere).
 */
export async function sendPostback(
  url: string,
  request: PostbackRequest,
  // `lookup`: connect to an address checked beforehand (service/delivery/postback-target.ts), not to a second DNS answer.
  // `signal`: the process is stopping; the attempt ends as a failure and is retried (by another process).
  options: { timeoutMs?: number; lookup?: LookupFunction; signal?: AbortSignal } = {},
): Promise<PostbackResult> {
  if (!isPostbackUrl(url)) return { ok: false, error: `PostbackUrl ${url} is not an http(s) URL.` };
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const body = Buffer.from(request.body, 'utf8');
  return new Promise<PostbackResult>((resolve) => {
    let settled = false;
    const finish = (result: PostbackResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', interrupt);
      resolve(result);
    };
    const req = send(
      target,
      {
        method: 'POST',
        agent: target.protocol === 'https:' ? httpsAgent : httpAgent,
        ...(options.lookup ? { lookup: options.lookup } : {}),
        headers: { ...request.headers, 'content-length': String(body.length), 'user-agent': 'paraph-postback/1' },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        res.on('end', () =>
          finish(status >= 200 && status < 300 ? { ok: true, httpStatus: status } : { ok: false, httpStatus: status, error: `HTTP ${status}` }),
        );
        res.on('error', (error) => finish({ ok: false, httpStatus: status, error: error.message }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (error) => finish({ ok: false, error: error.message }));
    const interrupt = (): void => {
      req.destroy();
      finish({ ok: false, error: 'interrupted: the service was stopping' });
    };
    if (options.signal?.aborted === true) interrupt();
    else options.signal?.addEventListener('abort', interrupt, { once: true });
    req.end(body);
  });
}
