/**
 * A seal-only start racing a file upload. The start seals and builds the receipt from the audit chain it
 * reads; an upload committed meanwhile (with a later time) must make the start lose with a retryable 409
 * `START_CONFLICT` and leave the transaction at 5, never a 400 with the audit chain's internal time-order message.
 * The interleaving is forced: the upload runs exactly when the start reads the audit chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/service/context.js';
import { createTransaction } from '../../src/service/create-transaction.js';
import { startTransaction } from '../../src/service/start-transaction.js';
import type { Store } from '../../src/store/store.js';
import { makePdf } from '../helpers/service-harness.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { openUseCaseFixture, uploadPdf, type UseCaseFixture } from './use-case-fixture.js';

let f: UseCaseFixture;
beforeAll(async () => {
  f = await openUseCaseFixture();
});
afterAll(async () => {
  await f.close();
});

/** The fixture's context whose store runs `interject` once, right before the first audit chain read. */
function interjectingBeforeAuditRead(interject: () => Promise<void>): ServiceContext {
  let armed = true;
  const racing: Store = new Proxy(f.store as Store, {
    get(target, property, receiver) {
      if (property === 'listAuditEntries') {
        return async (id: string) => {
          if (armed) {
            armed = false;
            await interject();
          }
          return target.listAuditEntries(id);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { ...f.ctx, store: racing };
}

describe('seal-only start racing a file upload', () => {
  it('answers a retryable START_CONFLICT (409), keeps status 5 and the upload, and a second start seals both files', async () => {
    const tx = await createTransaction(f.ctx, f.account, { Seal: true });
    expect(await uploadPdf(f, tx.Id, 'first.pdf', await makePdf([['first']]))).toBe(201);

    let uploaded: number | undefined;
    const racing = interjectingBeforeAuditRead(async () => {
      uploaded = await uploadPdf(f, tx.Id, 'second.pdf', await makePdf([['second']]));
    });
    await expect(startTransaction(racing, f.account, tx.Id)).rejects.toMatchObject({ code: 'START_CONFLICT' });
    expect(uploaded).toBe(201);
    const after = await f.store.getTransaction(tx.Id);
    expect(after?.Status).toBe(5);
    expect(after?.Files.map((file) => file.FileId)).toEqual(['first.pdf', 'second.pdf']);

    await startTransaction(f.ctx, f.account, tx.Id);
    const sealed = await f.store.getTransaction(tx.Id);
    expect(sealed?.Status).toBe(30);
    for (const file of sealed?.Files ?? []) {
      const report = await checkSignedPdf(await f.store.blobs.read(file.Current!.sha256), f.sealCaPem);
      expect(report.openssl, report.details).toEqual([true]);
      expect(report.qpdf, report.details).toBe(true);
    }
  });
});
