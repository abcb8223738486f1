/**
 * An account's brand colour as accent: any `#rrggbb` comes out readable (white on it, and it and its darker companion
 * as text on white, at least 4.5:1), a colour that already is keeps its value, anything else gives no accent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accentOf, contrastWithWhite } from '../../src/service/delivery/accent-color.js';

const rgbOf = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const hexColor = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })).map(
  (rgb) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`,
);

describe('accentOf', () => {
  it('makes every colour readable and keeps one that already is', () => {
    fc.assert(
      fc.property(hexColor, (color) => {
        const accent = accentOf(color)!;
        expect(contrastWithWhite(rgbOf(accent.color))).toBeGreaterThanOrEqual(4.5);
        expect(contrastWithWhite(rgbOf(accent.dark))).toBeGreaterThanOrEqual(contrastWithWhite(rgbOf(accent.color)));
        if (contrastWithWhite(rgbOf(color)) >= 4.5) expect(accent.color).toBe(color.toLowerCase());
      }),
    );
  });

  it('darkens a light colour in its own hue: the page default stays, yellow becomes a dark yellow', () => {
    expect(accentOf('#1f4fd1')).toEqual({ color: '#1f4fd1', dark: '#173b9d' });
    const yellow = accentOf('#FFCC00')!;
    const [r, g, b] = rgbOf(yellow.color) as [number, number, number];
    expect(b).toBe(0);
    expect(g / r).toBeCloseTo(0xcc / 0xff, 1);
    expect(contrastWithWhite(rgbOf('#ffcc00'))).toBeLessThan(4.5);
  });

  it('gives no accent for what is not #rrggbb', () => {
    for (const bad of [undefined, '', 'red', '#fff', '#12345g', '#1234567', ' #123456']) expect(accentOf(bad)).toBeUndefined();
  });
});
