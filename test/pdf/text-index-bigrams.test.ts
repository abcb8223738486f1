import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BigramPostings, bigramSignature, mayContain, needleBits } from '../../src/pdf/text-index/bigrams.js';

describe('bigram signatures', () => {
  it('never rule out a needle the text contains (with and without spaces)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.nat(), fc.nat({ max: 30 }), (text, start, length) => {
        const from = text.length === 0 ? 0 : start % text.length;
        const needle = text.slice(from, from + length);
        expect(mayContain(bigramSignature(text), needleBits(needle))).toBe(true);
        const compact = text.replace(/ /g, '');
        const compactNeedle = compact.slice(from % (compact.length || 1), (from % (compact.length || 1)) + length);
        expect(mayContain(bigramSignature(text, true), needleBits(compactNeedle))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('rule out most needles a page does not contain', () => {
    const words = 'agreement party client provider services term notice payment invoice schedule'.split(' ');
    let text = '';
    for (let i = 0; text.length < 3500; i++) text += `${words[(i * 7) % words.length]} `;
    const signature = bigramSignature(text);
    expect(mayContain(signature, needleBits('{{Signer1}}'))).toBe(false);
    expect(mayContain(signature, needleBits('Zoë'))).toBe(false);
    expect(mayContain(signature, needleBits('payment invoice'))).toBe(true);
    expect(mayContain(signature, needleBits('x'))).toBe(true);
  });

  it('postings name exactly the pages whose signature may contain a needle, in page order', () => {
    const page = fc.option(fc.string({ unit: fc.constantFrom('a', 'b', 'c', ' ', '{', '}', '1', '2', 'é'), maxLength: 60 }), {
      nil: undefined,
    });
    fc.assert(
      fc.property(fc.array(page, { maxLength: 80 }), fc.string({ unit: fc.constantFrom('a', 'b', '{', '1', ' '), maxLength: 5 }), fc.boolean(), (texts, needle, compact) => {
        const signatures = texts.map((t) => (t === undefined ? undefined : bigramSignature(t, compact)));
        const bits = needleBits(needle);
        const expected = signatures.flatMap((s, slot) => (s && mayContain(s, bits) ? [slot] : []));
        expect(new BigramPostings(signatures).candidates(bits)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
