/**
 * An account's brand colour as the accent of the signing page and the mails. The accent is a background under white
 * text (buttons, the current step) and, darker, a text colour on white (links): WCAG 2.2 AA asks 4.5:1 for both. A
 * colour lighter than that is darkened (each channel scaled by the same factor, so the hue stays) until white on it
 * reaches 4.5:1, rather than refused: the account keeps its colour family and the signer a readable page.
 */

/** The accent and its darker companion (hover, links), both `#rrggbb`. */
export interface Accent {
  readonly color: string;
  readonly dark: string;
}

/** WCAG's minimum contrast ratio for normal text. */
const MIN_CONTRAST = 4.5;
/** How much darker the companion is (the page's default pair, #1f4fd1 and #173c9f, is about this). */
const DARK_FACTOR = 0.75;

/** The accent for a `#rrggbb` brand colour; undefined for anything else. */
export function accentOf(brandColor: string | undefined): Accent | undefined {
  if (brandColor === undefined || !/^#[0-9a-fA-F]{6}$/.test(brandColor)) return undefined;
  const rgb = [1, 3, 5].map((i) => parseInt(brandColor.slice(i, i + 2), 16));
  let factor = 1;
  while (contrastWithWhite(scaled(rgb, factor)) < MIN_CONTRAST) factor -= 0.01;
  const color = scaled(rgb, factor);
  return { color: hex(color), dark: hex(scaled(color, DARK_FACTOR)) };
}

/** The contrast ratio of white against `rgb` (1 to 21). */
export function contrastWithWhite(rgb: readonly number[]): number {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (luminance + 0.05);
}

function scaled(rgb: readonly number[], factor: number): number[] {
  return rgb.map((c) => Math.max(0, Math.round(c * factor)));
}

function hex(rgb: readonly number[]): string {
  return `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}
