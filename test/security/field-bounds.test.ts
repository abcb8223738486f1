/**
 * Bounds on a document's fields: every Signature field of a signer is a signature of its own over the whole
 * document, and every widget is written and shown, so one upload of a few KB of FileMetaData could ask for minutes of
 * signing work. A signer gets at most `maxSignaturesPerSigner` Signature fields per document and a document at most
 * `maxWidgetsPerDocument` widgets; past either the placement is refused naming the count and the limit.
 */
import { describe, expect, it } from 'vitest';
import { resolvePlacements } from '../../src/pdf/resolve-placements.js';
import { DEFAULT_INDEX_LIMITS } from '../../src/pdf/text-index/limits.js';
import { makePdf } from '../helpers/service-harness.js';

function fields(count: number, type: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, { Type: type, Location: { PageNumber: 1, Left: 10 + (i % 20), Top: 10 + (i % 30), ...extra } }]));
}

describe('field bounds', () => {
  it('has documented defaults: 20 Signature fields per signer, 2,000 widgets per document', () => {
    expect(DEFAULT_INDEX_LIMITS).toMatchObject({ maxSignaturesPerSigner: 20, maxWidgetsPerDocument: 2000 });
  });

  it('refuses a signer with more Signature fields than allowed, naming signer, count and limit', async () => {
    const pdf = await makePdf([['Contract']]);
    const metadata = { Signers: { Signer1: { FormSets: ['s'] } }, FormSets: { s: fields(21, 'Signature') } };
    const refusal = await resolvePlacements(pdf, metadata, { signerIds: ['Signer1'], fileId: 'contract' }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'SIGNER_TOO_MANY_SIGNATURES', origin: 'input' });
    expect((refusal as Error).message).toBe(
      'Signer Signer1 has 21 Signature fields in document contract; at most 20 are allowed (each is a signature of its own over the whole document): give the signer fewer Signature fields',
    );
    const allowed = await resolvePlacements(pdf, { ...metadata, FormSets: { s: fields(20, 'Signature') } }, { signerIds: ['Signer1'], fileId: 'contract' });
    expect(allowed.placements).toHaveLength(20);
  });

  it('refuses a document with more widgets than allowed, however they come about (fields, Search matches)', async () => {
    const pdf = await makePdf([['Contract']]);
    const many = { Signers: { Signer1: { FormSets: ['s'] } }, FormSets: { s: { ...fields(2001, 'Check'), sig: { Type: 'Signature', Location: { PageNumber: 1 } } } } };
    const refusal = await resolvePlacements(pdf, many, { signerIds: ['Signer1'], fileId: 'contract' }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'DOCUMENT_TOO_MANY_WIDGETS', origin: 'input' });
    expect((refusal as Error).message).toMatch(/^Document contract would get 2002 field widgets .*; at most 2000 are allowed/);
    // Three Locations without Occurence, each under the per-Location cap, together past a smaller document cap.
    const text = await makePdf([Array.from({ length: 10 }, () => 'Initial here')]);
    const searched = { Signers: { Signer1: { FormSets: ['s'] } }, FormSets: { s: { a: { Type: 'Check', Location: { Search: 'Initial' } }, b: { Type: 'Check', Location: { Search: 'here' } }, sig: { Type: 'Signature', Location: { Search: 'Initial', Occurence: 1 } } } } };
    const small = await resolvePlacements(text, searched, { signerIds: ['Signer1'], fileId: 'contract', limits: { maxWidgetsPerDocument: 20 } }).catch((error: unknown) => error);
    expect((small as Error).message).toMatch(/^Document contract would get 21 field widgets .*; at most 20 are allowed/);
  });
});
