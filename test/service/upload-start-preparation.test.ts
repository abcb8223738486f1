/**
 * Upload resolves where each document's fields go (default signature fields included) without writing
 * them, and start writes them there instead of extracting text and resolving again; a change that alters what the
 * resolution depends on (new metadata, a replaced PDF) resolves again. Checked by what start reads (the uploaded PDF
 * only) and by the text extractions it runs (none when reusing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referencedBlobs } from '../../src/domain/transaction.js';
import type { ServiceContext } from '../../src/service/context.js';
import { createTransaction } from '../../src/service/create-transaction.js';
import { observePdfJobs } from '../../src/service/pdf-jobs/pdf-work.js';
import { startTransaction } from '../../src/service/start-transaction.js';
import { uploadFile } from '../../src/service/upload-file.js';
import type { Store } from '../../src/store/store.js';
import { makePdf } from '../helpers/service-harness.js';
import { qpdfCheck } from '../helpers/external-tools.js';
import { openUseCaseFixture, uploadPdf, type UseCaseFixture } from './use-case-fixture.js';

/** Text extractions: each runs in a `resolve` job of the PDF processes. */
const extractions = { count: 0 };
const stopObserving = observePdfJobs((report) => {
  if (report.kind === 'resolve') extractions.count++;
});
afterAll(stopObserving);

let f: UseCaseFixture;
beforeAll(async () => {
  f = await openUseCaseFixture();
});
afterAll(async () => {
  await f.close();
});

/** The fixture's context, counting the blobs read through it. */
function countingBlobReads(): { ctx: ServiceContext; reads: () => number } {
  let reads = 0;
  const blobs = new Proxy(f.store.blobs, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === 'read') {
        return (...args: unknown[]) => {
          reads++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const store = new Proxy(f.store as Store, {
    get(target, property, receiver) {
      if (property === 'blobs') return blobs;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { ctx: { ...f.ctx, store }, reads: () => reads };
}

function uploadMetadata(transactionId: string, fileId: string, metadata: unknown): Promise<number> {
  const body = new TextEncoder().encode(JSON.stringify(metadata));
  return uploadFile(f.ctx, { account: f.account, transactionId, fileId, mediaType: 'application/json', digests: {}, body });
}

const signers = [
  { Id: 'Alice', Email: 'alice@example.com', SignRequestMessage: 'Please sign.' },
  { Id: 'Bob', Email: 'bob@example.com', SignRequestMessage: 'Please sign.' },
];

describe('upload resolves, start places', () => {
  it('start reads only the uploaded PDF and extracts no text when upload resolved it; the PDF gets every signer’s field', async () => {
    const tx = await createTransaction(f.ctx, f.account, { Signers: signers });
    extractions.count = 0;
    expect(await uploadPdf(f, tx.Id, 'contract.pdf', await makePdf([['Contract'], ['{{Signer2}} signs here']]))).toBe(201);
    expect(extractions.count).toBe(1);
    const uploaded = (await f.store.getTransaction(tx.Id))!.Files[0]!;
    expect(uploaded.Current).toBeUndefined();
    const counting = countingBlobReads();
    extractions.count = 0;
    await startTransaction(counting.ctx, f.account, tx.Id);
    expect(counting.reads()).toBe(1);
    expect(extractions.count).toBe(0);

    const started = await f.store.getTransaction(tx.Id);
    expect(started?.Status).toBe(10);
    const file = started!.Files[0]!;
    expect(file.Prepared).toBeUndefined();
    expect(file.Placements?.filter((p) => p.type === 'Signature').map((p) => [p.field, p.pageNumber])).toEqual([
      ['Alice.Signature', 1],
      ['Bob.Signature', 2],
    ]);
    const pdf = await f.store.blobs.read(file.Current!.sha256);
    expect((await qpdfCheck(pdf)).ok).toBe(true);
  });

  it('metadata uploaded after the PDF replaces the preparation, and start uses the new one', async () => {
    const tx = await createTransaction(f.ctx, f.account, { Signers: signers });
    expect(await uploadPdf(f, tx.Id, 'form.pdf', await makePdf([['Name: ____'], ['Page two']]))).toBe(201);
    const before = (await f.store.getTransaction(tx.Id))!.Files[0]!.Prepared;
    const metadata = {
      Signers: { Alice: { FormSets: ['alice'] } },
      FormSets: { alice: { sig: { Type: 'Signature', Location: { PageNumber: 2, Left: 50, Top: 50, Width: 140, Height: 70 } } } },
    };
    expect(await uploadMetadata(tx.Id, 'form.pdf', metadata)).toBe(204);
    const after = (await f.store.getTransaction(tx.Id))!.Files[0]!;
    expect(after.Prepared?.key).not.toBe(before?.key);

    const counting = countingBlobReads();
    extractions.count = 0;
    await startTransaction(counting.ctx, f.account, tx.Id);
    expect(counting.reads()).toBe(1);
    expect(extractions.count).toBe(0);
    const started = (await f.store.getTransaction(tx.Id))!.Files[0]!;
    expect(started.Placements?.filter((p) => p.type === 'Signature').map((p) => [p.field, p.pageNumber])).toEqual([
      ['alice.sig', 2],
      ['Bob.Signature', 1],
    ]);
    expect(started.Placements).toEqual(after.Placements);
    expect((await qpdfCheck(await f.store.blobs.read(started.Current!.sha256))).ok).toBe(true);
  });

  it('a file stored by an older version (Prepared with the blob of a prepared PDF) starts at its placements; that blob is no longer referenced', async () => {
    const tx = await createTransaction(f.ctx, f.account, { Signers: signers });
    expect(await uploadPdf(f, tx.Id, 'old.pdf', await makePdf([['Old'], ['{{Signer1}}']]))).toBe(201);
    const stored = (await f.store.getTransaction(tx.Id))!;
    const legacyBlob = await f.store.blobs.write(new TextEncoder().encode('%PDF-1.7 a prepared PDF of before'));
    const file = stored.Files[0]!;
    const legacy = { ...file, Prepared: { ...file.Prepared!, sha256: legacyBlob.sha256, size: legacyBlob.size } };
    await f.store.commit({ transaction: { ...stored, Files: [legacy] }, expectedVersion: stored.version });
    expect(referencedBlobs((await f.store.getTransaction(tx.Id))!)).not.toContain(legacyBlob.sha256);

    extractions.count = 0;
    await startTransaction(f.ctx, f.account, tx.Id);
    expect(extractions.count).toBe(0);
    const started = (await f.store.getTransaction(tx.Id))!.Files[0]!;
    expect(started.Prepared).toBeUndefined();
    expect(started.Placements).toEqual(file.Placements);
    expect(started.Current?.sha256).not.toBe(legacyBlob.sha256);
    expect((await qpdfCheck(await f.store.blobs.read(started.Current!.sha256))).ok).toBe(true);
  });
});
