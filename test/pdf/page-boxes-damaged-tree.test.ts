/**
 * A page whose /Parent is not a page tree node (the shape of pdf.js's corpus file filled-background.pdf: a 600 × 800
 * page whose /Parent names the catalog). Readers show the page's own MediaBox; the widget writer, the locator and the
 * text engines must all read that one box, so a field is drawn where `place` reports it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import { readPageGeometry } from '../../src/pdf/page-boxes.js';
import { placeFieldsFromMetadata } from '../../src/pdf/place-fields-from-metadata.js';
import { PDFDocument, PDFName, StandardFonts, rgb } from '../../src/pdf/pdf-lib.js';
import type { ReaderRect } from '../../src/pdf/page-geometry.js';
import { indexText } from '../../src/pdf/text-index/text-index.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const T0 = new Date(TEST_NOW);
const fx = usePadesFixture();
let damaged: Uint8Array;

beforeAll(async () => {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([600, 800]);
  page.drawRectangle({ x: 0, y: 0, width: 600, height: 800, color: rgb(0.25, 0.25, 0.25) });
  page.drawText('Sign here', { x: 300, y: 300, size: 14, font, color: rgb(0, 0, 0) });
  page.node.set(PDFName.of('Parent'), doc.context.getObjectRef(doc.catalog)!);
  damaged = await doc.save({ useObjectStreams: false });
});

/** Page 1 rendered by poppler at 72 dpi in gray: one byte a point. */
function render(pdf: Uint8Array): { width: number; height: number; at: (x: number, y: number) => number } {
  const dir = mkdtempSync(join(tmpdir(), 'paraph-damaged-tree-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', ['-gray', '-r', '72', '-f', '1', '-l', '1', '-singlefile', join(dir, 'in.pdf'), join(dir, 'out')]);
    const pgm = readFileSync(join(dir, 'out.pgm'));
    const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'))!;
    const width = Number(header[1]);
    const offset = header[0].length;
    return { width, height: Number(header[2]), at: (x, y) => pgm[offset + y * width + x] ?? 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Share of light pixels (the widget's pale fill on the dark page) in a band of rows over the box's width. */
function lightShare(image: ReturnType<typeof render>, box: ReaderRect, fromRow: number, toRow: number): number {
  let light = 0;
  let all = 0;
  for (let y = Math.round(fromRow); y < Math.round(toRow); y++) {
    for (let x = Math.round(box.left) + 4; x < Math.round(box.left + box.width) - 4; x++) {
      all++;
      if (image.at(x, y) > 180) light++;
    }
  }
  return light / all;
}

describe('a page whose /Parent is not a page tree node', () => {
  it('reads as the 600 × 800 page readers show, to the writer and to both text engines', async () => {
    const writer = readPageGeometry((await loadPdf(damaged)).getPage(0), 1);
    expect(writer).toMatchObject({ width: 600, height: 800, rotation: 0 });
    for (const engine of ['pdfium', 'pdfjs'] as const) {
      const index = await indexText(damaged, { engine, workers: 0 });
      expect(index.pages[0], engine).toEqual(writer);
    }
    expect(render(damaged)).toMatchObject({ width: 600, height: 800 });
  });

  it('gets its widgets drawn where place reports them, placed by page and by Search, and seals', async () => {
    const metadata = {
      Signers: { Signer1: { FormSets: ['f'] } },
      FormSets: {
        f: {
          Sig: { Type: 'Signature', Location: { PageNumber: 1, Left: 100, Top: 100, Width: 150, Height: 50 } },
          Stamp: { Type: 'Seal', Location: { Search: 'Sign here', Top: -80, Width: 150, Height: 50 } },
        },
      },
    };
    const placed = await placeFieldsFromMetadata(damaged, metadata, { workers: 0 });
    const boxes = new Map(placed.placements.map((p) => [p.field, p]));
    const image = render(placed.bytes);
    for (const field of ['f.Sig', 'f.Stamp']) {
      const box = boxes.get(field)!;
      // Inside the reported box: the widget's pale fill; just above and below it: the dark page.
      expect(lightShare(image, box, box.top + 3, box.top + box.height - 3), field).toBeGreaterThan(0.8);
      expect(lightShare(image, box, box.top - 5, box.top - 2), field).toBe(0);
      expect(lightShare(image, box, box.top + box.height + 2, box.top + box.height + 5), field).toBe(0);
    }
    // Search found the text where poppler draws it: 80 pt above its top, 500 - 14 ≈ 486 pt from the page's top.
    expect(boxes.get('f.Stamp')!.top).toBeGreaterThan(486 - 80 - 4);
    expect(boxes.get('f.Stamp')!.top).toBeLessThan(486 - 80 + 4);

    const sealed = await sealPdf(placed.bytes, { signer: fx.pki.seal.signer, signingTime: T0 });
    expect(sealed.fieldName).toBe('f.Stamp');
    const report = await checkSignedPdf(sealed.bytes, fx.pki.rootPem);
    expect(report.pdfsig.map((s) => s.validation), report.details).toEqual(['Signature is Valid.']);
    expect(report.openssl).toEqual([true]);
    expect(report.qpdf, report.details).toBe(true);
  });
});
