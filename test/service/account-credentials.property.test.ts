/**
 * Random admin sequences (create, disable, enable, issue, rotate with or without overlap, revoke, time passing)
 * against a model: after every step, every pair of user token and app key ever issued authenticates exactly the
 * account both were issued for, only while both are valid and the account is enabled, and nothing otherwise; and the
 * account a pair authenticates reads its own transactions and none of another account's.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CredentialKind } from '../../src/domain/account.js';
import { createAccount, issueCredential, revokeCredential, rotateCredential, setAccountDisabled } from '../../src/service/account-admin.js';
import { authenticateAccount, type CredentialDeps } from '../../src/service/keys/credentials.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { createServiceContext } from '../../src/service/context.js';
import { createTransaction } from '../../src/service/create-transaction.js';
import { getTransaction } from '../../src/service/get-transaction.js';
import { ensureServiceKeys } from '../../src/service/keys/service-keys.js';

type Op =
  | { op: 'create' }
  | { op: 'disable' | 'enable'; account: number }
  | { op: 'issue'; account: number; kind: CredentialKind }
  | { op: 'rotate'; credential: number; overlap: 0 | 60 }
  | { op: 'revoke'; credential: number }
  | { op: 'wait'; seconds: number }
  | { op: 'transaction'; account: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ op: 'create' }),
  fc.record({ op: fc.constantFrom('disable' as const, 'enable' as const), account: fc.nat(5) }),
  fc.record({ op: fc.constant('issue' as const), account: fc.nat(5), kind: fc.constantFrom<CredentialKind>('app-key', 'user-token') }),
  fc.record({ op: fc.constant('issue' as const), account: fc.nat(5), kind: fc.constantFrom<CredentialKind>('app-key', 'user-token') }),
  fc.record({ op: fc.constant('rotate' as const), credential: fc.nat(20), overlap: fc.constantFrom<0 | 60>(0, 60) }),
  fc.record({ op: fc.constant('revoke' as const), credential: fc.nat(20) }),
  fc.record({ op: fc.constant('wait' as const), seconds: fc.integer({ min: 1, max: 90 }) }),
  fc.record({ op: fc.constant('transaction' as const), account: fc.nat(5) }),
);

interface ModelCredential {
  id: string;
  accountId: string;
  kind: CredentialKind;
  secret: string;
  revoked: boolean;
  rotated: boolean;
  validUntil?: number;
}

describe('account credentials against a model', () => {
  it('authenticate exactly their own account, only while valid', async () => {
    const key = randomBytes(32);
    // Service keys made once (key generation is slow); each run's context uses them over its own store.
    const keyDir = mkdtempSync(join(tmpdir(), 'paraph-cred-keys-'));
    const keyStore = await openSqliteStore({ dataDir: keyDir });
    const { keys } = await ensureServiceKeys({ store: keyStore, now: new Date('2026-11-21T09:00:00Z'), organizationName: 'Prop Org', keyKind: 'ecdsa-p256' });
    await keyStore.close();
    rmSync(keyDir, { recursive: true, force: true });
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
        const dir = mkdtempSync(join(tmpdir(), 'paraph-cred-prop-'));
        const store = await openSqliteStore({ dataDir: dir, synchronous: 'NORMAL' });
        let now = Date.parse('2026-11-21T10:00:00Z');
        const deps: CredentialDeps = { store, clock: () => new Date(now), credentialKey: { mac: (s) => createHmac('sha256', key).update(s).digest('hex') } };
        const ctx = createServiceContext({ store, clock: deps.clock, keys, settings: { publicUrl: 'http://127.0.0.1:1', maxFileBytes: 10_000_000, fileReplaceGuardMs: 0, retentionDays: 30 } });
        const transactions: Array<{ id: string; accountId: string }> = [];
        const accounts: Array<{ id: string; disabled: boolean }> = [];
        const credentials: ModelCredential[] = [];
        try {
          for (const step of [{ op: 'create' } as Op, ...ops]) {
            await apply(step);
            await check();
          }
        } finally {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        }

        async function apply(step: Op): Promise<void> {
          switch (step.op) {
            case 'create':
              accounts.push({ id: (await createAccount(deps, 'test', { Name: `Org ${accounts.length}` })).account.Id, disabled: false });
              return;
            case 'disable':
            case 'enable': {
              const account = accounts[step.account % accounts.length]!;
              await setAccountDisabled(deps, 'test', account.id, step.op === 'disable');
              account.disabled = step.op === 'disable';
              return;
            }
            case 'issue': {
              const account = accounts[step.account % accounts.length]!;
              const issued = await issueCredential(deps, 'test', account.id, step.kind);
              credentials.push({ id: issued.credential.id, accountId: account.id, kind: step.kind, secret: issued.secret, revoked: false, rotated: false });
              return;
            }
            case 'rotate': {
              if (credentials.length === 0) return;
              const old = credentials[step.credential % credentials.length]!;
              const active = !old.revoked && !old.rotated;
              const attempt = rotateCredential(deps, 'test', old.accountId, old.id, step.overlap);
              if (!active) {
                await expect(attempt).rejects.toMatchObject({ code: 'CREDENTIAL_NOT_ACTIVE' });
                return;
              }
              const rotated = await attempt;
              old.rotated = true;
              old.validUntil = now + step.overlap * 1000;
              credentials.push({ id: rotated.credential.id, accountId: old.accountId, kind: old.kind, secret: rotated.secret, revoked: false, rotated: false });
              return;
            }
            case 'revoke': {
              if (credentials.length === 0) return;
              const c = credentials[step.credential % credentials.length]!;
              await revokeCredential(deps, 'test', c.accountId, c.id);
              c.revoked = true;
              return;
            }
            case 'wait':
              now += step.seconds * 1000;
              return;
            case 'transaction': {
              const account = accounts[step.account % accounts.length]!;
              const owner = (await store.getAccount(account.id))!;
              const tx = await createTransaction(ctx, owner, { Signers: [{ Email: 'signer@example.com', SendSignRequest: false }] });
              transactions.push({ id: tx.Id, accountId: account.id });
              return;
            }
          }
        }

        async function check(): Promise<void> {
          const valid = (c: ModelCredential): boolean => !c.revoked && (c.validUntil === undefined || now < c.validUntil);
          for (const user of credentials.filter((c) => c.kind === 'user-token')) {
            for (const app of credentials.filter((c) => c.kind === 'app-key')) {
              const account = accounts.find((a) => a.id === user.accountId)!;
              const expected = user.accountId === app.accountId && valid(user) && valid(app) && !account.disabled ? account.id : undefined;
              const authenticated = await authenticateAccount(deps, user.secret, app.secret);
              expect(authenticated?.Id).toBe(expected);
              if (authenticated === undefined) continue;
              for (const tx of transactions) {
                const read = getTransaction(ctx, authenticated, tx.id);
                if (tx.accountId === authenticated.Id) expect((await read).Id).toBe(tx.id);
                // Another account's transaction is answered as if it did not exist: 401, like a wrong credential.
                else await expect(read).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND', message: 'Authorization has been denied for this request.' });
              }
            }
            // Never with the pair swapped, never with itself as both.
            expect(await authenticateAccount(deps, user.secret, user.secret)).toBeUndefined();
          }
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
