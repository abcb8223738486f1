/**
 * The behaviour every {@link Store} implementation must show, written against the interface only, so that the
 * PostgreSQL store of a later issue runs the same suite: `describeStore('postgres', factory)`.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { appendAuditEntry, verifyAuditLog, type AuditEntry } from '../../src/receipt/audit-log.js';
import { putFile, transition, type Transaction } from '../../src/domain/transaction.js';
import { ConcurrencyError, hashSignToken, StoreError, type Account, type AuditEntryInput, type Store } from '../../src/store/store.js';
import { at, makeTransaction, T0 } from './transaction-fixtures.js';

/** What a store implementation hands the suite. */
export interface StoreHarness {
  store: Store;
  /** Closes the store and opens it again on the same data (persistence checks). */
  reopen(): Promise<Store>;
  /** Files in the store's area that are neither blobs nor the database (stray temporary files). */
  strayFiles(): string[];
  cleanup(): Promise<void>;
}

const ACCOUNT: Account & { UserTokenHash: string; AppKeyHash: string } = {
  Id: 'acc-1',
  Name: 'Acme',
  UserTokenHash: 'u'.repeat(64),
  AppKeyHash: 'k'.repeat(64),
  PostbackSecret: 'secret',
  CreatedDateTime: '2026-11-21T10:00:00.000+00:00',
};

function sha(algorithm: 'sha256' | 'sha512', bytes: Uint8Array): string {
  return createHash(algorithm).update(bytes).digest('hex');
}

async function* chunks(parts: Uint8Array[], failAfter?: number): AsyncIterable<Uint8Array> {
  let i = 0;
  for (const part of parts) {
    if (failAfter !== undefined && i++ === failAfter) throw new Error('connection reset');
    yield part;
  }
}

function created(tx: Transaction): AuditEntryInput {
  return {
    at: new Date(tx.ModifiedDateTime),
    type: 'transaction.created',
    actor: 'api',
    data: { language: tx.Language, seal: tx.Seal, signers: tx.Signers.length, receivers: tx.Receivers.length },
  };
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Registers the suite for one implementation. */
export function describeStore(name: string, open: () => Promise<StoreHarness>): void {
  describe(`Store behaviour: ${name}`, () => {
    let h: StoreHarness;
    let store: Store;

    beforeEach(async () => {
      h = await open();
      store = h.store;
      await store.createAccount(ACCOUNT);
    });
    afterEach(async () => {
      await h.cleanup();
    });

    it('finds accounts by both key hashes only', async () => {
      expect((await store.findAccountByCredentials([ACCOUNT.UserTokenHash], [ACCOUNT.AppKeyHash], T0))?.account).toEqual(ACCOUNT);
      expect(await store.findAccountByCredentials([ACCOUNT.UserTokenHash], ['x'.repeat(64)], T0)).toBeUndefined();
      expect(await store.findAccountByCredentials([ACCOUNT.AppKeyHash], [ACCOUNT.UserTokenHash], T0)).toBeUndefined();
      expect(await store.getAccount('acc-1')).toEqual(ACCOUNT);
      expect(await store.countAccounts()).toBe(1);
      const duplicate = await errorOf(store.createAccount({ ...ACCOUNT, Id: 'acc-2' }));
      expect(duplicate).toBeInstanceOf(StoreError);
      expect((duplicate as StoreError).code).toBe('ACCOUNT_EXISTS');
      expect(await store.countAccounts()).toBe(1);
    });

    it('keeps credentials apart from the account: rotation and revocation in one write, looked up by hash', async () => {
      const first = await store.listCredentials('acc-1');
      expect(first.map((c) => [c.kind, c.hash])).toEqual([
        ['user-token', ACCOUNT.UserTokenHash],
        ['app-key', ACCOUNT.AppKeyHash],
      ]);
      const other: Account = { Id: 'acc-new', Name: 'New Org', CreatedDateTime: '2026-11-21T11:00:00.000+00:00' };
      await store.createAccount(other);
      expect(await store.listCredentials('acc-new')).toEqual([]);
      const key = { id: 'cred-1', accountId: 'acc-new', kind: 'app-key' as const, hash: 'h1', label: 'ERP', createdAt: T0 };
      await store.addCredential(key);
      expect(await store.findCredentialsByHash(['h1', 'nope'])).toEqual([key]);
      const replacement = { id: 'cred-2', accountId: 'acc-new', kind: 'app-key' as const, hash: 'h2', createdAt: at(1000) };
      expect(await store.rotateCredential('cred-1', at(1000), at(5000), replacement)).toBe(true);
      expect(await store.listCredentials('acc-new')).toEqual([{ ...key, rotatedAt: at(1000), replacedBy: 'cred-2', validUntil: at(5000) }, replacement]);
      // Rotated once: a second rotation changes nothing and adds nothing.
      expect(await store.rotateCredential('cred-1', at(1001), at(5001), { ...replacement, id: 'cred-3', hash: 'h3' })).toBe(false);
      expect(await store.findCredentialsByHash(['h3'])).toEqual([]);
      expect(await store.revokeCredential('cred-2', at(2000))).toBe(true);
      expect(await store.revokeCredential('cred-2', at(3000))).toBe(true);
      expect(await store.findCredentialsByHash(['h2'])).toEqual([{ ...replacement, revokedAt: at(2000) }]);
      expect(await store.rotateCredential('cred-2', at(2001), at(5001), { ...replacement, id: 'cred-4', hash: 'h4' })).toBe(false);
      expect(await store.revokeCredential('missing', at(1))).toBe(false);
      // A replacement whose Id is taken undoes the whole rotation.
      const other2 = { ...key, id: 'cred-5', hash: 'h5' };
      await store.addCredential(other2);
      const clash = await errorOf(store.rotateCredential('cred-5', at(3000), at(4000), { ...replacement, hash: 'h6' }));
      expect((clash as StoreError).code).toBe('CREDENTIAL_EXISTS');
      expect((await store.findCredentialsByHash(['h5']))[0]?.rotatedAt).toBeUndefined();
      expect(((await errorOf(store.addCredential({ ...key, id: 'cred-x', accountId: 'nobody' }))) as StoreError).code).toBe('ACCOUNT_NOT_FOUND');
      await store.rehashCredential('cred-5', 'other', 'h7');
      expect(await store.findCredentialsByHash(['h7'])).toEqual([]);
      await store.rehashCredential('cred-5', 'h5', 'h7');
      expect(await store.findCredentialsByHash(['h7'])).toEqual([{ ...other2, hash: 'h7' }]);
      // A revoked first credential no longer finds its account.
      await store.revokeCredential(first[0]!.id, at(1));
      expect(await store.findAccountByCredentials([ACCOUNT.UserTokenHash], [ACCOUNT.AppKeyHash], at(2))).toBeUndefined();
    });

    it('authenticates a user token and an app key of one account in one query: overlap, revocation, several candidate hashes', async () => {
      const other: Account = { Id: 'acc-b', Name: 'B', CreatedDateTime: '2026-11-21T11:00:00.000+00:00' };
      await store.createAccount(other);
      await store.addCredential({ id: 'b-user', accountId: 'acc-b', kind: 'user-token', hash: 'bu', createdAt: T0 });
      await store.addCredential({ id: 'b-app', accountId: 'acc-b', kind: 'app-key', hash: 'ba', createdAt: T0 });
      expect(await store.findAccountByCredentials(['bu'], ['ba'], T0)).toEqual({ account: other, userToken: { id: 'b-user', hash: 'bu' }, appKey: { id: 'b-app', hash: 'ba' } });
      // A pair from two accounts authenticates neither.
      expect(await store.findAccountByCredentials(['bu'], [ACCOUNT.AppKeyHash], T0)).toBeUndefined();
      // Several candidates per kind: the one that is stored matches.
      expect((await store.findAccountByCredentials(['nope', 'bu'], ['ba', 'nope2'], T0))?.userToken).toEqual({ id: 'b-user', hash: 'bu' });
      // A rotated app key works until its overlap ends, its replacement from the rotation on.
      expect(await store.rotateCredential('b-app', at(1000), at(5000), { id: 'b-app2', accountId: 'acc-b', kind: 'app-key', hash: 'ba2', createdAt: at(1000) })).toBe(true);
      expect((await store.findAccountByCredentials(['bu'], ['ba'], at(4999)))?.appKey.id).toBe('b-app');
      expect(await store.findAccountByCredentials(['bu'], ['ba'], at(5000))).toBeUndefined();
      expect((await store.findAccountByCredentials(['bu'], ['ba2'], at(5000)))?.appKey.id).toBe('b-app2');
      // A disabled account is returned as such (the caller refuses it); a revoked credential finds nothing.
      await store.updateAccount({ ...other, Disabled: true });
      expect((await store.findAccountByCredentials(['bu'], ['ba2'], at(5000)))?.account.Disabled).toBe(true);
      await store.revokeCredential('b-user', at(6000));
      expect(await store.findAccountByCredentials(['bu'], ['ba2'], at(6000))).toBeUndefined();
    });

    it('updates accounts, sealing the postback secret again, and keeps the admin audit log in order', async () => {
      await store.updateAccount({ ...ACCOUNT, Name: 'Acme BV', Disabled: true, Limits: { StorageBytes: 1024 }, PostbackSecret: 'new-secret' });
      expect(await store.getAccount('acc-1')).toEqual({ ...ACCOUNT, Name: 'Acme BV', Disabled: true, Limits: { StorageBytes: 1024 }, PostbackSecret: 'new-secret' });
      expect(((await errorOf(store.updateAccount({ ...ACCOUNT, Id: 'nobody' }))) as StoreError).code).toBe('ACCOUNT_NOT_FOUND');
      const a = await store.appendAdminAudit({ at: T0, actor: 'admin', action: 'account.created', accountId: 'acc-1', data: { Name: 'Acme' } });
      const b = await store.appendAdminAudit({ at: at(1), actor: 'cli', action: 'credential.revoked', accountId: 'acc-2', credentialId: 'c' });
      expect(b.id).toBeGreaterThan(a.id);
      expect(await store.listAdminAudit({ limit: 10 })).toEqual([a, b]);
      expect(await store.listAdminAudit({ limit: 10, afterId: a.id })).toEqual([b]);
      expect(await store.listAdminAudit({ limit: 10, accountId: 'acc-1' })).toEqual([a]);
      expect(await store.listAdminAudit({ limit: 1 })).toEqual([a]);
    });

    it('inserts at version 0 → 1 and reads back exactly what was committed', async () => {
      const tx = makeTransaction();
      const stored = await store.commit({ transaction: tx, expectedVersion: 0, audit: [created(tx)] });
      expect(stored.version).toBe(1);
      expect(await store.getTransaction(tx.Id)).toEqual({ ...tx, version: 1 });
      expect(await store.getTransaction('nope')).toBeUndefined();
      const again = await errorOf(store.commit({ transaction: tx, expectedVersion: 0 }));
      expect(again).toBeInstanceOf(ConcurrencyError);
    });

    it('refuses a stale version and writes nothing of that change', async () => {
      const tx = makeTransaction();
      const v1 = await store.commit({ transaction: tx, expectedVersion: 0, audit: [created(tx)] });
      const v2 = await store.commit({ transaction: { ...v1, Reference: 'second' }, expectedVersion: 1 });
      expect(v2.version).toBe(2);
      const stale = await errorOf(
        store.commit({
          transaction: { ...v1, Reference: 'lost update' },
          expectedVersion: 1,
          audit: [{ at: T0, type: 'transaction.cancelled', actor: 'api', data: {} }],
          outbox: [{ kind: 'postback', payload: { x: 1 }, dueAt: T0 }],
        }),
      );
      expect(stale).toBeInstanceOf(ConcurrencyError);
      expect((stale as ConcurrencyError).code).toBe('CONCURRENT_MODIFICATION');
      expect((await store.getTransaction(tx.Id))?.Reference).toBe('second');
      expect(await store.listAuditEntries(tx.Id)).toHaveLength(1);
      expect(await store.claimDue(at(60), 10, 1000)).toEqual([]);
    });

    it('counts transactions by status and the pending outbox by kind, with the oldest due one', async () => {
      const a = await store.commit({
        transaction: makeTransaction(),
        expectedVersion: 0,
        outbox: [
          { kind: 'postback', payload: { n: 1 }, dueAt: T0 },
          { kind: 'postback', payload: { n: 2 }, dueAt: at(5) },
          { kind: 'mail', payload: { n: 3 }, dueAt: at(60) },
        ],
      });
      await store.commit({ transaction: makeTransaction({ Seal: true }, { id: 'tx-2' }), expectedVersion: 0 });
      const [first] = await store.claimDue(at(1), 1, 1000);
      expect(first?.transactionId).toBe(a.Id);
      await store.settleOutbox([{ attempt: { outboxId: first!.id, attempt: 1, at: at(1), outcome: 'delivered' } }]);
      const counts = await store.countOperational(at(10));
      expect(counts.transactionsByStatus.get(a.Status)).toBe(2);
      expect([...counts.transactionsByStatus.values()].reduce((x, y) => x + y, 0)).toBe(2);
      const byKind = Object.fromEntries(counts.outbox.map((row) => [row.kind, row]));
      // The second postback is due since minute 5; the mail is not due yet, so it has no age.
      expect(byKind.postback).toEqual({ kind: 'postback', pending: 1, oldestDueAt: at(5) });
      expect(byKind.mail).toEqual({ kind: 'mail', pending: 1 });
      expect(byKind.timer).toBeUndefined();
    });

    it('lets exactly one of two concurrent writers of the same version win', async () => {
      const v1 = await store.commit({ transaction: makeTransaction(), expectedVersion: 0 });
      const results = await Promise.allSettled(
        ['a', 'b', 'c'].map((ref) => store.commit({ transaction: { ...v1, Reference: ref }, expectedVersion: 1 })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof ConcurrencyError)).toBe(true);
      expect((await store.getTransaction(v1.Id))?.version).toBe(2);
    });

    it('chains audit entries across commits exactly like appendAuditEntry, and verifies', async () => {
      let tx = makeTransaction({ Seal: true });
      const inputs: AuditEntryInput[] = [created(tx)];
      tx = await store.commit({ transaction: tx, expectedVersion: 0, audit: inputs });
      const more: AuditEntryInput[] = [
        { at: at(1), type: 'file.uploaded', actor: 'api', data: { fileId: 'f', displayName: 'f', sha256: 'a'.repeat(64), bytes: 1, pages: 1 } },
        { at: at(2), type: 'transaction.started', actor: 'api', data: { files: 1, signers: 0 } },
      ];
      tx = await store.commit({ transaction: { ...tx, Reference: 'x' }, expectedVersion: tx.version, audit: more });
      const entries = await store.listAuditEntries(tx.Id);
      let expected: readonly AuditEntry[] = [];
      for (const input of [...inputs, ...more]) expected = appendAuditEntry(expected, input);
      expect(entries).toEqual(expected);
      expect(verifyAuditLog(entries)).toMatchObject({ ok: true, count: 3 });
      const backwards = await errorOf(
        store.commit({
          transaction: { ...tx, Reference: 'y' },
          expectedVersion: tx.version,
          audit: [{ at: T0, type: 'transaction.cancelled', actor: 'api', data: {} }],
        }),
      );
      expect((backwards as StoreError).code).toBe('AUDIT_INVALID_TIME');
      expect((await store.getTransaction(tx.Id))?.Reference).toBe('x');
      await store.commit({ transaction: tx, expectedVersion: tx.version, purgeAudit: true });
      expect(await store.listAuditEntries(tx.Id)).toEqual([]);
    });

    it('finds a signer by the hash of their SignUrl token; a cleaned transaction keeps only the hash (its links answer 410)', async () => {
      const tx = await store.commit({ transaction: makeTransaction(), expectedVersion: 0 });
      const token = tx.Signers[1]?.SignToken as string;
      const found = await store.findSignerByTokenHash(hashSignToken(token));
      expect(found?.signerId).toBe('Signer2');
      expect(found?.transaction.Id).toBe(tx.Id);
      expect(await store.findSignerByTokenHash(hashSignToken('other'))).toBeUndefined();
      const cancelled = transition(tx, { type: 'cancel' }, at(1));
      await store.commit({ transaction: cancelled, expectedVersion: tx.version });
      const after = await store.findSignerByTokenHash(hashSignToken(token));
      expect(after?.transaction.cleanedAt).toBeDefined();
      expect(JSON.stringify(after?.transaction)).not.toContain(token);
    });

    it('stores blobs by content, computing both digests while streaming', async () => {
      const parts = [new Uint8Array([1, 2, 3]), new Uint8Array(70_000).fill(7), new Uint8Array([9])];
      const whole = Buffer.concat(parts);
      const info = await store.blobs.write(chunks(parts), { expectSha256: sha('sha256', whole), expectSha512: sha('sha512', whole) });
      expect(info).toEqual({ sha256: sha('sha256', whole), sha512: sha('sha512', whole), size: whole.length });
      expect(Buffer.from(await store.blobs.read(info.sha256)).equals(whole)).toBe(true);
      expect(await store.blobs.exists(info.sha256)).toBe(true);
      expect(await store.blobs.write(whole)).toEqual(info);
      const missing = await errorOf(store.blobs.read('f'.repeat(64)));
      expect((missing as StoreError).code).toBe('BLOB_NOT_FOUND');
      await store.blobs.delete(info.sha256);
      expect(await store.blobs.exists(info.sha256)).toBe(false);
      expect(h.strayFiles()).toEqual([]);
    });

    it('stores nothing when a digest does not match, the size limit is passed or the stream fails', async () => {
      const body = new Uint8Array(10_000).fill(1);
      const bad256 = await errorOf(store.blobs.write(chunks([body]), { expectSha256: '0'.repeat(64) }));
      expect(bad256).toBeInstanceOf(StoreError);
      expect((bad256 as StoreError).message).toBe('SHA-256 digest mismatch');
      const bad512 = await errorOf(store.blobs.write(body, { expectSha256: sha('sha256', body), expectSha512: '0'.repeat(128) }));
      expect((bad512 as StoreError).message).toBe('SHA-512 digest mismatch');
      const tooLarge = await errorOf(store.blobs.write(chunks([body, body]), { maxBytes: 15_000 }));
      expect((tooLarge as StoreError).code).toBe('BLOB_TOO_LARGE');
      const broken = await errorOf(store.blobs.write(chunks([body, body, body], 2)));
      expect((broken as Error).message).toBe('connection reset');
      expect(await store.blobs.exists(sha('sha256', body))).toBe(false);
      expect(await store.blobs.exists(sha('sha256', Buffer.concat([body, body])))).toBe(false);
      expect(h.strayFiles()).toEqual([]);
    });

    it('refuses a commit that references a blob never written', async () => {
      const tx = putFile(makeTransaction(), { FileId: 'f', Original: { sha256: 'e'.repeat(64), size: 1, pages: 1 } }, T0);
      const error = await errorOf(store.commit({ transaction: tx, expectedVersion: 0, audit: [created(tx)] }));
      expect((error as StoreError).code).toBe('BLOB_NOT_FOUND');
      expect(await store.getTransaction(tx.Id)).toBeUndefined();
      expect(await store.listAuditEntries(tx.Id)).toEqual([]);
    });

    it('counts an account\'s uploads (PDFs and metadata) of transactions not cleaned: after replacing, cleaning and reopening', async () => {
      const bytes = (n: number) => store.blobs.write(new Uint8Array(n).fill(n % 251));
      const [pdfA, metaA, pdfB, pdfB2, pdfOther] = await Promise.all([bytes(1000), bytes(200), bytes(3000), bytes(500), bytes(7000)]);
      await store.createAccount({ ...ACCOUNT, Id: 'acc-other', UserTokenHash: 'o'.repeat(64), AppKeyHash: 'p'.repeat(64) });
      const a = await store.commit({
        transaction: putFile(makeTransaction(undefined, { id: 'q-a' }), { FileId: 'a.pdf', Original: { ...pdfA!, pages: 1 }, MetadataBlob: metaA! }, T0),
        expectedVersion: 0,
      });
      let b = await store.commit({ transaction: putFile(makeTransaction(undefined, { id: 'q-b' }), { FileId: 'b.pdf', Original: { ...pdfB!, pages: 1 } }, T0), expectedVersion: 0 });
      await store.commit({
        transaction: putFile(makeTransaction(undefined, { id: 'q-o', accountId: 'acc-other' }), { FileId: 'o.pdf', Original: { ...pdfOther!, pages: 1 } }, T0),
        expectedVersion: 0,
      });
      expect(await store.accountStorageBytes('acc-1')).toBe(1000 + 200 + 3000);
      expect(await store.accountStorageBytes('acc-other')).toBe(7000);
      expect(await store.accountStorageBytes('nobody')).toBe(0);
      b = await store.commit({ transaction: putFile(b, { FileId: 'b.pdf', Original: { ...pdfB2!, pages: 1 } }, T0), expectedVersion: b.version });
      expect(await store.accountStorageBytes('acc-1')).toBe(1000 + 200 + 500);
      await store.commit({ transaction: { ...a, cleanedAt: at(5).toISOString() }, expectedVersion: a.version });
      expect(await store.accountStorageBytes('acc-1')).toBe(500);
      store = await h.reopen();
      expect(await store.accountStorageBytes('acc-1')).toBe(500);
      expect(await store.accountStorageBytes('acc-other')).toBe(7000);
    });

    it('deletes only unreferenced blobs older than the grace time', async () => {
      const kept = await store.blobs.write(new TextEncoder().encode('kept'));
      const orphan = await store.blobs.write(new TextEncoder().encode('orphan'));
      const tx = putFile(makeTransaction(), { FileId: 'f', Original: { ...kept, pages: 1 } }, T0);
      await store.commit({ transaction: tx, expectedVersion: 0 });
      expect(await store.collectGarbage(new Date(Date.now() - 60_000))).toBe(0);
      expect(await store.collectGarbage(new Date(Date.now() + 60_000))).toBe(1);
      expect(await store.blobs.exists(kept.sha256)).toBe(true);
      expect(await store.blobs.exists(orphan.sha256)).toBe(false);
    });

    it('leases due outbox rows, retries them later and delivers one key in order', async () => {
      const tx = makeTransaction();
      await store.commit({
        transaction: tx,
        expectedVersion: 0,
        outbox: [
          { kind: 'postback', payload: { n: 1 }, orderKey: 'https://pb', dueAt: at(1) },
          { kind: 'postback', payload: { n: 2 }, orderKey: 'https://pb', dueAt: at(1) },
          { kind: 'mail', payload: { to: 'a@example.com' }, dueAt: at(5) },
        ],
      });
      expect(await store.claimDue(T0, 10, 60_000)).toEqual([]);
      const first = await store.claimDue(at(1), 10, 60_000);
      expect(first.map((m) => [m.kind, m.payload, m.attempts, m.transactionId])).toEqual([['postback', { n: 1 }, 1, 'tx-1']]);
      // Leased: not handed out again until the lease ends (a crashed worker's rows come back).
      expect(await store.claimDue(at(1.5), 10, 60_000)).toEqual([]);
      const again = await store.claimDue(at(2.1), 10, 60_000);
      expect(again.map((m) => [m.payload, m.attempts])).toEqual([[{ n: 1 }, 2]]);
      const id = again[0]?.id as number;
      await store.settleOutbox([{ attempt: { outboxId: id, attempt: 2, at: at(2.1), outcome: 'retry', detail: 'HTTP 500' }, retryAt: at(10) }]);
      const mail = await store.claimDue(at(6), 10, 60_000);
      expect(mail.map((m) => m.kind)).toEqual(['mail']);
      await store.settleOutbox([{ attempt: { outboxId: mail[0]?.id as number, attempt: 1, at: at(6), outcome: 'delivered' } }]);
      const retried = await store.claimDue(at(10), 10, 60_000);
      expect(retried.map((m) => [m.payload, m.attempts, m.lastError])).toEqual([[{ n: 1 }, 3, 'HTTP 500']]);
      await store.settleOutbox([{ attempt: { outboxId: id, attempt: 3, at: at(10), outcome: 'delivered' } }]);
      const second = await store.claimDue(at(11), 10, 60_000);
      expect(second.map((m) => m.payload)).toEqual([{ n: 2 }]);
      await store.settleOutbox([{ attempt: { outboxId: second[0]?.id as number, attempt: 1, at: at(11), outcome: 'failed', detail: 'gave up' } }]);
      expect(await store.claimDue(at(100_000), 10, 60_000)).toEqual([]);
    });

    it('settles attempts in one write: done, retry at a time (first due date kept), failed; attempts listed in order', async () => {
      await store.commit({
        transaction: makeTransaction(),
        expectedVersion: 0,
        outbox: [
          { kind: 'postback', payload: { n: 1 }, orderKey: 'k', dueAt: at(1) },
          { kind: 'postback', payload: { n: 2 }, orderKey: 'k', dueAt: at(1) },
          { kind: 'mail', payload: { m: 1 }, dueAt: at(1) },
        ],
      });
      const claimed = await store.claimDue(at(1), 10, 60_000);
      expect(claimed.map((m) => [m.payload, m.firstDueAt.getTime()])).toEqual([[{ n: 1 }, at(1).getTime()], [{ m: 1 }, at(1).getTime()]]);
      const [pb, mail] = claimed as [(typeof claimed)[0], (typeof claimed)[0]];
      await store.settleOutbox([
        { attempt: { outboxId: pb.id, attempt: 1, at: at(1), outcome: 'retry', responseCode: 500, detail: 'HTTP 500' }, retryAt: at(3) },
        { attempt: { outboxId: mail.id, attempt: 1, at: at(1), outcome: 'failed', responseCode: 550, detail: 'refused' } },
      ]);
      expect(await store.claimDue(at(2), 10, 60_000)).toEqual([]);
      const retried = await store.claimDue(at(3), 10, 60_000);
      expect(retried.map((m) => [m.payload, m.attempts, m.lastError, m.firstDueAt.getTime(), m.dueAt.getTime()])).toEqual([
        [{ n: 1 }, 2, 'HTTP 500', at(1).getTime(), at(3).getTime()],
      ]);
      await store.settleOutbox([{ attempt: { outboxId: pb.id, attempt: 2, at: at(3), outcome: 'delivered', responseCode: 200 } }]);
      expect((await store.claimDue(at(4), 10, 60_000)).map((m) => m.payload)).toEqual([{ n: 2 }]);
      expect(await store.listAttempts(pb.id)).toEqual([
        { outboxId: pb.id, attempt: 1, at: at(1), outcome: 'retry', responseCode: 500, detail: 'HTTP 500' },
        { outboxId: pb.id, attempt: 2, at: at(3), outcome: 'delivered', responseCode: 200 },
      ]);
      expect(await store.listAttempts(mail.id)).toEqual([{ outboxId: mail.id, attempt: 1, at: at(1), outcome: 'failed', responseCode: 550, detail: 'refused' }]);
      expect(await store.listAttempts(999_999)).toEqual([]);
    });

    it('lists due timers from the transaction dates: expiry, reminders, cleaning after retention', async () => {
      const open = await store.commit({ transaction: makeTransaction(undefined, { id: 'open' }), expectedVersion: 0 });
      let ended = await store.commit({ transaction: makeTransaction({ Seal: true }, { id: 'ended' }), expectedVersion: 0 });
      ended = await store.commit({ transaction: transition(ended, { type: 'fail', reason: 'x' }, at(1)), expectedVersion: 1 });
      expect(await store.listDueTimers(at(60), { retentionDays: 30 })).toEqual([]);
      const reminded = transition(
        putFile(makeTransaction(undefined, { id: 'remind' }), { FileId: 'f', Original: { ...(await store.blobs.write(new Uint8Array([1]))), pages: 1 } }, T0),
        { type: 'start' },
        at(1),
      );
      await store.commit({
        transaction: { ...reminded, Signers: reminded.Signers.map((s) => ({ ...s, NextReminderDateTime: '2026-11-28T10:00:00.000+00:00' })) },
        expectedVersion: 0,
      });
      const day = (d: number) => new Date(T0.getTime() + d * 86_400_000);
      expect(await store.listDueTimers(day(7), { retentionDays: 30 })).toEqual([
        { transactionId: 'remind', kind: 'remind', at: new Date('2026-11-28T10:00:00.000Z') },
      ]);
      const late = await store.listDueTimers(day(31), { retentionDays: 30 });
      expect(late.map((t) => [t.transactionId, t.kind])).toEqual([
        ['remind', 'remind'],
        ['open', 'expire'],
        ['remind', 'expire'],
        ['ended', 'clean'],
      ]);
      expect((await store.listDueTimers(at(2), { retentionDays: 0 })).map((t) => [t.transactionId, t.kind])).toEqual([['ended', 'clean']]);
      await store.commit({ transaction: transition(ended, { type: 'clean' }, at(3)), expectedVersion: ended.version });
      expect(await store.listDueTimers(at(4), { retentionDays: 0 })).toEqual([]);
      expect(open.version).toBe(1);
    });

    it('property: after any sequence of fresh and stale commits the store holds exactly the accepted ones', async () => {
      let run = 0;
      const opArb = fc.record({ stale: fc.boolean(), audits: fc.integer({ min: 0, max: 2 }), outbox: fc.integer({ min: 0, max: 2 }) });
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
          const id = `prop-${run++}`;
          let current = await store.commit({ transaction: makeTransaction(undefined, { id }), expectedVersion: 0 });
          const snapshots: Transaction[] = [current];
          let audits = 0;
          let outbox = 0;
          for (const [i, op] of ops.entries()) {
            const base = op.stale && snapshots.length > 1 ? (snapshots[0] as Transaction) : current;
            const minute = i + 1;
            const change = {
              transaction: { ...base, Reference: `r${i}`, ModifiedDateTime: at(minute).toISOString().replace('Z', '+00:00') },
              expectedVersion: base.version,
              audit: Array.from({ length: op.audits }, (): AuditEntryInput => ({ at: at(minute), type: 'transaction.cancelled', actor: 'api', data: {} })),
              outbox: Array.from({ length: op.outbox }, (_, j) => ({ kind: 'mail' as const, payload: { i, j } })),
            };
            if (base !== current) {
              await expect(store.commit(change)).rejects.toBeInstanceOf(ConcurrencyError);
              continue;
            }
            current = await store.commit(change);
            snapshots.push(current);
            audits += op.audits;
            outbox += op.outbox;
          }
          expect(await store.getTransaction(id)).toEqual(current);
          expect(current.version).toBe(snapshots.length);
          const entries = await store.listAuditEntries(id);
          expect(verifyAuditLog(entries)).toMatchObject({ ok: true, count: audits });
          const claimed = (await store.claimDue(new Date('2100-01-01T00:00:00Z'), 1000, 1)).filter((m) => m.transactionId === id);
          expect(claimed).toHaveLength(outbox);
        }),
        { numRuns: 20 },
      );
    });

    it('property: any chunking of a stream gives the digests of its bytes', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 5000 }), { maxLength: 6 }), async (parts) => {
          const whole = Buffer.concat(parts);
          const info = await store.blobs.write(chunks(parts));
          expect(info).toEqual({ sha256: sha('sha256', whole), sha512: sha('sha512', whole), size: whole.length });
          expect(Buffer.from(await store.blobs.read(info.sha256)).equals(whole)).toBe(true);
        }),
        { numRuns: 20 },
      );
      expect(h.strayFiles()).toEqual([]);
    });

    it('keeps settings', async () => {
      expect(await store.getSetting('ca')).toBeUndefined();
      await store.putSetting('ca', { pem: 'x', n: [1, 2] });
      await store.putSetting('ca', { pem: 'y' });
      expect(await store.getSetting('ca')).toEqual({ pem: 'y' });
    });

    it('adds a setting only when absent, answering the first value stored', async () => {
      expect(await store.putSettingIfAbsent('once', { pem: 'first' })).toEqual({ pem: 'first' });
      expect(await store.putSettingIfAbsent('once', { pem: 'second' })).toEqual({ pem: 'first' });
      const racing = await Promise.all([1, 2, 3, 4].map((n) => store.putSettingIfAbsent('raced', n)));
      expect(new Set(racing).size).toBe(1);
      expect(await store.getSetting('raced')).toBe(racing[0]);
    });

    it('keeps everything across close and reopen', async () => {
      const blob = await store.blobs.write(new TextEncoder().encode('pdf'));
      const tx = putFile(makeTransaction(), { FileId: 'f', Original: { ...blob, pages: 1 } }, T0);
      await store.commit({ transaction: tx, expectedVersion: 0, audit: [created(tx)], outbox: [{ kind: 'mail', payload: 1, dueAt: T0 }] });
      await store.putSetting('k', 'v');
      store = await h.reopen();
      expect(await store.getTransaction(tx.Id)).toEqual({ ...tx, version: 1 });
      expect(verifyAuditLog(await store.listAuditEntries(tx.Id))).toMatchObject({ ok: true, count: 1 });
      expect(await store.getSetting('k')).toBe('v');
      expect((await store.findAccountByCredentials([ACCOUNT.UserTokenHash], [ACCOUNT.AppKeyHash], T0))?.account).toEqual(ACCOUNT);
      expect((await store.claimDue(T0, 10, 1000)).map((m) => m.payload)).toEqual([1]);
      expect(new TextDecoder().decode(await store.blobs.read(blob.sha256))).toBe('pdf');
    });
  });
}
