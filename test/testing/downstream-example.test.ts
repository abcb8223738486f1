/**
 * The README's downstream example, run as a test: a harness that uses paraph/testing to check paraph's placement
 * ("for any valid metadata, placing fields never throws and every field lands inside its page").
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { placeFieldsFromMetadata } from '../../src/pdf/place-fields-from-metadata.js';
import { fileMetaData } from '../../src/testing/file-metadata-arbitraries.js';
import { generatePdf } from '../../src/testing/generate-pdf.js';

const A4 = { width: 595, height: 842 };
let pdf: Uint8Array;

beforeAll(async () => {
  // Two A4 pages (the second turned by /Rotate 90), an anchor in the middle of each.
  ({ bytes: pdf } = await generatePdf([
    { ...A4, rotation: 0, texts: [{ anchor: '{{Signer1}}', left: 240, baseline: 420, size: 12, font: 'Helvetica', style: 'plain' }] },
    { ...A4, rotation: 90, texts: [{ anchor: '{{Signer2}}', left: 240, baseline: 420, size: 12, font: 'DejaVuSans', style: 'kerned' }] },
  ]));
});

describe('downstream property test with paraph/testing', () => {
  it('for any valid metadata, placing fields never throws and every field lands inside its page', async () => {
    const metadata = fileMetaData({ location: { searchTexts: ['{{Signer1}}', '{{Signer2}}'], pages: 2, pageSize: A4, maxOffset: 100, maxSize: 150 } });
    await fc.assert(
      fc.asyncProperty(metadata, async (m) => {
        const { fields } = await placeFieldsFromMetadata(pdf, m, { workers: 0 });
        // One PDF field per field key, except that a formset's Radio fields are one radio group.
        const expected = Object.values(m.FormSets ?? {}).reduce((n, set) => {
          const types = Object.values(set).map((f) => f.Type);
          return n + types.filter((t) => t !== 'Radio').length + (types.includes('Radio') ? 1 : 0);
        }, 0);
        expect(fields).toHaveLength(expected);
        for (const field of fields) {
          for (const w of field.widgets) {
            expect(w.left).toBeGreaterThanOrEqual(0);
            expect(w.top).toBeGreaterThanOrEqual(0);
            expect(w.left + w.width).toBeLessThanOrEqual(A4.width);
            expect(w.top + w.height).toBeLessThanOrEqual(A4.height);
          }
        }
      }),
      { numRuns: 150, seed: 77 },
    );
  }, 60_000);
});
