/**
 * No pdf-lib parse of an upload on the serving thread: resolving the placements of a document
 * whose Locations only name pages (the page geometry) or of a fillable PDF (the PDF's own fields) needs facts of the
 * PDF; pdf-work.ts's threads read those facts (in the job that opens the upload, or
 * one of their own) and the serving thread never calls `PDFDocument.load` (spied here: a worker thread has its own
 * pdf-lib), from upload to start; the placements are those the library resolves by reading the PDF itself.
 */
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolvePlacements } from '../../src/pdf/resolve-placements.js';
import { createTransaction } from '../../src/service/create-transaction.js';
import { startTransaction } from '../../src/service/start-transaction.js';
import { uploadFile } from '../../src/service/upload-file.js';
import { makePdf } from '../helpers/service-harness.js';
import { fillablePdf } from '../pdf/fields-fillable-fixture.js';
import { openUseCaseFixture, uploadPdf, type UseCaseFixture } from '../service/use-case-fixture.js';

let f: UseCaseFixture;
beforeAll(async () => {
  f = await openUseCaseFixture();
});
afterAll(async () => {
  await f.close();
});

const signers = [
  { Id: 'Alice', Email: 'alice@example.com', SignRequestMessage: 'Please sign.' },
  { Id: 'Bob', Email: 'bob@example.com', SignRequestMessage: 'Please sign.' },
];

function uploadMetadata(transactionId: string, fileId: string, metadata: unknown): Promise<number> {
  const body = new TextEncoder().encode(JSON.stringify(metadata));
  return uploadFile(f.ctx, { account: f.account, transactionId, fileId, mediaType: 'application/json', digests: {}, body });
}

/** Runs `steps` counting the serving thread's `PDFDocument.load` calls. */
async function countLoads(steps: () => Promise<void>): Promise<number> {
  const load = vi.spyOn(PDFDocument, 'load');
  try {
    await steps();
    return load.mock.calls.length;
  } finally {
    load.mockRestore();
  }
}

/** Page-number Locations only, a Signature field for each signer: nothing to search. */
const BOXES = {
  Signers: { Alice: { FormSets: ['a'] }, Bob: { FormSets: ['b'] } },
  FormSets: {
    a: { sig: { Type: 'Signature', Location: { PageNumber: 2, Left: 50, Top: 60, Width: 140, Height: 70 } } },
    b: { sig: { Type: 'Signature', Location: { PageNumber: 1, Right: 40, Bottom: 30 } }, city: { Type: 'SingleLine', Location: { PageNumber: 1, Left: 72, Top: 100 } } },
  },
};

/** Alice fills the PDF's own fields (Signature1 among them); Bob gets a default signature field. */
const FILLABLE = { Signers: { Alice: { FormSets: ['form.pdf'] } } };

describe('no pdf-lib parse of an upload on the serving thread', () => {
  it.each([
    ['page-number Locations, metadata before the PDF', 'contract.pdf', BOXES, 'metadata-first'],
    ['page-number Locations, the PDF before the metadata', 'contract.pdf', BOXES, 'pdf-first'],
    ['a fillable PDF, metadata before the PDF', 'form.pdf', FILLABLE, 'metadata-first'],
    ['a fillable PDF, the PDF before the metadata', 'form.pdf', FILLABLE, 'pdf-first'],
  ] as const)('%s: upload and start parse nothing there, and the placements are the library’s', async (_, fileId, metadata, order) => {
    const pdf = fileId === 'form.pdf' ? await fillablePdf() : await makePdf([['Contract'], ['Signatures']]);
    const expected = await resolvePlacements(pdf, metadata, { signerIds: signers.map((s) => s.Id), fileId });
    const tx = await createTransaction(f.ctx, f.account, { Signers: signers });
    const loads = await countLoads(async () => {
      if (order === 'metadata-first') {
        expect(await uploadMetadata(tx.Id, fileId, metadata)).toBe(202);
        expect(await uploadPdf(f, tx.Id, fileId, pdf)).toBe(201);
      } else {
        expect(await uploadPdf(f, tx.Id, fileId, pdf)).toBe(201);
        expect(await uploadMetadata(tx.Id, fileId, metadata)).toBe(204);
      }
      await startTransaction(f.ctx, f.account, tx.Id);
    });
    expect(loads).toBe(0);
    const file = (await f.store.getTransaction(tx.Id))!.Files[0]!;
    expect(file.Placements).toEqual(expected.placements);
    if (fileId === 'form.pdf') expect(file.Placements?.some((p) => p.existing === true && p.field === 'Signature1')).toBe(true);
  });
});
