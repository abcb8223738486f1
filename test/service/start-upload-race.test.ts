/**
 * Issue 19: a seal-only start racing a file upload. The start seals and builds the receipt from the audit chain it
 * reads; an upload committed meanwhile (with a later time) must make the start lose with a retryable 409
 * `START_CONFLICT` and leave the transaction at 5, never a 400 with the audit chain's internal time-order message.
 * The interleaving is forced: the upload runs exactly when the start reads the audit chain.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransaction } from '../../src/service/create-transaction.js';
import { createServiceContext, type ServiceContext } from '../../src/service/context.js';
import { ensureServiceKeys } from '../../src/service/service-keys.js';
import { startTransaction } from '../../src/service/start-transaction.js';
import { uploadFile } from '../../src/service/upload-file.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import type { Account, Store } from '../../src/store/store.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { makePdf, tempDataDir } from '../e2e/service-harness.js';

let dataDir: string;
let store: SqliteStore;
let ctx: ServiceContext;
let sealCaPem: string;
const account: Account = { Id: 'acc-race', Name: 'Race', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'a'.repeat(64), CreatedDateTime: '2026-11-21T10:00:00.000+00:00' };

/** A clock one second further on each reading: every change is strictly later than the one before. */
function steppingClock(start: string): () => Date {
  let at = Date.parse(start);
  return () => new Date((at += 1000));
}

beforeAll(async () => {
  dataDir = await tempDataDir();
  store = await openSqliteStore({ dataDir });
  const { keys } = await ensureServiceKeys({ store, now: new Date('2026-11-21T09:00:00Z'), organizationName: 'Race Org', keyKind: 'ecdsa-p256' });
  sealCaPem = keys.sealCaPem;
  await store.createAccount(account);
  ctx = createServiceContext({
    store,
    clock: steppingClock('2026-11-21T10:00:00Z'),
    keys,
    settings: { publicUrl: 'http://127.0.0.1:1', maxFileBytes: 10_000_000, fileReplaceGuardMs: 0, retentionDays: 30 },
  });
});
afterAll(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function upload(context: ServiceContext, transactionId: string, fileId: string, text: string): Promise<number> {
  return uploadFile(context, { account, transactionId, fileId, mediaType: 'application/pdf', digests: {}, body: await makePdf([[text]]) });
}

/** `ctx` whose store runs `interject` once, right before the first audit chain read. */
function interjectingBeforeAuditRead(interject: () => Promise<void>): ServiceContext {
  let armed = true;
  const racing: Store = new Proxy(store as Store, {
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
  return { ...ctx, store: racing };
}

describe('seal-only start racing a file upload', () => {
  it('answers a retryable START_CONFLICT (409), keeps status 5 and the upload, and a second start seals both files', async () => {
    const tx = await createTransaction(ctx, account, { Seal: true });
    expect(await upload(ctx, tx.Id, 'first.pdf', 'first')).toBe(201);

    let uploaded: number | undefined;
    const racing = interjectingBeforeAuditRead(async () => {
      uploaded = await upload(ctx, tx.Id, 'second.pdf', 'second');
    });
    await expect(startTransaction(racing, account, tx.Id)).rejects.toMatchObject({ code: 'START_CONFLICT' });
    expect(uploaded).toBe(201);
    const after = await store.getTransaction(tx.Id);
    expect(after?.Status).toBe(5);
    expect(after?.Files.map((f) => f.FileId)).toEqual(['first.pdf', 'second.pdf']);

    await startTransaction(ctx, account, tx.Id);
    const sealed = await store.getTransaction(tx.Id);
    expect(sealed?.Status).toBe(30);
    for (const file of sealed?.Files ?? []) {
      const report = await checkSignedPdf(await store.blobs.read(file.Current!.sha256), sealCaPem);
      expect(report.openssl, report.details).toEqual([true]);
      expect(report.qpdf, report.details).toBe(true);
    }
  });
});
