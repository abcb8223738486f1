import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson } from '../../src/receipt/canonical-json.js';
import { ParaphError } from '../../src/errors.js';

describe('canonicalJson', () => {
  it('sorts keys by UTF-16 code units at every depth and writes no white space', () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null], c: 'x' }, A: 2 })).toBe('{"A":2,"a":{"c":"x","d":[true,null]},"b":1}');
    // RFC 8785 §3.2.3 orders by UTF-16 code units: by code point U+FB33 would precede U+1F600, but U+1F600 is the
    // surrogate pair D83D DE00 and 0xD83D < 0xFB33.
    expect(canonicalJson({ '\uFB33': 1, '\u{1F600}': 2, '\u20AC': 3 })).toBe('{"€":3,"😀":2,"דּ":1}');
  });

  it('writes numbers and strings exactly as JSON.stringify does', () => {
    expect(canonicalJson([1e21, 1.5, -0, 0.1, 333333333.33333329, 'é\n"\\', '\u2028'])).toBe(
      JSON.stringify([1e21, 1.5, -0, 0.1, 333333333.33333329, 'é\n"\\', '\u2028']),
    );
  });

  it('is independent of key insertion order and parses back to an equal value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        const reversed = JSON.parse(text, (_key, v: unknown) =>
          v !== null && typeof v === 'object' && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).reverse())
            : v,
        ) as unknown;
        expect(canonicalJson(reversed)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['undefined in an object', { a: undefined }, '$.a'],
    ['NaN', { a: [1, Number.NaN] }, '$.a[1]'],
    ['Infinity', Number.POSITIVE_INFINITY, '$'],
    ['a Date', { at: new Date(0) }, '$.at'],
    ['a bigint', { n: 1n }, '$.n'],
    ['a function', [() => 1], '$[0]'],
    ['an array hole', { a: [1, , 3] }, '$.a[1]'],
  ])('refuses %s and names where it is', (_name, value, path) => {
    let error: unknown;
    try {
      canonicalJson(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ParaphError);
    expect((error as ParaphError).code).toBe('CANONICAL_JSON_UNSUPPORTED');
    expect((error as Error).message).toContain(path);
  });

  it('refuses a circular structure but accepts a shared (non-circular) one', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => canonicalJson(loop)).toThrow(/circular/);
  });
});
