import { describe, expect, it } from 'vitest';
import { PdfParseError } from '../../src/errors.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import { userRectToReader } from '../../src/pdf/page-geometry.js';
import { placeFields } from '../../src/pdf/place-fields.js';
import { resolvePlacements } from '../../src/pdf/resolve-placements.js';
import { qpdfCheck } from '../helpers/external-tools.js';

const latin1 = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

/**
 * A classic-xref PDF from object bodies (object i + 1 = bodies[i]), with `extra` raw text placed before the xref
 * table that the table does not point to.
 */
function rawPdf(bodies: readonly string[], extra = ''): Uint8Array {
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  bodies.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  out += extra;
  const xref = out.length;
  out += `xref\n0 ${bodies.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${bodies.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return latin1(out);
}

const CONTENT = '<< /Length 44 >>\nstream\nBT /F1 12 Tf 306 396 Td (Sign here) Tj ET   \nendstream';
const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** One page whose /Rotate and CropBox come from the page tree node, not the page. */
function inheritedGeometryPdf(): Uint8Array {
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] /CropBox [36 36 576 756] /Rotate 90 >>',
    '<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    CONTENT,
    FONT,
  ]);
}

/** One page with the given page-tree node and page dictionary entries (boxes, /Rotate). */
function onePagePdf(treeEntries: string, pageEntries: string): Uint8Array {
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [3 0 R] /Count 1 ${treeEntries} >>`,
    `<< /Type /Page /Parent 2 0 R ${pageEntries} /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`,
    CONTENT,
    FONT,
  ]);
}

/** Pages whose geometry is easy to read wrongly; both parsers must agree on each. */
const AGREEING_PAGES: readonly (readonly [string, Uint8Array])[] = [
  ['/Rotate and CropBox inherited from the page tree', inheritedGeometryPdf()],
  ['a CropBox with a non-number entry (ignored: the MediaBox shows)', onePagePdf('/MediaBox [0 0 612 792]', '/CropBox [0 0 (wide) 792] /Rotate 270')],
  ['a CropBox outside the MediaBox (ignored)', onePagePdf('/MediaBox [0 0 612 792]', '/CropBox [700 900 800 1000] /Rotate 180')],
  ['corners given in reverse order, /Rotate -90 and 450', onePagePdf('/MediaBox [612 792 0 0] /Rotate -90', '/CropBox [600 780 12 12] /Rotate 450')],
];

/**
 * One page that pdf.js and pdf-lib read differently: the xref table points at a page with /Rotate 90; a second,
 * unreferenced definition of the same object with /Rotate 0 follows it in the file (pdf-lib keeps the last one).
 */
function disagreeingPdf(): Uint8Array {
  return rawPdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>',
      '<< /Type /Page /Parent 2 0 R /Rotate 90 /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
      CONTENT,
      FONT,
    ],
    '3 0 obj\n<< /Type /Page /Parent 2 0 R /Rotate 0 /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>\nendobj\n',
  );
}

const SEARCH_METADATA = {
  Signers: { signer1: { FormSets: ['fs'] } },
  FormSets: { fs: { Sign: { Type: 'Signature', Location: { Search: 'Sign here', Top: 20, Width: 140, Height: 70 } } } },
};

describe('resolvePlacements', () => {
  it('resolves without writing: the placements and page geometry are plain data and the PDF is untouched', async () => {
    const pdf = inheritedGeometryPdf();
    const before = pdf.slice();
    const resolved = await resolvePlacements(pdf, SEARCH_METADATA, { signerIds: ['signer1'], workers: 0 });
    expect(pdf).toEqual(before);
    expect(JSON.parse(JSON.stringify(resolved))).toEqual(resolved);
    expect(resolved.placements).toHaveLength(1);
    expect(resolved.placements[0]).toMatchObject({ field: 'fs.Sign', type: 'Signature', pageNumber: 1, width: 140, height: 70 });
    expect(resolved.pages).toEqual([
      { pageNumber: 1, width: 720, height: 540, rotation: 90, cropBox: { x: 36, y: 36, width: 540, height: 720 } },
    ]);
  });

  it.each(AGREEING_PAGES)('writes later what it resolved, where it resolved it: %s', async (_, pdf) => {
    const resolved = await resolvePlacements(pdf, SEARCH_METADATA, { workers: 0 });
    const { bytes } = await placeFields(pdf, resolved.placements, { pages: resolved.pages });
    expect(bytes.subarray(0, pdf.length)).toEqual(pdf);
    expect((await qpdfCheck(bytes)).ok).toBe(true);
    // Read back with the geometry pdf.js saw: the field is where the resolver found the text.
    const widget = (await loadPdf(bytes)).getForm().getSignature('fs.Sign').acroField.getWidgets()[0]!.getRectangle();
    const placed = userRectToReader(resolved.pages[0]!, widget);
    const p = resolved.placements[0]!;
    for (const k of ['left', 'top', 'width', 'height'] as const) expect(placed[k]).toBeCloseTo(p[k], 2);
  });

  it('refuses to write on a page the text extractor and the writer read differently, naming the page', async () => {
    const pdf = disagreeingPdf();
    const resolved = await resolvePlacements(pdf, SEARCH_METADATA, { workers: 0 });
    expect(resolved.pages[0]?.rotation).toBe(90);
    const failure = await placeFields(pdf, resolved.placements, { pages: resolved.pages }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PdfParseError);
    expect(failure).toMatchObject({ code: 'PAGE_GEOMETRY_MISMATCH', message: expect.stringContaining('page 1 reads as') });
  });
});
