/**
 * The mail worker records a sent mail (an activity on the transaction) while a signer's signature is being applied
 * under the signing hold. When that change leaves the signer, the documents and the status alone, the signature is
 * committed on top of it, both kept; the signer is not answered 409 with the transaction left "being processed".
 * A change to the signer itself still wins. Use cases run directly on a SQLite store; the race is forced by a store
 * that runs the worker's change right before the signature's commit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transaction } from '../../src/domain/transaction.js';
import type { ServiceContext } from '../../src/service/context.js';
import { createTransaction } from '../../src/service/create-transaction.js';
import { recordMailSent } from '../../src/service/delivery/record-mail-delivery.js';
import { performVerification } from '../../src/service/signer/perform-verification.js';
import { rebaseSignature, signAsSigner } from '../../src/service/signer/sign-as-signer.js';
import { startTransaction } from '../../src/service/start-transaction.js';
import { defaultVerificationSenders } from '../../src/service/delivery/verification-senders.js';
import type { Store, TransactionChange } from '../../src/store/store.js';
import { makePdf } from '../helpers/service-harness.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { openUseCaseFixture, uploadPdf, type UseCaseFixture } from '../service/use-case-fixture.js';

let f: UseCaseFixture;
beforeAll(async () => {
  f = await openUseCaseFixture();
});
afterAll(async () => {
  await f.close();
});

const senders = defaultVerificationSenders({ info: () => undefined });

/** The fixture's context whose store runs `interject` once, right before the commit that records Signer1's signature. */
function racingSignature(interject: () => Promise<void>, signerId = 'Signer1'): ServiceContext {
  let armed = true;
  const racing: Store = new Proxy(f.store as Store, {
    get(target, property, receiver) {
      if (property === 'commit') {
        return async (input: TransactionChange) => {
          if (armed && input.transaction.Signers.some((s) => s.Id === signerId && s.SignedDateTime !== undefined)) {
            armed = false;
            await interject();
          }
          return target.commit(input);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { ...f.ctx, store: racing };
}

async function twoSignerTransaction(): Promise<{ tx: Transaction; token: string }> {
  const tx = await createTransaction(f.ctx, f.account, {
    SignRequestMode: 1,
    Seal: true,
    Receivers: [{ Email: 'copy@example.com', Name: 'Copy' }],
    Signers: [{ Email: 'one@example.com', SendSignRequest: false }, { Email: 'two@example.com', SendSignRequest: true, SignRequestMessage: 'Please sign' }],
  });
  expect(await uploadPdf(f, tx.Id, 'a.pdf', await makePdf([['Contract']]))).toBe(201);
  await startTransaction(f.ctx, f.account, tx.Id);
  const started = (await f.store.getTransaction(tx.Id)) as Transaction;
  const token = started.Signers[0]!.SignToken as string;
  await performVerification(f.ctx, senders, token, { Type: 'Scribble', Name: 'One' });
  return { tx: started, token };
}

describe('a signature racing the mail worker', () => {
  it('is committed on top of an activity recorded for another signer or a receiver: both kept, not left at 20 (also the last, sealing signature)', async () => {
    const { tx, token } = await twoSignerTransaction();
    const racing = racingSignature(() => recordMailSent(f.ctx, { transactionId: tx.Id, kind: 'invitation', to: 'two@example.com', signerId: 'Signer2' }, 'msg-2'));
    const answer = await signAsSigner(racing, token, { Fields: {} }, { ip: '127.0.0.1', userAgent: 'test' });
    expect(answer).toBeDefined();
    const after = (await f.store.getTransaction(tx.Id)) as Transaction;
    expect(after.Status).toBe(10);
    expect(after.Signers[0]!.SignedDateTime).toBeDefined();
    expect(after.Signers[1]!.Activities?.map((a) => a.Code)).toContain(101);
    expect(after.Files[0]!.Current).toBeDefined();

    // The last signature (sealed and finished in the same commit) racing a mail recorded for the receiver.
    const second = after.Signers[1]!.SignToken as string;
    await performVerification(f.ctx, senders, second, { Type: 'Scribble', Name: 'Two' });
    const racingLast = racingSignature(() => recordMailSent(f.ctx, { transactionId: tx.Id, kind: 'documents', to: 'copy@example.com', receiverId: after.Receivers[0]!.Id }, 'msg-3'), 'Signer2');
    await signAsSigner(racingLast, second, { Fields: {} }, { ip: '127.0.0.1', userAgent: 'test' });
    const done = (await f.store.getTransaction(tx.Id)) as Transaction;
    expect(done.Status).toBe(30);
    expect(done.Receipt).toBeDefined();
    expect(done.Receivers[0]!.Activities?.map((a) => a.Code)).toContain(301);
    const report = await checkSignedPdf(await f.store.blobs.read(done.Files[0]!.Current!.sha256), f.sealCaPem);
    expect(report.qpdf, report.details).toBe(true);
  });

  it('does not carry a signature over a change to the same signer or to the transaction itself', () => {
    const held = { Id: 't', Status: 20, ModifiedDateTime: '2026-11-21T10:00:00.000+00:00', version: 3, Files: [], Receivers: [], Signers: [{ Id: 'Signer1', Email: 'a' }, { Id: 'Signer2', Email: 'b' }] } as unknown as Transaction;
    const signed = { ...held, Signers: [{ Id: 'Signer1', Email: 'a', SignedDateTime: 'x' }, held.Signers[1]] } as unknown as Transaction;
    const other = { ...held, version: 4, Signers: [held.Signers[0], { Id: 'Signer2', Email: 'b', Activities: [{ Code: 101 }] }] } as unknown as Transaction;
    expect(rebaseSignature(held, signed, other, 'Signer1')?.Signers).toEqual([signed.Signers[0], other.Signers[1]]);
    const same = { ...held, version: 4, Signers: [{ Id: 'Signer1', Email: 'a', Activities: [{ Code: 104 }] }, held.Signers[1]] } as unknown as Transaction;
    expect(rebaseSignature(held, signed, same, 'Signer1')).toBeUndefined();
    expect(rebaseSignature(held, signed, { ...held, version: 4, Status: 70 } as Transaction, 'Signer1')).toBeUndefined();
  });
});
