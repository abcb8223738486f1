import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findText, indexText } from '../../src/pdf/text-index/text-index.js';
import { generatePdf, type GenFont } from '../../src/testing/generate-pdf.js';

const FONTS: readonly GenFont[] = ['Helvetica', 'Times-Roman', 'Courier', 'DejaVuSans', 'Type3'];

describe('generatePdf({ seed, … })', () => {
  it('200 random documents: the text index finds every anchor once, on the page and within 1 pt of where truth says', async () => {
    const styles = new Set<string>();
    const rotations = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          pages: fc.integer({ min: 1, max: 2 }),
          anchorsPerPage: fc.integer({ min: 1, max: 4 }),
          rotate: fc.boolean(),
          cropBox: fc.boolean(),
          rotatedText: fc.boolean(),
          fonts: fc.subarray([...FONTS], { minLength: 1 }),
        }),
        async (options) => {
          const { bytes, truth } = await generatePdf(options);
          const index = await indexText(bytes, { workers: 0 });
          expect(index.pageCount).toBe(options.pages);
          for (const page of index.pages) {
            rotations.add(page.rotation);
            if (!options.rotate) expect(page.rotation).toBe(0);
          }
          for (const t of truth) {
            expect(options.fonts).toContain(t.font);
            styles.add(t.style);
            const matches = findText(index, t.anchor);
            expect(matches, `${t.anchor} (${t.font}, ${t.style})`).toHaveLength(1);
            const [match] = matches;
            expect(match!.pageNumber).toBe(t.pageNumber);
            for (const key of ['left', 'top', 'width', 'height'] as const) {
              expect(Math.abs(match!.box[key] - t.box[key]), `${t.anchor} ${key}`).toBeLessThanOrEqual(1);
            }
          }
        },
      ),
      { numRuns: 200, seed: 2026 },
    );
    // The hard cases were really drawn: text split over runs and fonts, spacing, scaling, rotated pages.
    expect([...styles].sort()).toEqual(['kerned', 'per-glyph', 'plain', 'scaled', 'spaced', 'split-blocks', 'split-fonts']);
    expect([...rotations].sort()).toEqual([0, 180, 270, 90]);
  }, 120_000);

  it('is deterministic for a seed: same bytes and truth', async () => {
    const a = await generatePdf({ seed: 42, pages: 2 });
    const b = await generatePdf({ seed: 42, pages: 2 });
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(a.truth).toEqual(b.truth);
    const c = await generatePdf({ seed: 43, pages: 2 });
    expect(Buffer.from(c.bytes).equals(Buffer.from(a.bytes))).toBe(false);
  });
});
