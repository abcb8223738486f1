import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fontkit from '@pdf-lib/fontkit';
import { degrees, PDFDocument } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import { loadBundledFont } from '../../src/pdf/fonts.js';
import { openPdfForUpdate, writeIncrementalUpdate } from '../../src/pdf/incremental.js';
import { INITIALS_STAMP_BOX, stampInitials } from '../../src/pdf/stamp-initials.js';
import { qpdfCheck } from '../helpers/external-tools.js';
import { scratchFiles } from '../helpers/scratch-files.js';

const ROTATIONS = [0, 90, 180, 270] as const;
const INITIALS = 'JVDB';

/** A page per rotation, A4 portrait in user space, with a CropBox smaller than the MediaBox. */
async function rotatedPages(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (const r of ROTATIONS) {
    const page = doc.addPage([595, 842]);
    page.setCropBox(20, 30, 540, 780);
    page.setRotation(degrees(r));
  }
  return doc.save({ useObjectStreams: false });
}

interface Ink {
  pageWidth: number;
  pageHeight: number;
  /** Bounding box of the dark pixels, in points from the top-left of the reader's page (72 dpi: 1 px = 1 pt). */
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Renders one page with poppler (rotation and CropBox applied, annotations drawn) and finds where the ink is. */
async function inkOf(pdf: Uint8Array, page: number): Promise<Ink> {
  const files = scratchFiles('stamp-initials');
  const { stdout } = await promisify(execFile)(
    'pdftoppm',
    ['-gray', '-cropbox', '-r', '72', '-f', String(page), '-l', String(page), files.file(pdf)],
    { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
  );
  // PGM (P5): "P5\n<w> <h>\n<max>\n" then one byte per pixel.
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(stdout.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('pdftoppm did not write a PGM image');
  const [w, h] = [Number(header[1]), Number(header[2])];
  const pixels = stdout.subarray(header[0].length);
  const ink: Ink = { pageWidth: w, pageHeight: h, left: w, top: h, right: -1, bottom: -1 };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (pixels[y * w + x]! > 160) continue;
      ink.left = Math.min(ink.left, x);
      ink.right = Math.max(ink.right, x + 1);
      ink.top = Math.min(ink.top, y);
      ink.bottom = Math.max(ink.bottom, y + 1);
    }
  }
  return ink;
}

describe('stampInitials', () => {
  it('puts the initials upright at the bottom right of the visible page on /Rotate 0, 90, 180 and 270 pages', async () => {
    const pdf = await rotatedPages();
    const session = await openPdfForUpdate(pdf);
    session.doc.registerFontkit(fontkit);
    const font = await session.doc.embedFont(await loadBundledFont('regular'), { subset: true });
    await stampInitials(session, { text: INITIALS, pages: [1, 2, 3, 4] }, font);
    await font.embed();
    const { bytes } = writeIncrementalUpdate(session);
    expect(bytes.subarray(0, pdf.length)).toEqual(pdf);
    expect((await qpdfCheck(bytes)).ok).toBe(true);

    const { width, height, margin } = INITIALS_STAMP_BOX;
    for (const [i, r] of ROTATIONS.entries()) {
      const ink = await inkOf(bytes, i + 1);
      const at = `page ${i + 1} (/Rotate ${r})`;
      // The reader's page is landscape on 90/270 pages.
      expect(ink.pageWidth > ink.pageHeight, `${at}: orientation`).toBe(r === 90 || r === 270);
      expect(ink.right, `${at}: no ink`).toBeGreaterThan(0);
      // Upright text reads left to right: its ink is wider than tall (sideways text would be tall and narrow).
      expect(ink.right - ink.left, `${at}: upright`).toBeGreaterThan(ink.bottom - ink.top);
      // The initials are right-aligned in the stamp box at the bottom right of the reader's page (upside-down
      // initials would sit at the left of the box).
      expect(ink.right, `${at}: right edge`).toBeGreaterThanOrEqual(ink.pageWidth - margin - 3);
      expect(ink.right, `${at}: right edge`).toBeLessThanOrEqual(ink.pageWidth - margin + 1);
      expect(ink.left, `${at}: left edge`).toBeGreaterThan(ink.pageWidth - margin - width + 10);
      expect(ink.top, `${at}: top edge`).toBeGreaterThanOrEqual(ink.pageHeight - margin - height - 1);
      expect(ink.bottom, `${at}: bottom edge`).toBeLessThanOrEqual(ink.pageHeight - margin + 1);
    }
  });
});
