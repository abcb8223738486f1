import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  appendAuditEntry,
  GENESIS_HASH,
  hashAuditEntry,
  verifyAuditLog,
  type AuditEntry,
  type AuditEventInput,
} from '../../src/receipt/audit-log.js';
import { ParaphError } from '../../src/errors.js';
import { TEST_NOW } from '../helpers/test-now.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

/** Events of a few shapes with arbitrary (Unicode) strings in them; times are assigned when the log is built. */
const eventArb: fc.Arbitrary<Omit<AuditEventInput, 'at'>> = fc.oneof(
  fc.record({
    type: fc.constant('file.uploaded' as const),
    actor: fc.constant('api' as const),
    data: fc.record({
      fileId: fc.string({ minLength: 1, maxLength: 12 }),
      displayName: fc.string({ unit: 'grapheme', maxLength: 20 }),
      sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
      bytes: fc.nat(),
      pages: fc.integer({ min: 1, max: 500 }),
    }),
  }),
  fc.record({
    type: fc.constant('mail.sent' as const),
    actor: fc.constant('system' as const),
    data: fc.record({
      kind: fc.constantFrom('invitation' as const, 'reminder' as const, 'confirmation' as const),
      recipientId: fc.constantFrom('Signer1', 'Signer2'),
      to: fc.emailAddress(),
      messageId: fc.uuid(),
    }),
  }),
  fc.record({
    type: fc.constant('verification.performed' as const),
    actor: fc.constantFrom('signer:Signer1' as const, 'signer:Zoë' as const),
    data: fc.record({
      signerId: fc.string({ minLength: 1, maxLength: 8 }),
      verification: fc.constantFrom('PhoneNumber', 'Email', 'Scribble'),
      result: fc.constantFrom('passed' as const, 'failed' as const),
      evidence: fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 10 }), { maxKeys: 3 }),
    }),
  }),
  fc.record({
    type: fc.constant('transaction.cancelled' as const),
    actor: fc.constant('api' as const),
    data: fc.option(fc.record({ reason: fc.string({ maxLength: 30 }) }), { nil: undefined }).map((d) => d ?? {}),
  }),
);

function buildLog(events: readonly Omit<AuditEventInput, 'at'>[], gaps: readonly number[]): readonly AuditEntry[] {
  let log: readonly AuditEntry[] = [];
  let time = T0;
  events.forEach((event, i) => {
    time += gaps[i % gaps.length] ?? 0;
    log = appendAuditEntry(log, { ...event, at: new Date(time) } as AuditEventInput);
  });
  return log;
}

const logArb = fc
  .tuple(fc.array(eventArb, { minLength: 1, maxLength: 25 }), fc.array(fc.nat({ max: 5000 }), { minLength: 1, maxLength: 5 }))
  .map(([events, gaps]) => buildLog(events, gaps));

type Mutable = Record<string, unknown>;
const clone = (log: readonly AuditEntry[]): Mutable[] => structuredClone(log) as unknown as Mutable[];
const flipHex = (hex: string, at: number): string =>
  hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);

describe('appendAuditEntry', () => {
  it('chains from 64 zeros and hashes the canonical JSON of the entry without its hash', () => {
    const log = appendAuditEntry([], {
      at: new Date(TEST_NOW),
      type: 'transaction.started',
      actor: 'api',
      data: { signers: 2, files: 1 },
    });
    const entry = log[0]!;
    expect(entry.prevHash).toBe(GENESIS_HASH);
    expect(entry.seq).toBe(1);
    expect(entry.at).toBe('2026-11-21T10:00:00.000+00:00');
    const text =
      '{"actor":"api","at":"2026-11-21T10:00:00.000+00:00","data":{"files":1,"signers":2},' +
      `"prevHash":"${GENESIS_HASH}","seq":1,"type":"transaction.started"}`;
    expect(entry.hash).toBe(createHash('sha256').update(text).digest('hex'));
    expect(hashAuditEntry(entry)).toBe(entry.hash);
  });

  it('returns a new log and leaves the old one and the caller\'s data untouched', () => {
    const data = { fileId: 'a.pdf', sha256: 'f'.repeat(64), bytes: 10 };
    const one = appendAuditEntry([], { at: new Date(T0), type: 'metadata.uploaded', actor: 'api', data });
    const two = appendAuditEntry(one, { at: new Date(T0), type: 'transaction.started', actor: 'api', data: { files: 1, signers: 0 } });
    expect(one).toHaveLength(1);
    expect(two).toHaveLength(2);
    expect(two[1]!.prevHash).toBe(one[0]!.hash);
    data.bytes = 11; // the recorded entry is a frozen copy
    expect(verifyAuditLog(two)).toEqual({ ok: true, head: two[1]!.hash, count: 2 });
    expect(Object.isFrozen(two[0]!.data)).toBe(true);
  });

  it('refuses a time earlier than the last entry, an invalid Date and data JSON cannot carry', () => {
    const one = appendAuditEntry([], { at: new Date(T0), type: 'transaction.expired', actor: 'system', data: { expiredAt: 'x' } });
    const earlier = () =>
      appendAuditEntry(one, { at: new Date(T0 - 1), type: 'transaction.cleaned', actor: 'system', data: { what: [] } });
    expect(earlier).toThrow(ParaphError);
    expect(earlier).toThrow(/earlier than the last entry/);
    expect(() =>
      appendAuditEntry(one, { at: new Date(Number.NaN), type: 'transaction.cleaned', actor: 'system', data: { what: [] } }),
    ).toThrow(/invalid Date/);
    expect(() =>
      appendAuditEntry(one, { at: new Date(T0), type: 'transaction.cancelled', actor: 'api', data: { reason: undefined } }),
    ).toThrow(/\$\.data\.reason/);
  });
});

describe('verifyAuditLog', () => {
  it('accepts every log built by appendAuditEntry, also after a JSON round trip, and returns its head', () => {
    fc.assert(
      fc.property(logArb, (log) => {
        const parsed = JSON.parse(JSON.stringify(log)) as unknown[];
        expect(verifyAuditLog(parsed)).toEqual({ ok: true, head: log[log.length - 1]!.hash, count: log.length });
        expect(verifyAuditLog(parsed, { count: log.length, head: log[log.length - 1]!.hash }).ok).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('accepts the empty log (head = genesis)', () => {
    expect(verifyAuditLog([])).toEqual({ ok: true, head: GENESIS_HASH, count: 0 });
  });

  it('an edit of any field of any entry fails exactly at that entry', () => {
    const fields = ['seq', 'at', 'type', 'actor', 'data', 'prevHash', 'hash', 'extra'] as const;
    fc.assert(
      fc.property(logArb, fc.nat(), fc.constantFrom(...fields), fc.nat({ max: 63 }), (log, pick, field, digit) => {
        const index = pick % log.length;
        const entries = clone(log);
        const entry = entries[index]!;
        switch (field) {
          case 'seq':
            entry.seq = (entry.seq as number) + 1 + digit;
            break;
          case 'at':
            entry.at = new Date(Date.parse(entry.at as string) + 1 + digit).toISOString().replace('Z', '+00:00');
            break;
          case 'type':
            entry.type = entry.type === 'transaction.cancelled' ? 'transaction.completed' : 'transaction.cancelled';
            break;
          case 'actor':
            entry.actor = entry.actor === 'system' ? 'api' : 'system';
            break;
          case 'data':
            (entry.data as Mutable)[`x${digit}`] = digit;
            break;
          case 'prevHash':
            entry.prevHash = flipHex(entry.prevHash as string, digit);
            break;
          case 'hash':
            entry.hash = flipHex(entry.hash as string, digit);
            break;
          case 'extra':
            entry.note = 'added';
            break;
        }
        const verdict = verifyAuditLog(entries);
        expect(verdict.ok).toBe(false);
        if (!verdict.ok) expect(verdict.position).toBe(index);
      }),
      { numRuns: 400 },
    );
  });

  it('a removal, a removed run, a swap or an inserted copy fails at the lowest index it changed', () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('remove' as const), a: fc.nat(), b: fc.nat() }),
      fc.record({ kind: fc.constant('removeRun' as const), a: fc.nat(), b: fc.nat() }),
      fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
      fc.record({ kind: fc.constant('insertCopy' as const), a: fc.nat(), b: fc.nat() }),
    );
    fc.assert(
      fc.property(logArb, mutation, (log, { kind, a, b }) => {
        const entries = clone(log);
        const n = entries.length;
        if (kind === 'remove') {
          fc.pre(n >= 2);
          const i = a % (n - 1); // not the last one: that is the truncation case below
          entries.splice(i, 1);
        } else if (kind === 'removeRun') {
          fc.pre(n >= 3);
          const i = a % (n - 1);
          const length = 1 + (b % (n - 1 - i)); // always leaves at least one entry after the run
          entries.splice(i, length);
        } else if (kind === 'swap') {
          fc.pre(n >= 2);
          const i = a % n;
          const j = b % n;
          fc.pre(i !== j);
          [entries[i], entries[j]] = [entries[j]!, entries[i]!];
        } else {
          const at = a % (n + 1);
          entries.splice(at, 0, structuredClone(entries[b % n]!));
        }
        // The lowest index whose entry differs from the original log (inserting a copy of entry j right before
        // itself changes index j + 1, not j).
        let firstChanged = 0;
        while (JSON.stringify(entries[firstChanged]) === JSON.stringify(log[firstChanged])) firstChanged++;
        const verdict = verifyAuditLog(entries);
        expect(verdict.ok).toBe(false);
        if (!verdict.ok) expect(verdict.position).toBe(firstChanged);
      }),
      { numRuns: 400 },
    );
  });

  it('a forged entry chained onto its predecessor fails at the next entry, or at the end against the expected head', () => {
    fc.assert(
      fc.property(logArb, fc.nat(), fc.boolean(), (log, pick, replace) => {
        const entries = clone(log) as unknown as AuditEntry[];
        const n = entries.length;
        const i = pick % (n + (replace ? 0 : 1));
        const forgedUnsigned = {
          seq: i + 1,
          at: i === 0 ? log[0]!.at : log[i - 1]!.at,
          type: 'transaction.cancelled',
          actor: 'api',
          data: { reason: 'forged' },
          prevHash: i === 0 ? GENESIS_HASH : log[i - 1]!.hash,
        } as Omit<AuditEntry, 'hash'>;
        const forged = { ...forgedUnsigned, hash: hashAuditEntry(forgedUnsigned) } as AuditEntry;
        entries.splice(i, replace ? 1 : 0, forged);
        const expected = { count: n, head: log[n - 1]!.hash };
        const verdict = verifyAuditLog(entries, expected);
        expect(verdict.ok).toBe(false);
        if (verdict.ok) return;
        if (i === n) {
          expect(verdict).toMatchObject({ position: n, code: 'EXTRA_ENTRIES' });
        } else if (replace && i === n - 1) {
          expect(verdict).toMatchObject({ position: n - 1, code: 'HEAD' });
          expect(verifyAuditLog(entries).ok).toBe(true); // the chain alone cannot see it
        } else {
          expect(verdict.position).toBe(i + 1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('truncation at the end passes the chain alone and fails against the expected count at the first missing entry', () => {
    fc.assert(
      fc.property(logArb, fc.nat(), (log, cut) => {
        const keep = cut % log.length;
        const entries = clone(log).slice(0, keep);
        expect(verifyAuditLog(entries).ok).toBe(true);
        expect(verifyAuditLog(entries, { count: log.length, head: log[log.length - 1]!.hash })).toMatchObject({
          ok: false,
          position: keep,
          code: 'MISSING_ENTRIES',
        });
      }),
      { numRuns: 100 },
    );
  });

  it('names the problem: malformed, sequence, chain, time order, content', () => {
    const log = buildLog(
      [
        { type: 'transaction.started', actor: 'api', data: { files: 1, signers: 1 } },
        { type: 'transaction.completed', actor: 'system', data: { status: 30 } },
      ],
      [1000],
    );
    expect(verifyAuditLog([log[0], 'junk'])).toMatchObject({ ok: false, position: 1, code: 'MALFORMED' });
    const noData = clone(log);
    delete (noData[1]!.data as Mutable).status;
    expect(verifyAuditLog(noData)).toMatchObject({ position: 1, code: 'MALFORMED', reason: expect.stringContaining('status') });
    expect(verifyAuditLog([log[1], log[0]])).toMatchObject({ position: 0, code: 'SEQUENCE' });
    const back = clone(log);
    back[1]!.at = '2026-11-21T09:00:00.000+00:00';
    expect(verifyAuditLog(back)).toMatchObject({ position: 1, code: 'TIME_ORDER' });
    const edited = clone(log);
    (edited[1]!.data as Mutable).status = 40;
    expect(verifyAuditLog(edited)).toMatchObject({ position: 1, code: 'HASH', reason: expect.stringContaining('entry 2') });
  });
});
