/**
 * The Unicode font paraph embeds for field labels, appearances and receipts: DejaVu Sans (free licence, see
 * assets/fonts/LICENSE-DejaVu.txt), covering Latin, Greek and Cyrillic, so names like "Zoë Łukasiewicz-Ōta" render.
 * The files ship inside the package; reading them is the one disk access the pure core makes, once per process.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type fontkitModule from '@pdf-lib/fontkit';
import type { PDFDocument } from './pdf-lib.js';

/** Which bundled face to load. */
export type BundledFontFace = 'regular' | 'bold';

const FONT_FILES: Record<BundledFontFace, string> = {
  regular: 'DejaVuSans.ttf',
  bold: 'DejaVuSans-Bold.ttf',
};

const cache = new Map<BundledFontFace, Promise<Uint8Array>>();

/** The TTF bytes of a bundled font face, ready for `PDFDocument.embedFont` after `registerFontkit`. */
export function loadBundledFont(face: BundledFontFace = 'regular'): Promise<Uint8Array> {
  let bytes = cache.get(face);
  if (!bytes) {
    // src/pdf/ and dist/pdf/ both sit two levels below the package root.
    const url = new URL(`../../assets/fonts/${FONT_FILES[face]}`, import.meta.url);
    bytes = readFile(url).then((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
    cache.set(face, bytes);
  }
  return bytes;
}

/** The fontkit instance pdf-lib's `registerFontkit` takes. */
export type Fontkit = Parameters<PDFDocument['registerFontkit']>[0];

let fontkitLib: typeof fontkitModule | undefined;

/**
 * fontkit, loaded on first use with `require`: its 1 MB UMD bundle costs ~150 ms to load that way and ~100 ms more
 * through `import` (Node scans a CommonJS module's source for its export names), which a short CLI run feels.
 */
function fontkit(): typeof fontkitModule {
  fontkitLib ??= createRequire(import.meta.url)('@pdf-lib/fontkit') as typeof fontkitModule;
  return fontkitLib;
}

const parsedFonts = new WeakMap<Uint8Array, ReturnType<Fontkit['create']>>();

/**
 * fontkit, remembering the font it parsed from each font file's bytes. Parsing DejaVu Sans afresh for every
 * document costs ~50 ms (its tables are read lazily and kept in the font object); reusing it ~5 ms. pdf-lib only
 * reads the parsed font and makes a new subset per document, so sharing it is invisible to callers. Keyed by the
 * byte array itself: pass the instances {@link loadBundledFont} returns (or your own long-lived ones).
 */
export const cachingFontkit: Fontkit = {
  create(data: Uint8Array, postscriptName?: string) {
    let font = parsedFonts.get(data);
    if (!font) {
      font = fontkit().create(data, postscriptName);
      parsedFonts.set(data, font);
    }
    return font;
  },
};
