/**
 * Delivering one `postback` outbox row (docs/design/events.md#postbacks): the account's shared secret and postback
 * version, the transaction rendered at the row's status, one POST. A postback given up on is audited by the use case
 * `recordPostbackFailure` (src/service/delivery/record-postback-delivery.ts).
 */
import type { ServiceContext } from '../service/context.js';
import { postbackSecretsAt } from '../domain/account.js';
import type { OutboxMessage } from '../store/store.js';
import type { DeliveryOutcome } from './delivery.js';
import { renderPostback, sendPostback, type PostbackResult } from './postback.js';
import { parsePostbackPayload } from '../service/delivery/outbox-rows.js';
import { checkPostbackTarget, pinnedLookup, STRICT_POSTBACK_POLICY, type ResolveHost } from '../service/delivery/postback-target.js';

/**
 * Sends the postback of an outbox row, after checking its URL again (service/delivery/postback-target.ts) and connecting to the
 * address that was checked. Failures are recorded with generic texts ({@link describeFailure}): the attempt log
 * and the audit trail must not tell an API client which internal hosts or ports answer.
 */
export async function deliverPostback(
  ctx: ServiceContext,
  message: OutboxMessage,
  options: { timeoutMs?: number; resolve?: ResolveHost; signal?: AbortSignal; sendTime?: () => Date } = {},
): Promise<DeliveryOutcome> {
  const payload = parsePostbackPayload(message.payload);
  if (payload === undefined) return { ok: false, permanent: true, error: 'not a postback payload' };
  const tx = await ctx.store.getTransaction(payload.transactionId);
  if (tx === undefined) return { ok: false, permanent: true, error: `transaction ${payload.transactionId} does not exist` };
  const account = await ctx.store.getAccount(tx.AccountId);
  const secrets = account === undefined ? { secret: '' } : postbackSecretsAt(account, ctx.clock());
  const request = renderPostback(tx, payload.status, {
    secret: secrets.secret,
    ...(secrets.previous !== undefined ? { previousSecret: secrets.previous } : {}),
    version: account?.PostbackVersion ?? 1,
    baseUrl: ctx.settings.publicUrl,
    // The outbox row id: the same for every retry, so a receiver can drop the duplicates at-least-once delivery
    // can produce. The time is when this attempt is sent by the machine's clock, which the receiver compares with
    // its own to refuse a replay (not the service's business clock, which tests move).
    delivery: { id: `paraph-postback-${message.id}`, at: (options.sendTime ?? wallClock)() },
  });
  const target = await checkPostbackTarget(payload.url, ctx.settings.postbackPolicy ?? STRICT_POSTBACK_POLICY, options.resolve ?? ctx.resolveHost);
  if (!target.ok) return { ok: false, permanent: target.kind === 'scheme', error: `PostbackUrl refused: ${target.reason}` };
  // With tracing on, the receiver may continue the trace of the delivery (W3C trace context).
  const traceparent = ctx.trace;
  const headers = { ...request.headers, 'x-paraph-delivery-id': String(message.id), ...(traceparent !== undefined ? { traceparent } : {}) };
  const result = await sendPostback(payload.url, { ...request, headers }, {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    lookup: pinnedLookup(target),
  });
  if (result.ok) return { ok: true, ...(result.httpStatus !== undefined ? { responseCode: result.httpStatus } : {}) };
  return {
    ok: false,
    permanent: false,
    error: describeFailure(result),
    ...(result.httpStatus !== undefined ? { responseCode: result.httpStatus } : {}),
  };
}

const wallClock = (): Date => new Date();

/** A failed POST in words that name no address, port or system error text. */
function describeFailure(result: PostbackResult): string {
  if (result.httpStatus !== undefined && result.httpStatus !== 0) return `HTTP ${result.httpStatus}`;
  if (result.error !== undefined && /^no answer within/.test(result.error)) return 'no answer in time';
  if (result.error !== undefined && /^interrupted:/.test(result.error)) return 'interrupted: the sending process was stopping';
  return 'could not connect or the connection failed';
}
