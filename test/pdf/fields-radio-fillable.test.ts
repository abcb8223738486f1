/**
 * Radio groups, pre-set Check and Number values (docs/design/fields.md#values), fillable PDFs' own fields
 * (docs/design/fields.md#fillable-pdfs), check box state dictionaries written direct and left direct by filling, and the default
 * signature field that must not merge with a metadata field of the same name. Every produced PDF is read back by
 * pdf-lib and pdf.js and checked by qpdf; signed ones by pdfsig and openssl too.
 */
import { readFile } from 'node:fs/promises';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { PlacementError } from '../../src/errors.js';
import { readFormFields } from '../../src/pdf/form-fields.js';
import { placeFieldsFromMetadata } from '../../src/pdf/place-fields-from-metadata.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { fillFormFields } from '../../src/service/signer/fill-form-fields.js';
import { checkSignedPdf, qpdfCheck } from '../helpers/external-tools.js';
import { testPki } from '../../src/testing/test-pki.js';
import { fillablePdf } from './fields-fillable-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

async function blankPdf(pages = 1): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) doc.addPage([595, 842]).drawText(`Page ${i + 1}`, { x: 50, y: 800, size: 12, font });
  return doc.save();
}

function normalStates(doc: PDFDocument, widget: PDFDict): { indirect: boolean; states: string[] } {
  const ap = widget.lookup(PDFName.of('AP'), PDFDict);
  const raw = ap.get(PDFName.of('N'));
  const normal = doc.context.lookup(raw, PDFDict);
  return { indirect: raw instanceof PDFRef, states: normal.keys().map((k) => k.decodeText()) };
}

async function pdfjsButtons(pdf: Uint8Array): Promise<{ fieldName: string; radioButton?: boolean; checkBox?: boolean; buttonValue?: string; fieldValue?: string; exportValue?: string }[]> {
  const task = getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 });
  const doc = await task.promise;
  try {
    const page = await doc.getPage(1);
    const annotations = (await page.getAnnotations()) as { subtype: string; fieldType?: string }[];
    return annotations.filter((a) => a.subtype === 'Widget' && a.fieldType === 'Btn') as never;
  } finally {
    await task.destroy();
  }
}

const metadata = {
  Signers: { Signer1: { FormSets: ['choice', 'mixed'] } },
  FormSets: {
    choice: {
      A: { Type: 'Radio', Value: 'Option A', Location: { PageNumber: 1, Left: 50, Top: 100 } },
      B: { Type: 'Radio', Value: true, Location: { PageNumber: 1, Left: 80, Top: 100 } },
      C: { Type: 'Radio', Value: 3, Location: { PageNumber: 1, Left: 110, Top: 100 } },
    },
    mixed: {
      agree: { Type: 'Check', Value: true, Location: { PageNumber: 1, Left: 50, Top: 150 } },
      decline: { Type: 'Check', Value: false, Location: { PageNumber: 1, Left: 80, Top: 150 } },
      amount: { Type: 'Number', Value: 123.45, Location: { PageNumber: 1, Left: 50, Top: 200 } },
      one: { Type: 'Radio', Location: { PageNumber: 1, Left: 50, Top: 250 } },
      two: { Type: 'Radio', Value: 2, Location: { PageNumber: 1, Left: 80, Top: 250 } },
      sig: { Type: 'Signature', Location: { PageNumber: 1, Left: 300, Top: 300 } },
    },
  },
};

describe('radio groups and typed values', () => {
  it('places a radio group per formset (named <formset>, or <formset>.Radio group beside other fields), pre-selects and pre-fills', async () => {
    const pdf = await blankPdf();
    const { bytes, placements } = await placeFieldsFromMetadata(pdf, metadata);
    expect(placements.filter((p) => p.type === 'Radio').map((p) => [p.field, p.fieldKey, p.value, p.checked ?? false])).toEqual([
      ['choice', 'A', 'Option A', false],
      ['choice', 'B', 'B', true],
      ['choice', 'C', '3', false],
      ['mixed.Radio group', 'one', 'one', false],
      ['mixed.Radio group', 'two', '2', false],
    ]);
    expect((await qpdfCheck(bytes)).ok).toBe(true);

    const doc = await PDFDocument.load(bytes);
    const form = doc.getForm();
    const choice = form.getRadioGroup('choice');
    expect(choice.getOptions()).toEqual(['Option A', 'B', '3']);
    expect(choice.getSelected()).toBe('B');
    const mixedRadio = form.getRadioGroup('mixed.Radio group');
    expect(mixedRadio.getOptions()).toEqual(['one', '2']);
    expect(mixedRadio.getSelected()).toBeUndefined();
    expect(form.getCheckBox('mixed.agree').isChecked()).toBe(true);
    expect(form.getCheckBox('mixed.decline').isChecked()).toBe(false);
    expect(form.getTextField('mixed.amount').getText()).toBe('123.45');

    // Every check box and radio button has its /AP /N state dictionary directly in the widget: poppler takes an
    // indirect /N for the appearance stream itself and draws nothing.
    for (const field of [form.getCheckBox('mixed.agree'), form.getCheckBox('mixed.decline'), choice, mixedRadio]) {
      for (const widget of field.acroField.getWidgets()) expect(normalStates(doc, widget.dict).indirect).toBe(false);
    }

    const buttons = await pdfjsButtons(bytes);
    const radios = buttons.filter((b) => b.radioButton === true);
    expect(radios.map((r) => [r.fieldName, r.buttonValue])).toEqual([
      ['choice', 'Option A'],
      ['choice', 'B'],
      ['choice', '3'],
      ['mixed.Radio group', 'one'],
      ['mixed.Radio group', '2'],
    ]);
    expect(radios.filter((r) => r.fieldValue === r.buttonValue).map((r) => r.buttonValue)).toEqual(['B']);
  });

  it('fills a radio choice and check boxes, then signs: valid in pdfsig, openssl and qpdf, and the state dictionaries stay direct', async () => {
    const pki = await testPki();
    const { bytes } = await placeFieldsFromMetadata(await blankPdf(), metadata);
    const filled = await fillFormFields(bytes, [
      { name: 'choice', type: 'Radio', value: '3' },
      { name: 'mixed.Radio group', type: 'Radio', value: 'one' },
      { name: 'mixed.agree', type: 'Check', value: false, exportValue: 'Yes' },
      { name: 'mixed.decline', type: 'Check', value: true, exportValue: 'Yes' },
      { name: 'mixed.amount', type: 'Number', value: '42' },
    ]);
    const signed = (await signPdf(filled, { signer: pki.signers.p256.signer, signingTime: new Date(TEST_NOW), field: 'mixed.sig' })).bytes;
    const report = await checkSignedPdf(signed, pki.rootPem);
    expect(report.pdfsig.map((s) => s.valid), report.details).toEqual([true]);
    expect(report.openssl).toEqual([true]);
    expect(report.qpdf, report.details).toBe(true);

    const doc = await PDFDocument.load(signed);
    const form = doc.getForm();
    expect(form.getRadioGroup('choice').getSelected()).toBe('3');
    expect(form.getRadioGroup('mixed.Radio group').getSelected()).toBe('one');
    expect(form.getCheckBox('mixed.agree').isChecked()).toBe(false);
    expect(form.getCheckBox('mixed.decline').isChecked()).toBe(true);
    expect(form.getTextField('mixed.amount').getText()).toBe('42');
    for (const name of ['mixed.decline', 'mixed.agree']) {
      for (const widget of form.getCheckBox(name).acroField.getWidgets()) expect(normalStates(doc, widget.dict).indirect).toBe(false);
    }
    for (const widget of form.getRadioGroup('choice').acroField.getWidgets()) expect(normalStates(doc, widget.dict).indirect).toBe(false);
  });

  it("refuses a default signature field that would merge with a metadata field of the same name", async () => {
    const clash = {
      Signers: { Signer2: { FormSets: ['Signer1'] } },
      FormSets: { Signer1: { Signature: { Type: 'Signature', Location: { PageNumber: 1, Left: 50, Top: 50 } } } },
    };
    const error = await placeFieldsFromMetadata(await blankPdf(), clash, { signerIds: ['Signer1', 'Signer2'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlacementError);
    expect((error as PlacementError).code).toBe('FIELD_NAME_TAKEN');
    expect((error as PlacementError).message).toBe(
      'Signer Signer1 has no Signature field in this document, so it gets the default signature field "Signer1.Signature"; but field Signature of formset Signer1 already has that name. Give the signer a Signature field in FileMetaData, or rename the formset.',
    );
  });
});

describe('fillable PDFs: the PDF\'s own fields', () => {
  it('reads text, check box, radio and unsigned signature fields by their fully qualified names, leaving read-only ones out', async () => {
    const fields = readFormFields(await PDFDocument.load(await fillablePdf()));
    expect(fields.map((f) => [f.name, f.type, f.value ?? null, f.widgets.length])).toEqual([
      ['Customer.Name', 'SingleLine', null, 1],
      ['Customer.City', 'SingleLine', 'Delft', 1],
      ['Agree', 'Check', null, 1],
      ['Plan', 'Radio', null, 2],
      ['Signature1', 'Signature', null, 1],
    ]);
    const [name] = fields;
    // pdf-lib widens a widget's /Rect by its border width.
    expect(name?.widgets[0]).toMatchObject({ pageNumber: 1, left: 49.5, top: 842 - 720.5, width: 201, height: 21 });
    // pdf-lib names the states 0 and 1 and lists the export values in /Opt.
    expect(fields[3]?.widgets.map((w) => w.onState)).toEqual(['Basic', 'Premium']);
  });

  it('assigns them to the signer whose FormSets name the fileId, places nothing for them, and fills them before the signature', async () => {
    const pki = await testPki();
    const pdf = await fillablePdf();
    const meta = { Signers: { Signer1: { FormSets: ['Contract.pdf'] } } };
    await expect(placeFieldsFromMetadata(pdf, meta)).rejects.toThrow('"Contract.pdf" does not name a key of FormSets');
    const { bytes, placements } = await placeFieldsFromMetadata(pdf, meta, { fileId: 'Contract.pdf', signerIds: ['Signer1'] });
    expect(Buffer.from(bytes).equals(Buffer.from(pdf))).toBe(true); // nothing to place: no default field either
    expect(placements.every((p) => p.existing === true && p.signerIds.join() === 'Signer1')).toBe(true);
    expect([...new Set(placements.map((p) => `${p.field}:${p.type}`))]).toEqual([
      'Customer.Name:SingleLine',
      'Customer.City:SingleLine',
      'Agree:Check',
      'Plan:Radio',
      'Signature1:Signature',
    ]);

    const filled = await fillFormFields(bytes, [
      { name: 'Customer.Name', type: 'SingleLine', value: 'Zoë Janssen' },
      { name: 'Agree', type: 'Check', value: true, exportValue: 'Yes' },
      { name: 'Plan', type: 'Radio', value: 'Premium' },
    ]);
    const signed = (await signPdf(filled, { signer: pki.signers.p256.signer, signingTime: new Date(TEST_NOW), field: 'Signature1' })).bytes;
    expect(Buffer.from(signed.subarray(0, pdf.length)).equals(Buffer.from(pdf))).toBe(true);
    const report = await checkSignedPdf(signed, pki.rootPem);
    expect(report.pdfsig.map((s) => s.valid), report.details).toEqual([true]);
    expect(report.pdfsig[0]?.totalDocumentSigned).toBe(true);
    expect(report.openssl).toEqual([true]);
    expect(report.qpdf, report.details).toBe(true);

    const doc = await PDFDocument.load(signed);
    const form = doc.getForm();
    expect(form.getTextField('Customer.Name').getText()).toBe('Zoë Janssen');
    expect(form.getTextField('Customer.City').getText()).toBe('Delft');
    expect(form.getCheckBox('Agree').isChecked()).toBe(true);
    expect(form.getRadioGroup('Plan').getSelected()).toBe('Premium');
    // Filling set /AS and /V only: the check box's direct /N state dictionary stays direct.
    expect(normalStates(doc, form.getCheckBox('Agree').acroField.getWidgets()[0]!.dict)).toEqual({ indirect: false, states: ['Yes', 'Off'] });
    // The text field got a new appearance showing the value.
    const nameWidget = form.getTextField('Customer.Name').acroField.getWidgets()[0]!;
    const ap = nameWidget.dict.lookup(PDFName.of('AP'), PDFDict).get(PDFName.of('N'));
    expect(ap).toBeInstanceOf(PDFRef);
    expect(doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray).size()).toBe(5); // Customer, Agree, Plan, Office, Signature1: nothing added
  });
});

describe('fillable PDFs from a public corpus (pdf.js test/pdfs, made with Adobe LiveCycle Designer)', () => {
  it('fills the check boxes and radio groups of annotation-button-widget.pdf by their PDF names, then signs: valid everywhere', async () => {
    const pki = await testPki();
    const pdf = new Uint8Array(await readFile(new URL('../../fixtures/pdfjs/annotation-button-widget.pdf', import.meta.url)));
    const meta = { Signers: { Signer1: { FormSets: ['form.pdf'] } } };
    const { bytes, placements } = await placeFieldsFromMetadata(pdf, meta, { fileId: 'form.pdf', signerIds: ['Signer1'] });
    const prefix = 'formulier1[0].#subform[0].';
    expect([...new Set(placements.filter((p) => p.existing === true).map((p) => `${p.field}:${p.type}`))]).toEqual([
      `${prefix}Selectievakje1[0]:Check`,
      `${prefix}Selectievakje3[0]:Check`,
      `${prefix}LijstKeuzerondje[0]:Radio`,
      `${prefix}LijstKeuzerondje[1]:Radio`,
    ]);
    // No unsigned signature field in the form: the signer gets the default one, placed in an update.
    expect(placements.filter((p) => p.existing !== true).map((p) => p.field)).toEqual(['Signer1.Signature']);

    const filled = await fillFormFields(bytes, [
      { name: `${prefix}Selectievakje1[0]`, type: 'Check', value: true, exportValue: 'Yes' },
      { name: `${prefix}Selectievakje3[0]`, type: 'Check', value: false, exportValue: 'Yes' },
      { name: `${prefix}LijstKeuzerondje[0]`, type: 'Radio', value: '1' },
      { name: `${prefix}LijstKeuzerondje[1]`, type: 'Radio', value: '2' },
    ]);
    const signed = (await signPdf(filled, { signer: pki.signers.p256.signer, signingTime: new Date(TEST_NOW), field: 'Signer1.Signature' })).bytes;
    expect(Buffer.from(signed.subarray(0, pdf.length)).equals(Buffer.from(pdf))).toBe(true);
    const report = await checkSignedPdf(signed, pki.rootPem);
    expect(report.pdfsig.map((s) => s.valid), report.details).toEqual([true]);
    expect(report.openssl).toEqual([true]);
    expect(report.qpdf, report.details).toBe(true);

    const form = (await PDFDocument.load(signed)).getForm();
    expect(form.getCheckBox(`${prefix}Selectievakje1[0]`).isChecked()).toBe(true);
    expect(form.getCheckBox(`${prefix}Selectievakje3[0]`).isChecked()).toBe(false);
    const buttons = await pdfjsButtons(signed);
    const on = buttons.filter((b) => (b.checkBox === true && b.fieldValue === b.exportValue) || (b.radioButton === true && b.fieldValue === b.buttonValue));
    // pdf.js reports the radios' state names: this form's /Opt maps states 0 and 1 to export values 1 and 2.
    expect(on.map((b) => `${b.fieldName}=${b.exportValue ?? b.buttonValue}`)).toEqual([
      `${prefix}Selectievakje1[0]=1`,
      `${prefix}LijstKeuzerondje[0]=0`,
      `${prefix}LijstKeuzerondje[1]=1`,
    ]);
  });

  it('reads the text fields of annotation-text-widget.pdf with their values', async () => {
    const doc = await PDFDocument.load(await readFile(new URL('../../fixtures/pdfjs/annotation-text-widget.pdf', import.meta.url)), { updateMetadata: false });
    const fields = readFormFields(doc);
    expect(fields).toHaveLength(6);
    expect(fields.every((f) => f.type === 'SingleLine' && f.widgets.length === 1 && f.widgets[0]!.pageNumber === 1)).toBe(true);
    expect(fields[4]).toMatchObject({ name: 'formulier1[0].#subform[0].Tekstveld6[0]', value: 'abcdefghijklmnopqrstuvwxyz' });
  });
});
