/**
 * Use cases run directly against a SQLite store in a temporary directory (no HTTP): for tests that must force an
 * interleaving or count what one request does.
 */
import { rm } from 'node:fs/promises';
import { createServiceContext, type ServiceContext } from '../../src/service/context.js';
import { ensureServiceKeys } from '../../src/service/keys/service-keys.js';
import { uploadFile } from '../../src/service/upload-file.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import type { Account } from '../../src/store/store.js';
import { tempDataDir } from '../helpers/service-harness.js';
import { TEST_NOW } from '../helpers/test-now.js';

export interface UseCaseFixture {
  readonly store: SqliteStore;
  readonly ctx: ServiceContext;
  readonly account: Account;
  /** PEM of the CA that issued the seal certificate (for openssl). */
  readonly sealCaPem: string;
  /** PEM of the CA that issues the signers' certificates. */
  readonly signingCaPem: string;
  close(): Promise<void>;
}

/** A clock one second further on each reading: every change is strictly later than the one before. */
function steppingClock(start: string): () => Date {
  let at = Date.parse(start);
  return () => new Date((at += 1000));
}

/** Opens a store with service keys and one account, and the context of the use cases over it. */
export async function openUseCaseFixture(clock: () => Date = steppingClock(TEST_NOW)): Promise<UseCaseFixture> {
  const dataDir = await tempDataDir();
  const store = await openSqliteStore({ dataDir });
  const { keys } = await ensureServiceKeys({ store, now: new Date('2026-11-21T09:00:00Z'), organizationName: 'Use Case Org', keyKind: 'ecdsa-p256' });
  const account: Account = { Id: 'acc-use-case', Name: 'Use case', UserTokenHash: 'u'.repeat(64), AppKeyHash: 'a'.repeat(64), CreatedDateTime: '2026-11-21T09:00:00.000+00:00' };
  await store.createAccount(account);
  const ctx = createServiceContext({
    store,
    clock,
    keys,
    settings: { publicUrl: 'http://127.0.0.1:1', maxFileBytes: 10_000_000, fileReplaceGuardMs: 0, retentionDays: 30 },
  });
  return {
    store,
    ctx,
    account,
    sealCaPem: keys.sealCaPem,
    signingCaPem: keys.signingCaPem,
    async close() {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Uploads `pdf` as `fileId` through the use case; returns its status (201/204). */
export function uploadPdf(f: UseCaseFixture, transactionId: string, fileId: string, pdf: Uint8Array, ctx: ServiceContext = f.ctx): Promise<number> {
  return uploadFile(ctx, { account: f.account, transactionId, fileId, mediaType: 'application/pdf', digests: {}, body: pdf });
}
