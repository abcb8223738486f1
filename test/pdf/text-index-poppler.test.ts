/**
 * Cross-check of the text index against an independent extractor, poppler's `pdftotext -bbox`, on the committed
 * fixtures. poppler reports each word relative to the top-left corner of the rotated MediaBox, so our reader boxes
 * (measured from the CropBox) are converted to that frame first. Horizontally the boxes must agree within 1 pt.
 * Vertically the tools define boxes differently (poppler: the font's ascent and descent; paraph: 0.8 em above and
 * 0.2 em below the baseline), so the baselines are compared instead: ours, box top + 0.8 em, must equal poppler's,
 * box bottom + descent × size, with the font's descent from its metrics (AFM values for the standard fonts, the
 * FontDescriptor for DejaVu Sans), within 1 pt.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, PDFName, PDFNumber, PDFDict, PDFArray } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import { findText, indexText } from '../../src/pdf/text-index/text-index.js';
import { pageGeometryFromBoxes, readerRectToUser, userRectToReader } from '../../src/pdf/page-geometry.js';
import type { GenTruth } from '../../src/testing/generate-pdf.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/pdf');
const anchors = JSON.parse(readFileSync(join(FIXTURES, 'anchors.json'), 'utf8')) as Record<string, GenTruth[]>;

/** Descent (em, positive) poppler uses for the standard fonts: their AFM Descender. */
const AFM_DESCENT: Record<string, number> = { Helvetica: 0.207, 'Times-Roman': 0.217, Courier: 0.157 };

interface PopplerWord {
  page: number;
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

function popplerWords(file: string): PopplerWord[] {
  const html = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' });
  const words: PopplerWord[] = [];
  let page = 0;
  const decode = (s: string): string =>
    s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
  for (const match of html.matchAll(/<page |<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g)) {
    if (match[0] === '<page ') {
      page++;
      continue;
    }
    words.push({
      page,
      text: decode(match[5]!),
      xMin: Number(match[1]),
      yMin: Number(match[2]),
      xMax: Number(match[3]),
      yMax: Number(match[4]),
    });
  }
  return words;
}

/** DejaVu Sans's descent as the fixture's FontDescriptor states it (em, positive). */
function descriptorDescent(doc: PDFDocument): number | undefined {
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || object.get(PDFName.of('Type'))?.toString() !== '/FontDescriptor') continue;
    const name = object.get(PDFName.of('FontName'))?.toString() ?? '';
    const descent = object.get(PDFName.of('Descent'));
    if (name.includes('DejaVuSans') && descent instanceof PDFNumber) return -descent.asNumber() / 1000;
  }
  return undefined;
}

function mediaBox(doc: PDFDocument, pageNumber: number): { x: number; y: number; width: number; height: number } {
  const box = doc.getPage(pageNumber - 1).node.MediaBox() as PDFArray;
  const [x1, y1, x2, y2] = [0, 1, 2, 3].map((i) => (box.lookup(i) as PDFNumber).asNumber()) as [number, number, number, number];
  return { x: Math.min(x1, x2), y: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}

describe('text index vs poppler pdftotext -bbox on the fixtures', () => {
  for (const file of Object.keys(anchors)) {
    it(`agrees on the anchor words of ${file}`, async () => {
      const path = join(FIXTURES, file);
      const bytes = readFileSync(path);
      const doc = await PDFDocument.load(bytes);
      const index = await indexText(bytes, { workers: 0 });
      const words = popplerWords(path);
      const dejavuDescent = descriptorDescent(doc);
      let compared = 0;
      for (const truth of anchors[file]!) {
        if (!truth.upright) continue;
        const candidates = words.filter((w) => w.page === truth.pageNumber && w.text === truth.anchor);
        if (candidates.length === 0) continue; // not a whole word for poppler (glued punctuation, letter-spaced)
        const ours = findText(index, truth.anchor, { pageNumber: truth.pageNumber });
        const geo = index.pages[truth.pageNumber - 1]!;
        const media = pageGeometryFromBoxes(mediaBox(doc, truth.pageNumber), geo.rotation, geo.pageNumber);
        // Our match nearest to where the generator drew this anchor, moved into poppler's frame.
        const mine = ours.reduce((a, b) => (Math.abs(a.box.left - truth.box.left) + Math.abs(a.box.top - truth.box.top) <= Math.abs(b.box.left - truth.box.left) + Math.abs(b.box.top - truth.box.top) ? a : b));
        const box = userRectToReader(media, readerRectToUser(geo, mine.box));
        const word = candidates.reduce((a, b) => (Math.abs(a.xMin - box.left) + Math.abs(a.yMin - box.top) <= Math.abs(b.xMin - box.left) + Math.abs(b.yMin - box.top) ? a : b));
        expect(Math.abs(word.xMin - box.left), `${truth.anchor} xMin`).toBeLessThanOrEqual(1);
        expect(Math.abs(word.xMax - (box.left + box.width)), `${truth.anchor} xMax`).toBeLessThanOrEqual(1);
        const descent = truth.font === 'DejaVuSans' ? dejavuDescent : AFM_DESCENT[truth.font];
        if (descent !== undefined && truth.style !== 'split-fonts' && truth.style !== 'split-blocks') {
          const ourBaseline = box.top + 0.8 * truth.size;
          const popplerBaseline = word.yMax - descent * truth.size;
          expect(Math.abs(ourBaseline - popplerBaseline), `${truth.anchor} baseline`).toBeLessThanOrEqual(1);
        } else {
          // Mixed fonts or a Type3 font (no standard descent): poppler's box must still contain our baseline.
          const ourBaseline = box.top + 0.8 * truth.size;
          expect(ourBaseline).toBeGreaterThan(word.yMin);
          expect(ourBaseline).toBeLessThan(word.yMax + 0.5);
        }
        compared++;
      }
      expect(compared, 'anchors compared').toBeGreaterThanOrEqual(2);
    });
  }
});
