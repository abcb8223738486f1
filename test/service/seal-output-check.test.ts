/**
 * No seal is reported that readers do not find: a damaged file whose earlier cross-reference table points at the wrong
 * objects (pdf.js's test file issue9418.pdf) is rewritten at upload and sealed to 30 with a seal pdfsig, openssl and
 * qpdf accept; and when such a document reaches sealing as it is, the sealed output is checked, the document rewritten
 * cleanly once and sealed again, the reason kept in the audit trail.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransaction } from '../../src/service/create-transaction.js';
import { sealedOutputProblem } from '../../src/service/pdf-jobs/check-sealed-output.js';
import { finalizeTransaction } from '../../src/service/finalize-transaction.js';
import { startTransaction } from '../../src/service/start-transaction.js';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { openUseCaseFixture, uploadPdf, type UseCaseFixture } from './use-case-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const DAMAGED = new Uint8Array(readFileSync(join(import.meta.dirname, '../../fixtures/pdfjs/issue9418.pdf')));
const CONTRACT = new Uint8Array(readFileSync(join(import.meta.dirname, '../../fixtures/sample/contract.pdf')));

let f: UseCaseFixture;
beforeAll(async () => {
  f = await openUseCaseFixture();
});
afterAll(async () => {
  await f.close();
});

async function expectReadersFindTheSeal(pdf: Uint8Array): Promise<void> {
  const report = await checkSignedPdf(pdf, f.sealCaPem);
  expect(report.pdfsig.map((s) => s.valid), report.details).toEqual([true]);
  expect(report.openssl, report.details).toEqual([true]);
  expect(report.qpdf, report.details).toBe(true);
  expect(await sealedOutputProblem(pdf, f.sealCaPem)).toBeUndefined();
}

describe('the sealed output check', () => {
  it('names what is wrong with a seal appended to the damaged file as it is', async () => {
    const sealed = await sealPdf(DAMAGED, { signer: f.ctx.keys.sealSigner, signingTime: new Date(TEST_NOW) });
    expect(await sealedOutputProblem(sealed.bytes, f.sealCaPem)).toMatch(/no signature field of the final document refers to the seal/);
  });

  it('seals the damaged file uploaded and started seal-only, with a seal readers validate', async () => {
    const tx = await createTransaction(f.ctx, f.account, { Seal: true });
    expect(await uploadPdf(f, tx.Id, 'drawing.pdf', DAMAGED)).toBe(201);
    await startTransaction(f.ctx, f.account, tx.Id);
    const done = await f.store.getTransaction(tx.Id);
    expect(done?.Status).toBe(30);
    await expectReadersFindTheSeal(await f.store.blobs.read(done!.Files[0]!.Current!.sha256));
  });

  it('rewrites and seals again a document that reaches sealing damaged, and keeps the reason', async () => {
    const tx = await createTransaction(f.ctx, f.account, { Seal: true });
    expect(await uploadPdf(f, tx.Id, 'contract.pdf', CONTRACT)).toBe(201);
    const stored = (await f.store.getTransaction(tx.Id))!;
    const raw = await f.store.blobs.write(DAMAGED);
    // As if the damaged bytes had reached status 20 unrepaired.
    const at20 = { ...stored, Status: 20 as const, Files: stored.Files.map((file) => ({ ...file, Current: { sha256: raw.sha256, size: raw.size } })) };
    await finalizeTransaction(f.ctx, at20, { expectedVersion: stored.version, audit: [], outbox: [] });
    const done = (await f.store.getTransaction(tx.Id))!;
    expect(done.Status).toBe(30);
    await expectReadersFindTheSeal(await f.store.blobs.read(done.Files[0]!.Current!.sha256));
    const finalized = (await f.store.listAuditEntries(tx.Id)).find((e) => e.type === 'document.finalized');
    expect(finalized?.data).toMatchObject({ fileId: 'contract.pdf', rewrittenBecause: expect.stringMatching(/no signature field of the final document refers to the seal/) as unknown });
  });
});
