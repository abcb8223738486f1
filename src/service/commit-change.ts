/**
 * Applying a change to a stored transaction under optimistic concurrency: read, compute the new
 * state with the pure domain functions, commit with the version read; when another request committed in between,
 * read again and recompute (a handful of times), so that, say, two files uploaded in parallel both land.
 */
import type { Transaction } from '../domain/transaction.js';
import type { AuditEntryInput, OutboxInput, TransactionChange } from '../store/store.js';
import { ConcurrencyError } from '../store/store.js';
import type { ServiceContext } from './context.js';
import { activeTracer, traced } from './observability/tracing.js';

/** What a mutation returns: the new state and what it causes. */
export interface Change {
  readonly transaction: Transaction;
  readonly audit?: readonly AuditEntryInput[];
  readonly outbox?: readonly OutboxInput[];
  readonly purgeAudit?: boolean;
}

/**
 * The time of a change: the clock, but never before the transaction's last modification (audit entries must not
 * run backwards, and two requests may read the clock in one order and commit in the other).
 */
export function changeTime(ctx: ServiceContext, tx: Transaction): Date {
  const now = ctx.clock();
  const last = Date.parse(tx.ModifiedDateTime);
  return Number.isFinite(last) && last > now.getTime() ? new Date(last) : now;
}

/** The `read` of {@link commitChange} for a job that names a transaction which must exist (an internal invariant). */
export function existingTransaction(ctx: ServiceContext, id: string): () => Promise<Transaction> {
  return async () => {
    const tx = await ctx.store.getTransaction(id);
    if (tx === undefined) throw new Error(`transaction ${id} does not exist`);
    return tx;
  };
}

/**
 * Commits `mutate(current, now)` for the transaction `read()` returns, retrying on a concurrent change.
 * `mutate` may throw to refuse (its error propagates unchanged) or return undefined when there is nothing to change.
 */
export async function commitChange(
  ctx: ServiceContext,
  read: () => Promise<Transaction>,
  mutate: (tx: Transaction, now: Date) => Change | undefined | Promise<Change | undefined>,
): Promise<Transaction> {
  for (let attempt = 1; ; attempt++) {
    const tx = await read();
    const change = await mutate(tx, changeTime(ctx, tx));
    if (change === undefined) return tx;
    try {
      return await commitTransaction(ctx, {
        transaction: change.transaction,
        expectedVersion: tx.version,
        ...(change.audit ? { audit: change.audit } : {}),
        ...(change.outbox ? { outbox: change.outbox } : {}),
        ...(change.purgeAudit ? { purgeAudit: true } : {}),
      });
    } catch (error) {
      if (!(error instanceof ConcurrencyError) || attempt >= 5) throw error;
    }
  }
}

/**
 * `ctx.store.commit(change)`, the way every use case commits: in a `store.commit` span when tracing is on, its outbox
 * rows carrying the trace context.
 */
export function commitTransaction(ctx: ServiceContext, change: TransactionChange): Promise<Transaction> {
  if (activeTracer() === undefined) return ctx.store.commit(change);
  return traced(
    'store.commit',
    { 'paraph.transaction.id': change.transaction.Id, 'paraph.commit.expected_version': change.expectedVersion },
    // The deliveries become children of the commit that enqueued them.
    (commit) => ctx.store.commit(change.outbox ? { ...change, outbox: withTraceContext(change.outbox, commit) } : change),
    ctx.trace,
  );
}

/**
 * With tracing on, each outbox row carries the `traceparent` of the change that caused it, so that its delivery
 * (whenever and wherever a worker makes it) continues the same trace.
 */
function withTraceContext(rows: readonly OutboxInput[], traceparent: string | undefined): readonly OutboxInput[] {
  if (traceparent === undefined) return rows;
  return rows.map((row) =>
    typeof row.payload === 'object' && row.payload !== null && !Array.isArray(row.payload) ? { ...row, payload: { ...row.payload, traceparent } } : row,
  );
}
