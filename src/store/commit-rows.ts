/**
 * What a commit writes, as rows, computed once for both stores (SQLite and PostgreSQL differ only in their SQL): the
 * transaction's row (its JSON as stored, with sign tokens sealed, and the columns the timers and the storage quota
 * query), the blobs it references, the hashes of its signers' tokens, and its outbox rows with their due times.
 */
import { referencedBlobs, uploadedBytes, type Transaction } from '../domain/transaction.js';
import { transactionTimers } from '../domain/transaction-timers.js';
import type { MasterKey } from './master-key.js';
import { sealSignTokens } from './sealed-secrets.js';
import { hashSignToken, type OutboxInput, type OutboxKind } from './store.js';

/** The `transactions` row of a stored transaction; times in milliseconds since the epoch, null when unset. */
export interface TransactionRow {
  readonly id: string;
  readonly accountId: string;
  readonly version: number;
  readonly status: number;
  readonly data: string;
  readonly expireAt: number | null;
  readonly remindAt: number | null;
  readonly endedAt: number | null;
  readonly releaseAt: number | null;
  readonly storageBytes: number;
}

/** An `outbox` row to insert. */
export interface OutboxRowInsert {
  readonly kind: OutboxKind;
  readonly payload: string;
  readonly orderKey: string | null;
  /** When it is first due (also its `first_due_at`). */
  readonly dueAt: number;
}

/** Everything one commit writes besides the audit entries. */
export interface CommitRows {
  readonly transaction: TransactionRow;
  /** SHA-256 of every blob the transaction references. */
  readonly blobs: readonly string[];
  /**
   * The sign-token rows (hash and signer) that replace the transaction's; undefined for a cleaned transaction, which
   * keeps its token hashes so that its signer links answer 410, not 404 (docs/design/signer-api.md#show-and-receipt-urls).
   */
  readonly signTokens: readonly { readonly hash: string; readonly signerId: string }[] | undefined;
  readonly outbox: readonly OutboxRowInsert[];
}

/** The rows of committing `stored` (the transaction with its new version) with `outbox`. */
export function commitRows(stored: Transaction, outbox: readonly OutboxInput[], masterKey: MasterKey | undefined): CommitRows {
  const { version: _version, ...body } = stored;
  const timers = transactionTimers(stored);
  const defaultDue = Date.parse(stored.ModifiedDateTime);
  return {
    transaction: {
      id: stored.Id,
      accountId: stored.AccountId,
      version: stored.version,
      status: stored.Status,
      data: JSON.stringify(sealSignTokens(body, masterKey)),
      expireAt: ms(timers.expireAt),
      remindAt: ms(timers.remindAt),
      endedAt: ms(timers.endedAt),
      releaseAt: ms(timers.releaseAt),
      storageBytes: uploadedBytes(stored),
    },
    blobs: [...referencedBlobs(stored)],
    signTokens:
      stored.cleanedAt !== undefined
        ? undefined
        : stored.Signers.flatMap((s) => (s.SignToken === undefined ? [] : [{ hash: hashSignToken(s.SignToken), signerId: s.Id }])),
    outbox: outbox.map((row) => ({
      kind: row.kind,
      payload: JSON.stringify(row.payload),
      orderKey: row.orderKey ?? null,
      dueAt: row.dueAt?.getTime() ?? defaultDue,
    })),
  };
}

/** A stored time in milliseconds since the epoch; null when unset. */
function ms(at: string | undefined): number | null {
  return at === undefined ? null : Date.parse(at);
}
