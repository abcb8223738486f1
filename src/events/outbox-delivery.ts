/**
 * One delivery of an outbox row and what follows from it (docs/design/events.md#outbox), shared by the embedded outbox
 * worker (event-worker.ts) and the PostgreSQL job runner (postgres-job-runner.ts): deliver the postback or mail, judge
 * the outcome (delivered; retried with backoff and jitter for 72 hours; given up), record the attempts in one store
 * write and audit a row given up on (mails also get activity 999).
 */
import { withTrace, type ServiceContext } from '../service/context.js';
import { parseMailPayload } from '../service/delivery/mail-payload.js';
import { recordMailFailure } from '../service/delivery/record-mail-delivery.js';
import { recordPostbackFailure } from '../service/delivery/record-postback-delivery.js';
import type { OutboxMessage, OutboxSettlement } from '../store/store.js';
import { traced } from '../service/observability/tracing.js';
import { nextRetryAt } from './backoff.js';
import { deliverMail, type MailDeps } from './deliver-mail.js';
import { deliverPostback } from './deliver-postback.js';
import { parsePostbackPayload } from '../service/delivery/outbox-rows.js';
import type { DeliveryOutcome } from './delivery.js';

/** Where delivery problems are reported. */
export interface DeliveryLog {
  info(data: object, message: string): void;
  error(data: object, message: string): void;
}

/** What a delivery needs besides the service context. */
export interface DeliveryDeps {
  readonly mail: MailDeps;
  readonly log: DeliveryLog;
  /** Jitter source in [0, 1) (default Math.random; tests pass a fixed one). */
  readonly random?: () => number;
  readonly postbackTimeoutMs?: number;
  /** Delay before the first retry (default 30 s, backoff.ts). */
  readonly retryBaseMs?: number;
}

/** A delivered (or failed) row with the settlement to record. */
export interface Settled {
  readonly message: OutboxMessage;
  readonly settlement: OutboxSettlement;
  readonly outcome: DeliveryOutcome;
}

/** Delivers `message` once and judges the outcome; never throws. `signal` interrupts a postback (shutdown). */
export async function deliverAndJudge(ctx: ServiceContext, deps: DeliveryDeps, message: OutboxMessage, signal?: AbortSignal): Promise<Settled> {
  const outcome = await traced(
    `outbox.deliver ${message.kind}`,
    { 'paraph.outbox.id': message.id, 'paraph.outbox.attempt': message.attempts, 'paraph.transaction.id': message.transactionId },
    (delivery) => deliver(withTrace(ctx, delivery), deps, message, signal),
    traceparentOf(message),
  );
  const at = ctx.clock();
  const base = { outboxId: message.id, attempt: message.attempts, at, ...(outcome.responseCode !== undefined ? { responseCode: outcome.responseCode } : {}) };
  if (outcome.ok) {
    return { message, outcome, settlement: { attempt: { ...base, outcome: 'delivered', ...(outcome.detail !== undefined ? { detail: outcome.detail } : {}) } } };
  }
  const retryAt = outcome.permanent ? undefined : nextRetryAt(at, message.firstDueAt, message.attempts, deps.random ?? Math.random, deps.retryBaseMs);
  return {
    message,
    outcome,
    settlement: { attempt: { ...base, outcome: retryAt ? 'retry' : 'failed', detail: outcome.error }, ...(retryAt ? { retryAt } : {}) },
  };
}

/** Records the outcomes of `batch` in one store write, then audits the rows given up on. */
export async function settleDeliveries(ctx: ServiceContext, deps: DeliveryDeps, batch: readonly Settled[]): Promise<void> {
  await ctx.store.settleOutbox(batch.map((s) => s.settlement));
  for (const { message, settlement } of batch) {
    const { outcome, at } = settlement.attempt;
    ctx.observer?.deliveryAttempt(message.kind, outcome, outcome === 'delivered' ? Math.max(0, at.getTime() - message.firstDueAt.getTime()) : undefined);
  }
  for (const { message, outcome, settlement } of batch) {
    if (settlement.attempt.outcome !== 'failed' || outcome.ok) continue;
    deps.log.error({ outboxId: message.id, kind: message.kind, error: outcome.error, url: urlOf(message) }, 'outbox row given up');
    try {
      await recordGivenUp(ctx, message, outcome.error, outcome.responseCode);
    } catch (error) {
      deps.log.error({ err: error, outboxId: message.id }, 'recording a given-up row failed');
    }
  }
}

async function deliver(ctx: ServiceContext, deps: DeliveryDeps, message: OutboxMessage, signal: AbortSignal | undefined): Promise<DeliveryOutcome> {
  try {
    if (message.kind === 'postback') {
      return await deliverPostback(ctx, message, {
        ...(deps.postbackTimeoutMs !== undefined ? { timeoutMs: deps.postbackTimeoutMs } : {}),
        ...(signal !== undefined ? { signal } : {}),
      });
    }
    if (message.kind === 'mail') return await deliverMail(ctx, deps.mail, message);
    return { ok: true, detail: 'timer rows need no delivery' };
  } catch (error) {
    return { ok: false, permanent: false, error: (error as Error).message ?? String(error) };
  }
}

async function recordGivenUp(ctx: ServiceContext, message: OutboxMessage, error: string, responseCode: number | undefined): Promise<void> {
  if (message.kind === 'mail') {
    const payload = parseMailPayload(message.payload);
    if (payload !== undefined) await recordMailFailure(ctx, payload, error);
  }
  if (message.kind === 'postback') {
    const payload = parsePostbackPayload(message.payload);
    if (payload === undefined) return;
    await recordPostbackFailure(ctx, {
      transactionId: payload.transactionId,
      url: payload.url,
      attempt: message.attempts,
      error,
      ...(responseCode !== undefined ? { httpStatus: responseCode } : {}),
    });
  }
}

function urlOf(message: OutboxMessage): string | undefined {
  return message.kind === 'postback' ? parsePostbackPayload(message.payload)?.url : undefined;
}

/** The trace context the row was enqueued in (service/commit-change.ts), if any. */
function traceparentOf(message: OutboxMessage): string | undefined {
  const payload = message.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  return typeof payload.traceparent === 'string' ? payload.traceparent : undefined;
}
