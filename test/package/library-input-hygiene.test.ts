/**
 * Input hygiene of the library API: metadata that is not a plain JSON object gets one
 * clear issue (a 1 MB buffer once gave a million), `listSignatureFields` takes bytes, and pdf-lib's warnings about a
 * damaged file stay off the host's console while the host's own warnings still get through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { validateFileMetaData, type FileMetaData } from '../../src/pdf/file-metadata.js';
import { listSignatureFields } from '../../src/pades/list-signature-fields.js';
import { placeFieldsFromMetadata } from '../../src/pdf/place-fields-from-metadata.js';
import { generatePdf } from '../../src/testing/generate-pdf.js';

const onePage = () =>
  generatePdf([{ width: 595, height: 842, rotation: 0, texts: [{ anchor: '{{Signer1}}', left: 100, baseline: 600, size: 12, font: 'Helvetica', style: 'plain' }] }]);

function issuesOf(value: unknown): readonly string[] {
  try {
    validateFileMetaData(value);
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
  return [];
}

// The host's console.warn, replaced before paraph first reads a PDF (paraph wraps whatever is there then).
const warnings: unknown[][] = [];
const originalWarn = console.warn;
beforeAll(() => {
  console.warn = (...args: unknown[]) => void warnings.push(args);
});
afterAll(() => {
  console.warn = originalWarn;
});

describe('metadata that is not a plain JSON object', () => {
  it('gives one issue naming what it is, at the top and nested', () => {
    expect(issuesOf(Buffer.alloc(1_000_000))).toEqual(['FileMetaData: must be a JSON object (got bytes: parse a FileMetaData file with parseFileMetaData)']);
    expect(issuesOf(new Uint8Array(10))).toHaveLength(1);
    expect(issuesOf(new Map([['FormSets', {}]]))).toEqual(['FileMetaData: must be a JSON object (got a Map, not a plain JSON object)']);
    expect(issuesOf(new Date(0))).toEqual(['FileMetaData: must be a JSON object (got a Date, not a plain JSON object)']);
    expect(issuesOf({ FormSets: new Map() })).toEqual(['FormSets: must be a JSON object (got a Map, not a plain JSON object)']);
    expect(issuesOf({ FormSets: { s: { f: { Type: 'Signature', Location: new Date(0) } } } })).toEqual([
      'FormSets.s.f.Location: must be a JSON object (got a Date, not a plain JSON object)',
    ]);
    // Objects made with a null prototype are plain too.
    expect(issuesOf(Object.assign(Object.create(null) as object, { DisplayName: 'x' }))).toEqual([]);
  });

  it('placeFieldsFromMetadata refuses bytes with that one issue', async () => {
    const { bytes } = await onePage();
    await expect(placeFieldsFromMetadata(bytes, Buffer.from('{"FormSets":{}}') as unknown as FileMetaData, { workers: 0 })).rejects.toMatchObject({
      code: 'INVALID_FILE_METADATA',
      issues: ['FileMetaData: must be a JSON object (got bytes: parse a FileMetaData file with parseFileMetaData)'],
    });
  });
});

describe('listSignatureFields and damaged files', () => {
  it('takes PDF bytes and lists the placed fields', async () => {
    const { bytes } = await onePage();
    const placed = await placeFieldsFromMetadata(bytes, { FormSets: { main: { sig: { Type: 'Signature', Location: { Search: '{{Signer1}}' } } } } }, { workers: 0 });
    expect((await listSignatureFields(placed.bytes)).map((f) => [f.name, f.signed])).toEqual([['main.sig', false]]);
    await expect(listSignatureFields(new TextEncoder().encode('not a pdf'))).rejects.toMatchObject({ code: 'PDF_NOT_A_PDF' });
  });

  it("keeps pdf-lib's warnings about a damaged file off the console, not the host's own", async () => {
    const { bytes } = await onePage();
    const damaged = new Uint8Array(Buffer.from(Buffer.from(bytes).toString('latin1').replace(/ obj\s*<</, ' obj\n]]'), 'latin1'));
    warnings.length = 0;
    const reading = listSignatureFields(damaged).catch((error: unknown) => error);
    console.warn('host warning');
    expect(await reading).toMatchObject({ code: 'PDF_UNREADABLE' });
    console.warn('host warning after');
    expect(warnings).toEqual([['host warning'], ['host warning after']]);
  });
});
