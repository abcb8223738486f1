/**
 * resolvePlacements with the document's facts handed in: what it would read of the PDF with
 * pdf-lib (page geometry when nothing searches, the PDF's own fields of a fillable PDF) comes from `documentFacts`,
 * computed elsewhere; the resolver then never calls pdf-lib's `PDFDocument.load`, and resolves exactly as without.
 */
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it, vi } from 'vitest';
import { documentFacts } from '../../src/pdf/document-facts.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import { resolvePlacements } from '../../src/pdf/resolve-placements.js';
import { makePdf } from '../helpers/service-harness.js';
import { fillablePdf } from './fields-fillable-fixture.js';

async function withoutLoad<T>(run: () => Promise<T>): Promise<{ result: T; loads: number }> {
  const load = vi.spyOn(PDFDocument, 'load');
  try {
    const result = await run();
    return { result, loads: load.mock.calls.length };
  } finally {
    load.mockRestore();
  }
}

const BOXES = {
  Signers: { alice: { FormSets: ['a'] } },
  FormSets: {
    a: {
      sig: { Type: 'Signature', Location: { PageNumber: 2, Left: 50, Top: 60, Width: 140, Height: 70 } },
      city: { Type: 'SingleLine', Location: { PageNumber: 1, Right: 40, Bottom: 30 } },
    },
  },
};

describe('resolvePlacements with documentFacts', () => {
  it('resolves page-number Locations from the handed facts, as it does reading the PDF itself', async () => {
    const pdf = await makePdf([['One'], ['Two']]);
    const { result: today, loads: reading } = await withoutLoad(() => resolvePlacements(pdf, BOXES, { signerIds: ['alice'] }));
    expect(reading).toBe(1); // without facts it reads the PDF with pdf-lib
    const facts = documentFacts(await loadPdf(pdf));
    const { result, loads } = await withoutLoad(() => resolvePlacements(pdf, BOXES, { signerIds: ['alice'], document: facts }));
    expect(loads).toBe(0);
    expect(result).toEqual(today);
    expect(JSON.parse(JSON.stringify(facts))).toEqual(facts);
  });

  it("gives a fillable PDF's own fields to its signers from the handed facts, as it does reading the PDF itself", async () => {
    const pdf = await fillablePdf();
    const meta = { Signers: { Signer1: { FormSets: ['Contract.pdf'] } } };
    const options = { fileId: 'Contract.pdf', signerIds: ['Signer1', 'Signer2'], workers: 0 };
    const today = await resolvePlacements(pdf, meta, options);
    const facts = documentFacts(await loadPdf(pdf));
    const { result, loads } = await withoutLoad(() => resolvePlacements(pdf, meta, { ...options, document: facts }));
    expect(loads).toBe(0);
    expect(result).toEqual(today);
    expect(result.placements.filter((p) => p.existing === true).map((p) => p.field)).toContain('Customer.City');
  });

  it('refuses a fillable PDF whose facts have no fields (its form could not be read)', async () => {
    const pdf = await fillablePdf();
    const { pages } = documentFacts(await loadPdf(pdf));
    const meta = { Signers: { Signer1: { FormSets: ['Contract.pdf'] } } };
    await expect(resolvePlacements(pdf, meta, { fileId: 'Contract.pdf', signerIds: ['Signer1'], document: { pages } })).rejects.toMatchObject({
      code: 'PDF_UNREADABLE',
    });
  });
});
