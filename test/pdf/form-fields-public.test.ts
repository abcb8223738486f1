/**
 * readFormFields in paraph's public API takes the PDF's bytes: a document parsed by the caller's own copy of pdf-lib
 * (`import 'pdf-lib'`) is made of other classes than paraph's build, and reading it used to find no form at all. The
 * internal form refuses such a document instead of answering with an empty list.
 */
import * as PdfLib from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { readFormFields as publicReadFormFields } from '../../src/index.js';
import { readFormFields } from '../../src/pdf/form-fields.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';

/** A one-page PDF with a filled text field and a checked check box, written by the npm package's own pdf-lib. */
async function formPdf(): Promise<Uint8Array> {
  const doc = await PdfLib.PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const form = doc.getForm();
  const city = form.createTextField('city');
  city.setText('Zwolle');
  city.addToPage(page, { x: 72, y: 700, width: 160, height: 20 });
  const agree = form.createCheckBox('agree');
  agree.addToPage(page, { x: 72, y: 650, width: 14, height: 14 });
  agree.check();
  return doc.save();
}

describe('readFormFields', () => {
  it('public: reads the fields and values from the bytes', async () => {
    const fields = await publicReadFormFields(await formPdf());
    expect(fields.map((f) => [f.name, f.type, f.value])).toEqual([
      ['city', 'SingleLine', 'Zwolle'],
      ['agree', 'Check', expect.any(String)],
    ]);
    expect(fields[0]!.widgets).toEqual([expect.objectContaining({ pageNumber: 1 })]);
    expect(fields[0]!.widgets[0]!.left).toBeCloseTo(72, -1);
  });

  it("internal: a document of paraph's pdf-lib is read; one parsed by another copy of pdf-lib is refused, not read as empty", async () => {
    const bytes = await formPdf();
    expect(readFormFields(await loadPdf(bytes)).map((f) => f.name)).toEqual(['city', 'agree']);
    const foreign = await PdfLib.PDFDocument.load(bytes);
    expect(() => readFormFields(foreign as never)).toThrow(/another copy of pdf-lib.*readPdfFormFields/);
  });
});
