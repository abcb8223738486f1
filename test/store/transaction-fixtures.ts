/**
 * Builders of valid transactions for domain and store tests: fixed clock, deterministic ids and tokens.
 */
import { createTransaction, type CreateTransactionRequest } from '../../src/domain/transaction-rules.js';
import type { Transaction } from '../../src/domain/transaction.js';

/** The fixed time every test starts from. */
export const T0 = new Date('2026-11-21T10:00:00.000Z');

/** `T0` plus `minutes`. */
export function at(minutes: number): Date {
  return new Date(T0.getTime() + minutes * 60_000);
}

/** Deterministic id/token sources. */
export function counters(prefix = 'x'): { newId: () => string; newSignToken: () => string } {
  let id = 0;
  let token = 0;
  return {
    newId: () => `${prefix}-id-${++id}`,
    newSignToken: () => `${prefix}-token-${++token}`.padEnd(24, '0'),
  };
}

/** A created (status 5) transaction from `request` (default: two signers and a receiver). */
export function makeTransaction(
  request: CreateTransactionRequest = {
    Reference: 'ref-1',
    Signers: [
      { Email: 'a@example.com', SignRequestMessage: 'Please sign.' },
      { Email: 'b@example.com', Mobile: '+31612345678', SignRequestMessage: 'Please sign.' },
    ],
    Receivers: [{ Email: 'r@example.com', Name: 'R' }],
  },
  options: { id?: string; accountId?: string; now?: Date } = {},
): Transaction {
  const id = options.id ?? 'tx-1';
  return createTransaction(request, {
    id,
    accountId: options.accountId ?? 'acc-1',
    now: options.now ?? T0,
    ...counters(id),
  });
}
