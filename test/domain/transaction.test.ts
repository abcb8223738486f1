import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ACTIVITY_NAMES,
  ActivityCode,
  DomainError,
  formatTime,
  isEndStatus,
  isSigningHoldStale,
  putFile,
  signerAtTurn,
  signerDocumentsRefusal,
  signerStepRefusal,
  signerTurnRefusal,
  signingHoldOf,
  receiptFor,
  receiptTranslationLanguages,
  recordActivity,
  referencedBlobs,
  transition,
  updateFile,
  type StoredFile,
  type Transaction,
  type TransactionEvent,
  type TransactionStatusCode,
} from '../../src/domain/transaction.js';
import { nextTimerAt } from '../../src/domain/transaction-timers.js';
import { at, makeTransaction, T0 } from '../store/transaction-fixtures.js';

const PDF: StoredFile = { FileId: 'doc.pdf', Original: { sha256: 'a'.repeat(64), size: 1000, pages: 2 } };

function withFile(tx: Transaction): Transaction {
  return putFile(tx, PDF, T0);
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).code;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Every (from, event) → to the state machine allows (docs/design/transactions.md#transitions). */
function allowed(from: TransactionStatusCode, event: TransactionEvent['type'], to: TransactionStatusCode): boolean {
  switch (event) {
    case 'start':
      return from === 5 && (to === 10 || to === 20);
    case 'fail':
      return [5, 10, 20].includes(from) && to === 70;
    case 'sign':
      return from === 10 && (to === 10 || to === 20);
    case 'reject':
      return from === 10 && to === 40;
    case 'complete':
      return from === 20 && to === 30;
    case 'hold':
      return from === 10 && to === 20;
    case 'release':
      return from === 20 && to === 10;
    case 'expire':
      return (from === 5 || from === 10 || from === 20) && to === 50;
    case 'cancel':
      return isEndStatus(from) ? to === from : to === 60;
    case 'clean':
      return isEndStatus(from) && to === from;
  }
}

describe('transition', () => {
  it('runs the signing flow 5 → 10 → 10 → 20 → 30 in signer order', () => {
    let tx = withFile(makeTransaction());
    tx = transition(tx, { type: 'start' }, at(1));
    expect(tx.Status).toBe(10);
    expect(tx.StartedDateTime).toBe('2026-11-21T10:01:00.000+00:00');
    expect(codeOf(() => transition(tx, { type: 'sign', signerId: 'Signer2' }, at(2)))).toBe('SIGNER_NOT_AT_TURN');
    tx = transition(tx, { type: 'sign', signerId: 'Signer1' }, at(2));
    expect(tx.Status).toBe(10);
    expect(codeOf(() => transition(tx, { type: 'sign', signerId: 'Signer1' }, at(3)))).toBe('SIGNER_ALREADY_SIGNED');
    tx = transition(tx, { type: 'sign', signerId: 'Signer2' }, at(3));
    expect(tx.Status).toBe(20);
    tx = transition(tx, { type: 'complete' }, at(4));
    expect(tx).toMatchObject({ Status: 30, EndedDateTime: '2026-11-21T10:04:00.000+00:00' });
    expect(tx.Signers.map((s) => s.SignedDateTime)).toEqual(['2026-11-21T10:02:00.000+00:00', '2026-11-21T10:03:00.000+00:00']);
  });

  it('starts a seal-only transaction into processing (20)', () => {
    const tx = transition(withFile(makeTransaction({ Seal: true })), { type: 'start' }, at(1));
    expect(tx.Status).toBe(20);
  });

  it('refuses to start without a PDF, naming the file that lacks one', () => {
    expect(codeOf(() => transition(makeTransaction(), { type: 'start' }, at(1)))).toBe('NO_FILES');
    const metadataOnly = putFile(makeTransaction(), { FileId: 'meta-only' }, T0);
    expect(() => transition(metadataOnly, { type: 'start' }, at(1))).toThrow(
      'File meta-only has metadata but no PDF: upload the PDF before starting.',
    );
  });

  it('refuses a second start and uploads after the start with the spec message', () => {
    const started = transition(withFile(makeTransaction()), { type: 'start' }, at(1));
    expect(() => transition(started, { type: 'start' }, at(2))).toThrow('The transaction has already been started.');
    expect(() => putFile(started, PDF, at(2))).toThrow('The transaction has already been started.');
  });

  it('rejects: 10 → 40 with the reason and date on the signer', () => {
    const started = transition(withFile(makeTransaction()), { type: 'start' }, at(1));
    const rejected = transition(started, { type: 'reject', signerId: 'Signer1', reason: 'No' }, at(2));
    expect(rejected.Status).toBe(40);
    expect(rejected.Signers[0]).toMatchObject({ RejectReason: 'No', RejectDateTime: '2026-11-21T10:02:00.000+00:00' });
  });

  it('cancels an active transaction: 60, reason, data deleted, then cleaned', () => {
    const tx = withFile(
      makeTransaction({
        Signers: [
          { SendSignRequest: false,
            Email: 'a@example.com',
            Mobile: '+31612345678',
            BSN: '111222333',
            Iban: 'NL91ABNA0417164300',
            Verifications: [{ Type: 'DigiD', Bsn: '111222333' }, { Type: 'PhoneNumber', Number: '+31612345678' }],
          },
        ],
      }),
    );
    const cancelled = transition(tx, { type: 'cancel', reason: 'Wrong file' }, at(5));
    expect(cancelled).toMatchObject({
      Status: 60,
      CanceledDateTime: '2026-11-21T10:05:00.000+00:00',
      CancelationReason: 'Wrong file',
      cleanedAt: '2026-11-21T10:05:00.000+00:00',
    });
    const s = cancelled.Signers[0];
    expect(s?.Mobile).toBeUndefined();
    expect(s?.BSN).toBeUndefined();
    expect(s?.Iban).toBeUndefined();
    expect(s?.SignToken).toBeUndefined();
    expect(s?.Verifications).toEqual([{ Type: 'DigiD' }, { Type: 'PhoneNumber' }]);
    expect(referencedBlobs(cancelled)).toEqual([]);
    expect(cancelled.Files).toEqual([{ FileId: 'doc.pdf' }]);
    expect(codeOf(() => transition(cancelled, { type: 'cancel' }, at(6)))).toBe('TRANSACTION_CLEANED');
  });

  it('DELETE on an end status keeps the status and cleans', () => {
    const done = transition(transition(withFile(makeTransaction({ Seal: true })), { type: 'start' }, at(1)), { type: 'complete' }, at(2));
    const cancelled = transition(done, { type: 'cancel' }, at(3));
    expect(cancelled.Status).toBe(30);
    expect(cancelled.CanceledDateTime).toBe('2026-11-21T10:03:00.000+00:00');
    expect(cancelled.EndedDateTime).toBe('2026-11-21T10:02:00.000+00:00');
    expect(cancelled.cleanedAt).toBeDefined();
  });

  it('expires from 5 and 10 (from 20 only under a stale signing hold)', () => {
    expect(transition(makeTransaction(), { type: 'expire' }, at(1)).Status).toBe(50);
    const processing = transition(withFile(makeTransaction({ Seal: true })), { type: 'start' }, at(1));
    expect(codeOf(() => transition(processing, { type: 'expire' }, at(2)))).toBe('INVALID_TRANSITION');
  });

  it('a signing hold: 10 → 20 for the signer at turn; released back to 10; expires from 20 only once stale (5 minutes)', () => {
    const started = transition(withFile(makeTransaction()), { type: 'start' }, at(1));
    expect(codeOf(() => transition(started, { type: 'hold', signerId: 'Signer2' }, at(2)))).toBe('SIGNER_NOT_AT_TURN');
    const held = transition(started, { type: 'hold', signerId: 'Signer1' }, at(2));
    expect(held.Status).toBe(20);
    expect(signingHoldOf(held)).toEqual({ signerId: 'Signer1', since: formatTime(at(2)) });
    expect(codeOf(() => transition(held, { type: 'sign', signerId: 'Signer1' }, at(3)))).toBe('INVALID_TRANSITION');
    expect(codeOf(() => transition(held, { type: 'expire' }, at(6)))).toBe('INVALID_TRANSITION');
    expect(isSigningHoldStale(held, at(6))).toBe(false);
    expect(isSigningHoldStale(held, at(7))).toBe(true);
    const expired = transition(held, { type: 'expire' }, at(7));
    expect(expired.Status).toBe(50);
    expect(expired.Signers[0]!.SignSession).toEqual({});
    const released = transition(held, { type: 'release' }, at(3));
    expect(released.Status).toBe(10);
    expect(signingHoldOf(released)).toBeUndefined();
    expect(transition(released, { type: 'sign', signerId: 'Signer1' }, at(4)).Signers[0]!.SignedDateTime).toBe(formatTime(at(4)));
    // A seal-only transaction at 20 has no hold: nothing to release, no expiry.
    const sealing = transition(withFile(makeTransaction({ Seal: true })), { type: 'start' }, at(1));
    expect(codeOf(() => transition(sealing, { type: 'release' }, at(60)))).toBe('INVALID_TRANSITION');
    expect(codeOf(() => transition(sealing, { type: 'expire' }, at(60)))).toBe('INVALID_TRANSITION');
  });

  it('does not sign or reject before the start', () => {
    expect(codeOf(() => transition(makeTransaction(), { type: 'sign', signerId: 'Signer1' }, at(1)))).toBe('TRANSACTION_NOT_STARTED');
  });

  it('never changes its input', () => {
    const tx = deepFreeze(withFile(makeTransaction()));
    const copy = structuredClone(tx);
    transition(tx, { type: 'start' }, at(1));
    transition(tx, { type: 'cancel', reason: 'x' }, at(1));
    expect(tx).toEqual(copy);
  });
});

const eventArb: fc.Arbitrary<TransactionEvent> = fc.oneof(
  fc.constant<TransactionEvent>({ type: 'start' }),
  fc.constant<TransactionEvent>({ type: 'fail', reason: 'boom' }),
  fc.constantFrom('Signer1', 'Signer2', 'Signer3', 'nobody').map<TransactionEvent>((signerId) => ({ type: 'sign', signerId })),
  fc.constantFrom('Signer1', 'Signer2').map<TransactionEvent>((signerId) => ({ type: 'reject', signerId, reason: 'no' })),
  fc.constant<TransactionEvent>({ type: 'complete' }),
  fc.constant<TransactionEvent>({ type: 'expire' }),
  fc.constantFrom('Signer1', 'Signer2', 'nobody').map<TransactionEvent>((signerId) => ({ type: 'hold', signerId })),
  fc.constant<TransactionEvent>({ type: 'release' }),
  fc.option(fc.string(), { nil: undefined }).map<TransactionEvent>((reason) => (reason === undefined ? { type: 'cancel' } : { type: 'cancel', reason })),
  fc.constant<TransactionEvent>({ type: 'clean' }),
);

describe('state machine property', () => {
  it('random event sequences only make the allowed transitions; end statuses are final', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        fc.boolean(),
        // Each event comes 1 or 6 minutes after the one before, so signing holds sometimes go stale (5 minutes).
        fc.array(fc.tuple(eventArb, fc.constantFrom(1, 1, 6)), { maxLength: 25 }),
        (signers, seal, hasFile, events) => {
          const request = {
            Seal: seal || signers === 0,
            Signers: Array.from({ length: signers }, (_, i) => ({ SendSignRequest: false, Email: `s${i}@example.com` })),
          };
          let tx = makeTransaction(request);
          if (hasFile) tx = withFile(tx);
          let minute = 1;
          let endStatus: TransactionStatusCode | undefined;
          for (const [event, gap] of events) {
            minute += gap;
            const now = at(minute);
            let next: Transaction;
            try {
              next = transition(tx, event, now);
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              if (tx.cleanedAt !== undefined) expect(error.code).toBe('TRANSACTION_CLEANED');
              continue;
            }
            expect(tx.cleanedAt).toBeUndefined();
            expect(allowed(tx.Status, event.type, next.Status)).toBe(true);
            // A transaction at 20 under a signing hold leaves it by release, or by expiry once the hold is stale.
            if (event.type === 'release') expect(signingHoldOf(tx)).toBeDefined();
            if (event.type === 'expire' && tx.Status === 20) expect(isSigningHoldStale(tx, now)).toBe(true);
            if (event.type === 'hold') expect(signingHoldOf(next)).toEqual({ signerId: signerAtTurn(tx).Id, since: formatTime(now) });
            else expect(signingHoldOf(next)).toBeUndefined();
            if (endStatus !== undefined) expect(next.Status).toBe(endStatus);
            if (isEndStatus(next.Status)) {
              endStatus = next.Status;
              expect(next.EndedDateTime).toBeDefined();
            }
            if (event.type === 'cancel' || event.type === 'clean') expect(next.cleanedAt).toBe(now.toISOString().replace('Z', '+00:00'));
            expect(next.version).toBe(tx.version);
            expect(next.ModifiedDateTime).toBe(now.toISOString().replace('Z', '+00:00'));
            tx = next;
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('signing holds: a started transaction at 20 under a hold leaves it only by release (→ 10) or, once stale, expiry (→ 50), fail or cancel', () => {
    const holdEventArb: fc.Arbitrary<TransactionEvent> = fc.oneof(
      fc.constantFrom('Signer1', 'Signer2', 'Signer3').map<TransactionEvent>((signerId) => ({ type: 'hold', signerId })),
      fc.constant<TransactionEvent>({ type: 'release' }),
      fc.constant<TransactionEvent>({ type: 'expire' }),
      fc.constantFrom('Signer1', 'Signer2', 'Signer3').map<TransactionEvent>((signerId) => ({ type: 'sign', signerId })),
      fc.constant<TransactionEvent>({ type: 'complete' }),
    );
    const seen = { hold: 0, release: 0, expireFrom20: 0, refusedFresh: 0 };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.tuple(holdEventArb, fc.constantFrom(1, 2, 6)), { minLength: 1, maxLength: 20 }),
        (signers, events) => {
          let tx = transition(withFile(makeTransaction({ Seal: true, Signers: Array.from({ length: signers }, (_, i) => ({ SendSignRequest: false, Email: `s${i}@example.com` })) })), { type: 'start' }, at(0));
          let minute = 0;
          for (const [event, gap] of events) {
            minute += gap;
            const now = at(minute);
            const hold = signingHoldOf(tx);
            let next: Transaction;
            try {
              next = transition(tx, event, now);
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              if (hold !== undefined && event.type === 'expire' && !isSigningHoldStale(tx, now)) seen.refusedFresh++;
              continue;
            }
            expect(allowed(tx.Status, event.type, next.Status)).toBe(true);
            if (hold !== undefined) {
              // Under a hold only release, or expiry once stale, moves the transaction (sign and complete wait).
              expect(['release', 'expire']).toContain(event.type);
              if (event.type === 'expire') expect(now.getTime() - Date.parse(hold.since)).toBeGreaterThanOrEqual(5 * 60_000);
              expect(next.Signers.every((s) => s.SignSession?.signingSince === undefined)).toBe(true);
            }
            if (event.type === 'hold') seen.hold++;
            if (event.type === 'release') seen.release++;
            if (event.type === 'expire' && hold !== undefined) seen.expireFrom20++;
            tx = next;
          }
        },
      ),
      { numRuns: 300 },
    );
    // The hold transitions were exercised, not only refused.
    expect(Object.values(seen).every((n) => n > 0), JSON.stringify(seen)).toBe(true);
  });
});

describe('activities, files and timers', () => {
  it('records signer and receiver activities with their names', () => {
    let tx = makeTransaction();
    tx = recordActivity(tx, { signerId: 'Signer1' }, { id: 'act-1', code: ActivityCode.Opened }, at(1));
    tx = recordActivity(tx, { signerId: 'Signer1' }, { id: 'act-2', code: 105, info: 'doc.pdf' }, at(2));
    expect(tx.Signers[0]?.Activities).toEqual([
      { Id: 'act-1', Code: 103, Activity: 'Opened', CreatedDateTime: '2026-11-21T10:01:00.000+00:00' },
      { Id: 'act-2', Code: 105, Activity: 'DocumentOpened', Info: 'doc.pdf', CreatedDateTime: '2026-11-21T10:02:00.000+00:00' },
    ]);
    const receiverId = tx.Receivers[0]?.Id as string;
    tx = recordActivity(tx, { receiverId }, { id: 'act-3', code: 301 }, at(3));
    expect(tx.Receivers[0]?.Activities[0]?.Activity).toBe('SignedDocumentSent');
    expect(codeOf(() => recordActivity(tx, { receiverId }, { id: 'a', code: 103 }, at(4)))).toBe('INVALID_TRANSITION');
    expect(codeOf(() => recordActivity(tx, { signerId: 'x' }, { id: 'a', code: 103 }, at(4)))).toBe('SIGNER_NOT_FOUND');
    expect(ACTIVITY_NAMES[999]).toBe('Failed');
  });

  it('replaces a file under the same id and keeps upload order', () => {
    let tx = putFile(makeTransaction(), { FileId: 'b' }, T0);
    tx = putFile(tx, { FileId: 'a' }, T0);
    tx = putFile(tx, { FileId: 'b', DisplayName: 'B' }, T0);
    expect(tx.Files.map((f) => [f.FileId, f.DisplayName])).toEqual([['b', 'B'], ['a', undefined]]);
    tx = updateFile(tx, 'a', (f) => ({ ...f, Current: { sha256: 'c'.repeat(64), size: 3 } }), T0);
    expect(referencedBlobs(tx)).toEqual(['c'.repeat(64)]);
    expect(codeOf(() => updateFile(tx, 'zz', (f) => f, T0))).toBe('FILE_NOT_FOUND');
  });

  it('derives timers: expiry while open, reminders while waiting, cleaning after the retention period', () => {
    const created = makeTransaction({ Signers: [{ SendSignRequest: false, Email: 'a@example.com', Expires: '2026-11-25T10:00:00+01:00' }] });
    expect(nextTimerAt(created, 30)).toEqual({ kind: 'expire', at: '2026-11-25T09:00:00.000+00:00' });
    let started = transition(withFile(created), { type: 'start' }, at(1));
    started = { ...started, Signers: started.Signers.map((s) => ({ ...s, NextReminderDateTime: '2026-11-22T10:00:00.000+00:00' })) };
    expect(nextTimerAt(started, 30)).toEqual({ kind: 'remind', at: '2026-11-22T10:00:00.000+00:00' });
    const ended = transition(started, { type: 'fail', reason: 'x' }, at(2));
    expect(nextTimerAt(ended, 30)).toEqual({ kind: 'clean', at: '2026-12-21T10:02:00.000+00:00' });
    expect(nextTimerAt(transition(ended, { type: 'clean' }, at(3)), 30)).toBeUndefined();
  });
});

describe('who may act: one code per rule, for the state machine and the signer use cases', () => {
  it('names the same refusal the state machine throws, through the whole journey', () => {
    let tx = withFile(makeTransaction());
    const signer = (t: Transaction, id: string) => t.Signers.find((s) => s.Id === id)!;
    expect(signerStepRefusal(tx, signer(tx, 'Signer1'))).toBe('TRANSACTION_NOT_STARTED');
    expect(codeOf(() => transition(tx, { type: 'sign', signerId: 'Signer1' }, at(1)))).toBe('TRANSACTION_NOT_STARTED');
    expect(signerDocumentsRefusal(tx)).toBe('TRANSACTION_NOT_STARTED');
    tx = transition(tx, { type: 'start' }, at(1));
    expect(signerStepRefusal(tx, signer(tx, 'Signer2'))).toBeUndefined();
    expect(signerTurnRefusal(tx, signer(tx, 'Signer2'))).toBe('SIGNER_NOT_AT_TURN');
    expect(signerTurnRefusal(tx, signer(tx, 'Signer1'))).toBeUndefined();
    expect(signerDocumentsRefusal(tx)).toBeUndefined();
    tx = transition(tx, { type: 'sign', signerId: 'Signer1' }, at(2));
    expect(signerStepRefusal(tx, signer(tx, 'Signer1'))).toBe('SIGNER_ALREADY_SIGNED');
    tx = transition(tx, { type: 'reject', signerId: 'Signer2', reason: 'no' }, at(3));
    expect(signerStepRefusal(tx, signer(tx, 'Signer2'))).toBe('SIGNER_ALREADY_REJECTED');
    expect(codeOf(() => transition(tx, { type: 'sign', signerId: 'Signer2' }, at(4)))).toBe('SIGNER_ALREADY_REJECTED');
    expect(signerDocumentsRefusal(tx)).toBe('TRANSACTION_ENDED');
  });

  it('lets a signer of a signed transaction see its documents, not sign it again', () => {
    let tx = transition(withFile(makeTransaction()), { type: 'start' }, at(1));
    tx = transition(tx, { type: 'sign', signerId: 'Signer1' }, at(2));
    tx = transition(tx, { type: 'sign', signerId: 'Signer2' }, at(3));
    tx = transition(tx, { type: 'complete' }, at(4));
    expect(signerDocumentsRefusal(tx)).toBeUndefined();
    expect(codeOf(() => transition(tx, { type: 'sign', signerId: 'Signer2' }, at(5)))).toBe('SIGNER_ALREADY_SIGNED');
  });
});

describe('receipts in the languages of the signers', () => {
  const blob = (c: string) => ({ sha256: c.repeat(64), size: 1 });
  const tx: Transaction = {
    ...makeTransaction({
      Language: 'nl-NL',
      Signers: [
        { Email: 'a@example.com', Language: 'de-DE', SendSignRequest: false },
        { Email: 'b@example.com', SendSignRequest: false },
        { Email: 'c@example.com', Language: 'nl-NL', SendSignRequest: false },
        { Email: 'd@example.com', Language: 'de-DE', SendSignRequest: false },
        { Email: 'e@example.com', Language: 'fr-FR', SendSignRequest: false },
      ],
    }),
    Receipt: blob('a'),
    ReceiptTranslations: { 'de-DE': blob('b') },
  };

  it("builds one for each other language a signer reads, once each, none for the transaction's own", () => {
    expect(receiptTranslationLanguages(tx)).toEqual(['de-DE', 'fr-FR']);
  });

  it("gives a reader the one in their language, else the transaction's, saying which language it is", () => {
    expect(receiptFor(tx, 'de-DE')).toEqual({ blob: blob('b'), language: 'de-DE' });
    expect(receiptFor(tx, 'fr-FR')).toEqual({ blob: blob('a'), language: 'nl-NL' });
    expect(receiptFor(tx, undefined)).toEqual({ blob: blob('a'), language: 'nl-NL' });
    expect(receiptFor({ ...tx, Receipt: undefined }, 'de-DE')).toBeUndefined();
  });

  it('references every translation until cleaning drops them all', () => {
    expect(referencedBlobs(tx).sort()).toEqual([blob('a').sha256, blob('b').sha256]);
    const ended = { ...tx, Status: 30 as const };
    const cleaned = transition(ended, { type: 'clean' }, at(9));
    expect(cleaned.ReceiptTranslations).toBeUndefined();
    expect(referencedBlobs(cleaned)).toEqual([]);
  });
});
