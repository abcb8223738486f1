/**
 * Applying a change to a stored transaction under optimistic concurrency: read, compute the new
 * state with the pure domain functions, commit with the version read; when another request committed in between,
 * read again and recompute (a handful of times), so that, say, two files uploaded in parallel both land.
 */
import type { Transaction } from '../domain/transaction.js';
import type { AuditEntryInput, OutboxInput } from '../store/store.js';
import { ConcurrencyError } from '../store/store.js';
import type { ServiceContext } from './context.js';

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
      return await ctx.store.commit({
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
