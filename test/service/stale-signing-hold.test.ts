/**
 * A transaction stuck at 20 (docs/design/transactions.md#statuses, docs/design/transactions.md#expiry): when the
 * process dies while a signature is applied, the signing hold stays. The timers recover it without the signer: 5
 * minutes after the hold was taken it is released back to 10 (audit `signing.released`, postback 10) and the signer can
 * sign again; when the transaction's expiry has passed meanwhile, it becomes 50 instead. Tested with a moved clock and
 * the worker ticked by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transition } from '../../src/domain/transaction.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { call } from '../helpers/service-harness.js';
import { createSigningTransaction, startSignerService, type SignerService } from './signer/signer-fixture.js';

const MINUTE = 60_000;
let s: SignerService;
let base: string;
const signer = (token: string, method: string, path: string, json?: unknown) =>
  call(base, method, `/api/signer/${token}${path}`, { auth: false, headers: { 'user-agent': 'StaleHoldTest/1.0' }, ...(json !== undefined ? { json } : {}) });

beforeAll(async () => {
  s = await startSignerService();
  base = s.service.url;
});
afterAll(async () => {
  await s.service.dispose();
});

/** Leaves Signer1's signing hold as a process that died mid-signing would: status 20, nothing signed. */
async function crashWhileSigning(id: string, token: string): Promise<Date> {
  expect((await signer(token, 'POST', '/verification', { Type: 'Consent' })).status).toBe(200);
  const store = s.service.server.store;
  const current = (await store.getTransaction(id))!;
  const since = s.service.clock.now();
  await store.commit({ transaction: transition(current, { type: 'hold', signerId: 'Signer1' }, since), expectedVersion: current.version, outbox: [{ kind: 'postback', payload: { transactionId: id, status: 20, url: current.PostbackUrl ?? '' }, orderKey: `postback:${current.PostbackUrl}` }] });
  expect((await call(base, 'GET', `/api/transaction/${id}`)).json.Status).toBe(20);
  return since;
}

/** The statuses of the postbacks queued for `id`, in order (claimed and marked done). */
async function postbackStatuses(id: string): Promise<number[]> {
  const store = s.service.server.store;
  const statuses: number[] = [];
  for (let round = 0; round < 10; round++) {
    const claimed = await store.claimDue(new Date('2100-01-01T00:00:00Z'), 500, MINUTE);
    if (claimed.length === 0) break;
    for (const row of claimed) {
      if (row.transactionId === id && row.kind === 'postback') statuses.push((row.payload as { status: number }).status);
      await store.settleOutbox([{ attempt: { outboxId: row.id, attempt: row.attempts, at: new Date(), outcome: 'delivered' } }]);
    }
  }
  return statuses;
}

const statusOf = async (id: string) => (await call(base, 'GET', `/api/transaction/${id}`)).json.Status as number;

describe('stale signing hold', () => {
  it('is released back to 10 by the timers 5 minutes after it was taken; the signer then signs once', async () => {
    const tx = await createSigningTransaction(base, {
      transaction: { PostbackUrl: 'http://127.0.0.1:9/stale' },
      signers: [{ Email: 'stale@example.com', Verifications: [{ Type: 'Consent' }] }, { Email: 'next@example.com', Verifications: [{ Type: 'Consent' }] }],
    });
    const token = tx.signers[0]!.token;
    const since = await crashWhileSigning(tx.id, token);
    const store = s.service.server.store;
    const due = async (at: Date) => (await store.listDueTimers(at, { retentionDays: 30 })).filter((t) => t.transactionId === tx.id);

    expect(await due(new Date(since.getTime() + 5 * MINUTE - 1))).toEqual([]);
    expect(await due(new Date(since.getTime() + 5 * MINUTE))).toEqual([{ transactionId: tx.id, kind: 'release', at: new Date(since.getTime() + 5 * MINUTE) }]);

    s.service.clock.advance(4 * MINUTE);
    expect((await s.service.server.worker.tick()).released).toBe(0);
    expect(await statusOf(tx.id)).toBe(20);

    s.service.clock.advance(MINUTE);
    const run = await s.service.server.worker.tick();
    expect(run.released).toBe(1);
    expect(run.failures).toEqual([]);
    expect(await statusOf(tx.id)).toBe(10);
    expect((await store.getTransaction(tx.id))!.Signers[0]!.SignSession).not.toHaveProperty('signingSince');
    expect(await due(new Date('2100-01-01T00:00:00Z'))).not.toContainEqual(expect.objectContaining({ kind: 'release' }));
    const audit = await store.listAuditEntries(tx.id);
    expect(audit.at(-1)).toMatchObject({
      type: 'signing.released',
      actor: 'system',
      data: { signerId: 'Signer1', heldSince: since.toISOString().replace('Z', '+00:00'), reason: 'The signature was being applied when the service stopped; the signer can sign again.' },
    });
    expect(await postbackStatuses(tx.id)).toEqual([10, 20, 10]);
    expect((await s.service.server.worker.tick()).released).toBe(0); // nothing left to do

    // The signer was not needed for the recovery, and signs normally afterwards: one signature.
    expect((await signer(token, 'GET', '')).json.State).toBe('sign');
    const signed = await signer(token, 'POST', '/sign', { Fields: { contract: { 'f1.city': 'Epe' } } });
    expect(signed.status, signed.text).toBe(200);
    expect(signed.json.TransactionStatus).toBe(10);
    const pdf = (await call(base, 'GET', `/api/transaction/${tx.id}/file/contract`)).bytes;
    const ca = (await call(base, 'GET', '/api/ca/signing.pem', { auth: false })).text;
    const report = await checkSignedPdf(pdf, ca);
    expect(report.pdfsig.map((sig) => sig.valid), report.details).toEqual([true]);
    expect(report.openssl, report.details).toEqual([true]);
    expect(report.qpdf, report.details).toBe(true);
  });

  it('expires (50) when the transaction expired while the stale hold kept it at 20', async () => {
    const tx = await createSigningTransaction(base, {
      transaction: { PostbackUrl: 'http://127.0.0.1:9/stale-expiry', DaysToExpire: 1 },
      signers: [{ Email: 'late@example.com', Verifications: [{ Type: 'Consent' }] }],
    });
    const token = tx.signers[0]!.token;
    const since = await crashWhileSigning(tx.id, token);
    // The service was down for two days: the expiry passed while the hold kept the transaction at 20.
    s.service.clock.advance(2 * 86_400_000);
    const run = await s.service.server.worker.tick();
    expect(run.failures).toEqual([]);
    expect(run.expired).toBeGreaterThanOrEqual(1);
    const got = await call(base, 'GET', `/api/transaction/${tx.id}`);
    expect(got.json.Status).toBe(50);
    const audit = await s.service.server.store.listAuditEntries(tx.id);
    expect(audit.slice(-2).map((e) => e.type)).toEqual(['signing.released', 'transaction.expired']);
    expect(audit.at(-2)?.data).toEqual({
      signerId: 'Signer1',
      heldSince: since.toISOString().replace('Z', '+00:00'),
      reason: 'The signature was being applied when the service stopped, and the transaction expired meanwhile.',
    });
    expect(await postbackStatuses(tx.id)).toEqual([10, 20, 50]);
    expect((await signer(token, 'GET', '')).json.State).toBe('ended');
    const sign = await signer(token, 'POST', '/sign', { Fields: { contract: { 'f1.city': 'Epe' } } });
    expect(sign.status).toBe(410);
    expect(sign.json.Message).toBe('This signing request has expired.');
  });

  it('leaves a live signing alone and a transaction at 20 without a hold (sealing) is not touched', async () => {
    const tx = await createSigningTransaction(base, { signers: [{ Email: 'live@example.com', Verifications: [{ Type: 'Consent' }] }] });
    await crashWhileSigning(tx.id, tx.signers[0]!.token);
    s.service.clock.advance(4 * MINUTE + 59_000);
    expect((await s.service.server.worker.tick()).released).toBe(0);
    expect(await statusOf(tx.id)).toBe(20);
    const before = (await s.service.server.store.listAuditEntries(tx.id)).length;
    // A seal-only transaction passes 20 without a signing hold, so no release timer exists for it.
    const store = s.service.server.store;
    const current = (await store.getTransaction(tx.id))!;
    const { signingSince: _since, ...session } = current.Signers[0]!.SignSession!;
    await store.commit({ transaction: { ...current, Signers: [{ ...current.Signers[0]!, SignSession: session }] }, expectedVersion: current.version });
    s.service.clock.advance(10 * MINUTE);
    expect((await s.service.server.worker.tick()).released).toBe(0);
    expect(await statusOf(tx.id)).toBe(20);
    expect((await store.listAuditEntries(tx.id)).length).toBe(before);
  });
});
