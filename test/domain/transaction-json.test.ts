/**
 * The tolerant reader's pure parts (docs/design/api.md#tolerant-reader): null properties dropped everywhere except
 * inside Context, and the nesting limit naming the path, whatever the input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dropNullProperties, MAX_BODY_DEPTH, MAX_CONTEXT_DEPTH, nestingProblem } from '../../src/domain/transaction-json.js';

function nullsOutsideContext(value: unknown): number {
  if (Array.isArray(value)) return value.reduce<number>((n, item) => n + (item === null ? 0 : nullsOutsideContext(item)), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.entries(value).reduce((n, [key, item]) => n + (item === null ? 1 : key === 'Context' ? 0 : nullsOutsideContext(item)), 0);
}

function nested(levels: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe('dropNullProperties', () => {
  it('leaves no null property outside Context, keeps Context as it was, and is idempotent (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.jsonValue({ maxDepth: 3 }), (value, context) => {
        const body = { value, Context: context, Signers: [{ Context: context, x: null }] };
        const dropped = dropNullProperties(body);
        expect(nullsOutsideContext(dropped)).toBe(0);
        // A Context of null is an absent Context; any other is kept exactly, nulls inside included.
        expect(dropped.Context).toEqual(context === null ? undefined : context);
        expect(dropped.Signers[0]).toEqual(context === null ? {} : { Context: context });
        expect(dropNullProperties(dropped)).toEqual(dropped);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps null array items (refused by the schema with their path) and __proto__ as an ordinary key', () => {
    expect(dropNullProperties({ Signers: [null, { SendSignRequest: false, Email: 'a', Mobile: null }] })).toEqual({ Signers: [null, { SendSignRequest: false, Email: 'a' }] });
    const parsed = JSON.parse('{"__proto__":{"a":null,"b":1}}') as object;
    const dropped = dropNullProperties(parsed);
    expect(Object.getPrototypeOf(dropped)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(dropped, '__proto__')?.value).toEqual({ b: 1 });
  });
});

describe('nestingProblem', () => {
  it('accepts a Context of exactly the limit and names the Context beyond it, however deep', () => {
    expect(nestingProblem({ Context: nested(MAX_CONTEXT_DEPTH) }, 'Transaction')).toBeUndefined();
    for (const depth of [MAX_CONTEXT_DEPTH + 1, 4200, 100_000]) {
      expect(nestingProblem({ Signers: [{ SendSignRequest: false, Email: 'a', Context: nested(depth) }] }, 'Transaction')).toBe(
        `Signers[0].Context: nested more than ${MAX_CONTEXT_DEPTH} levels deep; at most ${MAX_CONTEXT_DEPTH} levels are accepted`,
      );
    }
  });

  it('limits the whole body and names where it went too deep', () => {
    expect(nestingProblem(nested(MAX_BODY_DEPTH), 'Transaction')).toBeUndefined();
    expect(nestingProblem(nested(MAX_BODY_DEPTH + 1), 'Transaction')).toBe(
      `${Array.from({ length: MAX_BODY_DEPTH }, () => 'a').join('.')}: nested more than ${MAX_BODY_DEPTH} levels deep; at most ${MAX_BODY_DEPTH} levels are accepted`,
    );
    expect(nestingProblem([[[]]], 'Transaction')).toBeUndefined();
  });

  it('never throws and answers undefined for every value within the limits (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10 }), (value) => {
        expect(nestingProblem(value, 'Transaction')).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
