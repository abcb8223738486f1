/**
 * A fillable PDF as a form designer makes it (pdf-lib): text fields `Customer.Name` and `Customer.City`
 * (pre-filled "Delft"), check box `Agree` (direct /AP /N state dictionary), radio group `Plan` (Basic, Premium; export
 * values in /Opt, states named 0 and 1), a read-only `Office`, and an unsigned signature field `Signature1`.
 */
import { PDFDocument, PDFString } from '../../src/pdf/pdf-lib.js';

export async function fillablePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const form = doc.getForm();
  form.createTextField('Customer.Name').addToPage(page, { x: 50, y: 700, width: 200, height: 20 });
  const city = form.createTextField('Customer.City');
  city.setText('Delft');
  city.addToPage(page, { x: 50, y: 670, width: 200, height: 20 });
  form.createCheckBox('Agree').addToPage(page, { x: 50, y: 640, width: 12, height: 12 });
  const plan = form.createRadioGroup('Plan');
  plan.addOptionToPage('Basic', page, { x: 50, y: 610, width: 12, height: 12 });
  plan.addOptionToPage('Premium', page, { x: 80, y: 610, width: 12, height: 12 });
  const locked = form.createTextField('Office');
  locked.addToPage(page, { x: 50, y: 580, width: 100, height: 20 });
  locked.enableReadOnly();
  // pdf-lib has no API for a signature field: a bare /FT /Sig widget.
  const sig = doc.context.obj({ FT: 'Sig', T: PDFString.of('Signature1'), Type: 'Annot', Subtype: 'Widget', Rect: [300, 100, 440, 170], F: 4, P: page.ref });
  const sigRef = doc.context.register(sig);
  page.node.addAnnot(sigRef);
  form.acroForm.addField(sigRef);
  return doc.save({ useObjectStreams: false });
}

