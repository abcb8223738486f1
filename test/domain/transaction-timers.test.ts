/**
 * DELETE's grace period in the domain (docs/design/transactions.md#cancellation): `cancel` with `graceMinutes` deletes
 * the sensitive data at once, keeps documents, receipt and sign tokens, and derives the clean timer from
 * `CleanDueDateTime` (through the `releaseAt` column the store already indexes); a second DELETE does not extend it;
 * cleaning removes it.
 */
import { describe, expect, it } from 'vitest';
import { putFile, transition } from '../../src/domain/transaction.js';
import { nextTimerAt, transactionTimers } from '../../src/domain/transaction-timers.js';
import { at, makeTransaction, T0 } from '../store/transaction-fixtures.js';

function withFile() {
  const tx = makeTransaction({ Signers: [{ SendSignRequest: false, Email: 'a@example.com', Mobile: '+31612345678', BSN: '111222333' }] });
  return putFile(tx, { FileId: 'doc.pdf', Original: { sha256: 'a'.repeat(64), size: 1, pages: 1 } }, T0);
}

describe('cancel with a grace period', () => {
  it('deletes the sensitive data at once, keeps files and tokens, and is due for cleaning when the grace period ends', () => {
    const cancelled = transition(withFile(), { type: 'cancel', reason: 'r', graceMinutes: 15 }, at(0));
    expect(cancelled).toMatchObject({ Status: 60, CancelationReason: 'r', CleanDueDateTime: '2026-11-21T10:15:00.000+00:00' });
    expect(cancelled.cleanedAt).toBeUndefined();
    expect(cancelled.Files[0]?.Original).toBeDefined();
    expect(cancelled.Signers[0]?.SignToken).toBeDefined();
    expect(cancelled.Signers[0]).not.toHaveProperty('Mobile');
    expect(cancelled.Signers[0]).not.toHaveProperty('BSN');
    expect(transactionTimers(cancelled).releaseAt).toBe('2026-11-21T10:15:00.000+00:00');
    expect(nextTimerAt(cancelled, 30)).toEqual({ kind: 'clean', at: '2026-11-21T10:15:00.000+00:00' });
    // Retention 0 does not clean before the grace period ends.
    expect(nextTimerAt(cancelled, 0)).toEqual({ kind: 'clean', at: '2026-11-21T10:15:00.000+00:00' });

    const again = transition(cancelled, { type: 'cancel', graceMinutes: 15 }, at(10));
    expect(again.CleanDueDateTime).toBe('2026-11-21T10:15:00.000+00:00');

    const cleaned = transition(again, { type: 'clean' }, at(16));
    expect(cleaned.cleanedAt).toBeDefined();
    expect(cleaned).not.toHaveProperty('CleanDueDateTime');
    expect(cleaned.Signers[0]).not.toHaveProperty('SignToken');
    expect(cleaned.Files[0]).toEqual({ FileId: 'doc.pdf' });
    expect(transactionTimers(cleaned)).toEqual({});
  });

  it('without a grace period cleans at once, as before', () => {
    const cancelled = transition(withFile(), { type: 'cancel' }, at(0));
    expect(cancelled.cleanedAt).toBeDefined();
    expect(cancelled.Files[0]?.Original).toBeUndefined();
  });
});
