/**
 * Signing and sealing run as PDF jobs in the PDF processes (pdf-work.ts): the serving process reads no PDF, it only
 * makes each signature value with the key it keeps. A signing job is held to the PDF work budget and ended when the
 * service stops: the signer is answered with the error, the hold is released and nothing of the signing is kept, and
 * signing again succeeds. Use cases run directly on a SQLite store; a time-stamper that never answers holds a job
 * mid-signing where a test needs it to.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Transaction } from '../../src/domain/transaction.js';
import { ERROR_CODES } from '../../src/errors.js';
import type { Timestamper } from '../../src/pades/types.js';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { verifyReceipt } from '../../src/receipt/verify-receipt.js';
import type { ServiceContext } from '../../src/service/context.js';
import { createTransaction } from '../../src/service/create-transaction.js';
import { observePdfJobs, type PdfJobReport } from '../../src/service/pdf-jobs/pdf-work.js';
import { performVerification } from '../../src/service/signer/perform-verification.js';
import { signAsSigner } from '../../src/service/signer/sign-as-signer.js';
import { startTransaction } from '../../src/service/start-transaction.js';
import { defaultVerificationSenders } from '../../src/service/delivery/verification-senders.js';
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

const senders = defaultVerificationSenders({ info: () => undefined });
const info = { ip: '127.0.0.1', userAgent: 'test' };

/** A started, sealed transaction with one signer who has drawn a scribble: its id and the signer's token. */
async function oneSignerTransaction(): Promise<{ id: string; token: string }> {
  const tx = await createTransaction(f.ctx, f.account, { Seal: true, Signers: [{ Email: 'one@example.com', SendSignRequest: false }] });
  expect(await uploadPdf(f, tx.Id, 'a.pdf', await makePdf([['Contract'], ['Signatures']]))).toBe(201);
  await startTransaction(f.ctx, f.account, tx.Id);
  const token = ((await f.store.getTransaction(tx.Id)) as Transaction).Signers[0]!.SignToken as string;
  await performVerification(f.ctx, senders, token, { Type: 'Scribble', Name: 'One' });
  return { id: tx.Id, token };
}

/** A time-stamper that calls `reached` and never answers: the signing job waits for it mid-signing. */
function stalledTimestamper(reached: () => void = () => undefined): Timestamper {
  return () => {
    reached();
    return new Promise<Uint8Array>(() => undefined);
  };
}

async function expectNothingKept(id: string, before: Transaction): Promise<void> {
  const after = (await f.store.getTransaction(id)) as Transaction;
  expect(after.Status).toBe(10);
  expect(after.Signers[0]!.SignedDateTime).toBeUndefined();
  expect(after.Files[0]!.Current).toEqual(before.Files[0]!.Current);
  expect((await f.store.listAuditEntries(id)).map((e) => e.type)).not.toContain('signer.signed');
}

async function expectSignsAndSeals(id: string, token: string): Promise<void> {
  expect((await signAsSigner(f.ctx, token, { Fields: {} }, info)).TransactionStatus).toBe(30);
  const done = (await f.store.getTransaction(id)) as Transaction;
  const report = await checkSignedPdf(await f.store.blobs.read(done.Files[0]!.Current!.sha256), f.signingCaPem + f.sealCaPem);
  expect(report.pdfsig.map((s) => s.valid), report.details).toEqual([true, true]);
  expect(report.qpdf, report.details).toBe(true);
}

describe('signing in the PDF processes', () => {
  it('signs and seals without a PDF parsed or built in the serving process: one sign job (signature and seal from one parse), one receipt job', async () => {
    const { id, token } = await oneSignerTransaction();
    const jobs: PdfJobReport[] = [];
    const stop = observePdfJobs((report) => jobs.push(report));
    const load = vi.spyOn(PDFDocument, 'load');
    const create = vi.spyOn(PDFDocument, 'create');
    try {
      expect((await signAsSigner(f.ctx, token, { Fields: {} }, info)).TransactionStatus).toBe(30);
      expect(load).not.toHaveBeenCalled();
      expect(create).not.toHaveBeenCalled();
    } finally {
      load.mockRestore();
      create.mockRestore();
      stop();
    }
    expect(jobs.map((j) => [j.kind, j.outcome])).toEqual([
      ['sign', 'ok'],
      ['receipt', 'ok'],
    ]);
    const done = (await f.store.getTransaction(id)) as Transaction;
    const report = await checkSignedPdf(await f.store.blobs.read(done.Files[0]!.Current!.sha256), f.signingCaPem + f.sealCaPem);
    expect(report.pdfsig.map((s) => s.valid), report.details).toEqual([true, true]);
    expect(report.openssl, report.details).toEqual([true, true]);
    expect(report.qpdf, report.details).toBe(true);
  });

  it('seals a seal-only transaction at start without a PDF parsed or built in the serving process: one seal job, one receipt job', async () => {
    const tx = await createTransaction(f.ctx, f.account, { Seal: true });
    const jobs: PdfJobReport[] = [];
    const stop = observePdfJobs((report) => jobs.push(report));
    expect(await uploadPdf(f, tx.Id, 'a.pdf', await makePdf([['Sealed only']]))).toBe(201);
    // Upload opens the PDF once; resolving a document without fields reads no PDF, and nothing is left to check.
    expect(jobs.splice(0).map((j) => [j.kind, j.outcome])).toEqual([
      ['open', 'ok'],
      ['resolve', 'ok'],
    ]);
    const load = vi.spyOn(PDFDocument, 'load');
    const create = vi.spyOn(PDFDocument, 'create');
    try {
      await startTransaction(f.ctx, f.account, tx.Id);
      expect(load).not.toHaveBeenCalled();
      expect(create).not.toHaveBeenCalled();
    } finally {
      load.mockRestore();
      create.mockRestore();
      stop();
    }
    expect(jobs.map((j) => [j.kind, j.outcome])).toEqual([
      ['seal', 'ok'],
      ['receipt', 'ok'],
    ]);
    const done = (await f.store.getTransaction(tx.Id)) as Transaction;
    expect(done.Status).toBe(30);
    const report = await checkSignedPdf(await f.store.blobs.read(done.Files[0]!.Current!.sha256), f.sealCaPem);
    expect(report.pdfsig.map((s) => s.valid), report.details).toEqual([true]);
    expect(report.qpdf, report.details).toBe(true);
    // The receipt the PDF process built and sealed is whole: its seal validates and its audit log is the stored one.
    const receipt = await f.store.blobs.read(done.Receipt!.sha256);
    const verdict = await verifyReceipt(receipt, { trustRoots: [f.sealCaPem], now: new Date() });
    expect(verdict.ok, verdict.problems.join('\n')).toBe(true);
    expect(verdict.attachment?.entries.map((e) => e.hash)).toEqual((await f.store.listAuditEntries(tx.Id)).map((e) => e.hash));
    const receiptReport = await checkSignedPdf(receipt, f.sealCaPem);
    expect(receiptReport.pdfsig.map((s) => s.valid), receiptReport.details).toEqual([true]);
  });

  it('ends a signing job past its time budget: the signer gets PDF_TOO_COMPLEX (400), nothing is kept, signing again succeeds', async () => {
    const { id, token } = await oneSignerTransaction();
    const before = (await f.store.getTransaction(id)) as Transaction;
    const limited: ServiceContext = { ...f.ctx, timestamper: stalledTimestamper(), settings: { ...f.ctx.settings, pdfWork: { maxHeapMb: 256, baseMs: 1000, perPageMs: 0 } } };
    await expect(signAsSigner(limited, token, { Fields: {} }, info)).rejects.toMatchObject({ code: 'PDF_TOO_COMPLEX' });
    expect(ERROR_CODES.PDF_TOO_COMPLEX.status).toBe(400);
    await expectNothingKept(id, before);
    await expectSignsAndSeals(id, token);
  });

  it('ends a running signing job when the service stops: SIGNING_ABORTED (503), nothing is kept, signing again succeeds', async () => {
    const { id, token } = await oneSignerTransaction();
    const before = (await f.store.getTransaction(id)) as Transaction;
    const stopping = new AbortController();
    const stopped: ServiceContext = { ...f.ctx, stopping: stopping.signal, timestamper: stalledTimestamper(() => stopping.abort()) };
    await expect(signAsSigner(stopped, token, { Fields: {} }, info)).rejects.toMatchObject({ code: 'SIGNING_ABORTED' });
    expect(ERROR_CODES.SIGNING_ABORTED.status).toBe(503);
    await expectNothingKept(id, before);
    await expectSignsAndSeals(id, token);
  });
});
