import { describe, expect, it } from 'vitest';
import {
  checkBoxAppearance,
  fitText,
  num,
  rotationMatrix,
  signatureAppearance,
  textFieldAppearance,
  textFieldFontSize,
  type AppearanceFont,
} from '../../src/pdf/field-appearance.js';

/** Every character is 0.5 em wide; encodes as the text in angle brackets so tests can read it. */
const font: AppearanceFont = {
  encodeText: (text) => `<${text}>`,
  widthOfTextAtSize: (text, size) => [...text].length * 0.5 * size,
};

describe('field appearances', () => {
  it('formats numbers for content streams without exponents or -0', () => {
    expect([num(1.23456), num(-0.0001), num(12), num(1e-7), num(-2.5)]).toEqual(['1.235', '0', '12', '0', '-2.5']);
  });

  it('fits a label: full size when it fits, smaller when not, cut with an ellipsis below the minimum size', () => {
    expect(fitText(font, 'abcd', 100, 10)).toEqual({ text: 'abcd', size: 10 });
    expect(fitText(font, 'abcdefghij', 40, 10)).toEqual({ text: 'abcdefghij', size: 8 });
    const cut = fitText(font, 'x'.repeat(100), 40, 10);
    expect(cut.size).toBe(4);
    expect(cut.text).toBe(`${'x'.repeat(19)}…`);
    expect(font.widthOfTextAtSize(cut.text, cut.size)).toBeLessThanOrEqual(40);
    expect(fitText(font, 'abc', 1, 10).text).toBe('');
  });

  it('draws the signature label once, inside the box', () => {
    const content = signatureAppearance(font, 'F', 140, 70, 'Sign here: Signer1');
    expect(content.match(/ Tj /g)).toHaveLength(1);
    expect(content).toContain('<Sign here: Signer1> Tj');
    expect(content).toContain('0.5 0.5 139 69 re B');
  });

  it('puts a text field value in the /Tx marked content viewers replace, and none when empty', () => {
    expect(textFieldAppearance(font, 'F', 150, 18, 10, 'Zoë')).toMatch(/\/Tx BMC q .* re W n 0 g\nBT \/F 10 Tf 2 [\d.]+ Td <Zoë> Tj ET\nQ EMC\n$/s);
    expect(textFieldAppearance(font, 'F', 150, 18, 10, undefined)).not.toContain('Tj');
    expect([textFieldFontSize(18), textFieldFontSize(6), textFieldFontSize(100)]).toEqual([10.5, 4, 12]);
  });

  it('draws a check mark only in the on state', () => {
    expect(checkBoxAppearance(12, 12, false)).not.toContain(' l S');
    expect(checkBoxAppearance(12, 12, true)).toContain(' l S');
  });

  it('counter-rotates the appearance by the page rotation, so it shows upright', () => {
    for (const r of [0, 90, 180, 270] as const) {
      const [a, b, c, d, e, f] = rotationMatrix(r);
      expect([e, f]).toEqual([0, 0]);
      // A viewer shows the page turned clockwise by r: in y-up coordinates, a rotation by -r.
      const rad = (-r * Math.PI) / 180;
      const [cos, sin] = [Math.round(Math.cos(rad)), Math.round(Math.sin(rad))];
      // [a b; c d] (row vectors, PDF convention) followed by the view rotation must be the identity.
      const m11 = a * cos - b * sin;
      const m12 = a * sin + b * cos;
      const m21 = c * cos - d * sin;
      const m22 = c * sin + d * cos;
      expect([m11, m12, m21, m22].map((v) => v + 0)).toEqual([1, 0, 0, 1]);
    }
  });
});
