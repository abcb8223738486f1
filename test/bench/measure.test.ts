import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTable, quantile, summarize } from '../../src/bench/measure.js';

describe('summarize', () => {
  it('min ≤ median ≤ max, all taken from the samples (the median of an even count is the middle mean)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 50 }), (samples) => {
        const { min, median, max } = summarize(samples);
        const sorted = [...samples].sort((a, b) => a - b);
        expect(min).toBe(sorted[0]);
        expect(max).toBe(sorted.at(-1));
        expect(min).toBeLessThanOrEqual(median);
        expect(median).toBeLessThanOrEqual(max);
        if (samples.length % 2 === 1) expect(sorted).toContain(median);
      }),
      { numRuns: 300 },
    );
    expect(summarize([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5, max: 4 });
    expect(summarize([])).toEqual({ min: NaN, median: NaN, max: NaN });
  });

  it('quantile is the nearest rank', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(quantile([1, 2, 3, 4], 0.95)).toBe(4);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('formatTable writes a Markdown table under a ### title', () => {
    expect(formatTable('T', ['a', 'b'], [['1', '2']])).toBe('### T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n');
  });
});
