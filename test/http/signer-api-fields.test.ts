/**
 * Over HTTP: the .NET v5 client's own "complex" FileMetaData (Radio, numbers,
 * booleans) byte for byte, then two signers filling it with plain keys, a check box's export value and radio export
 * values; a fillable PDF (Signhost's approach 1) whose own fields the signer fills by their PDF names and whose own
 * signature field they sign; each signer's Context lists every file. Final PDFs checked with pdfsig, openssl and qpdf,
 * and read back with pdf-lib.
 */
import { PDFDocument, PDFName, PDFRef } from '../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPdf } from '../../src/pades/verify.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { call, makePdf } from '../helpers/service-harness.js';
import { DOTNET_V5_COMPLEX_METADATA, DOTNET_V5_COMPLEX_PAGES, PYTHON_FILLABLE_METADATA } from '../pdf/file-metadata-clients.fixtures.js';
import { fillablePdf } from '../pdf/fields-fillable-fixture.js';
import { SCRIBBLE_DATA_URL, startSignerService, type SignerService } from '../service/signer/signer-fixture.js';

let s: SignerService;
let base: string;
beforeAll(async () => {
  s = await startSignerService();
  base = s.service.url;
});
afterAll(async () => {
  await s.service.dispose();
});

const signerCall = (token: string, method: string, path: string, json?: unknown) =>
  call(base, method, `/api/signer/${token}${path}`, { auth: false, ...(json !== undefined ? { json } : {}) });

async function put(id: string, fileId: string, options: Parameters<typeof call>[3]): Promise<number> {
  const answer = await call(base, 'PUT', `/api/transaction/${id}/file/${encodeURIComponent(fileId)}`, options);
  expect(answer.status, answer.text).toBeLessThan(300);
  return answer.status;
}

async function tokens(id: string): Promise<string[]> {
  const got = await call(base, 'GET', `/api/transaction/${id}`);
  return (got.json.Signers as { SignUrl: string }[]).map((x) => x.SignUrl.split('/sign/')[1] as string);
}

async function scribble(token: string, name: string): Promise<void> {
  const answer = await signerCall(token, 'POST', '/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: name });
  expect(answer.status, answer.text).toBe(200);
}

async function caPem(): Promise<string> {
  return (await call(base, 'GET', '/api/ca/signing.pem', { auth: false })).text + (await call(base, 'GET', '/api/ca/seal.pem', { auth: false })).text;
}

describe('signer API: the fields real clients describe', () => {
  it(".NET v5's complex metadata: Radio groups, numbers and booleans pre-fill; plain keys, export values; Context per file", async () => {
    const created = await call(base, 'POST', '/api/transaction', {
      json: { Seal: true, Reference: 'MetadataTest', Signers: [{ SendSignRequest: false, Id: 'signer1', Email: 'test@example.com' }, { SendSignRequest: false, Id: 'signer2', Email: 'test2@example.com' }] },
    });
    expect(created.status, created.text).toBe(200);
    const id = created.json.Id as string;
    const fileId = 'test-document.pdf';
    expect(await put(id, fileId, { body: DOTNET_V5_COMPLEX_METADATA, headers: { 'content-type': 'application/json' } })).toBe(202);
    expect(await put(id, fileId, { body: await makePdf(DOTNET_V5_COMPLEX_PAGES), headers: { 'content-type': 'application/pdf' } })).toBe(201);
    expect(await put(id, 'annex.pdf', { body: await makePdf([['Annex']]), headers: { 'content-type': 'application/pdf' } })).toBe(201);
    const start = await call(base, 'PUT', `/api/transaction/${id}/start`);
    expect(start.status, start.text).toBe(204);
    const [one, two] = (await tokens(id)) as [string, string];

    const session = await signerCall(one, 'GET', '');
    const doc = (session.json.Documents as { FileId: string; DisplayName: string; Fields: { Key: string; Name: string; Type: string; Value?: string; Options?: { Value: string }[] }[] }[])[0]!;
    expect(doc.DisplayName).toBe('Complex Test Document');
    expect(doc.Fields.map((f) => `${f.Key}:${f.Type}`)).toEqual([
      'SealField:Seal',
      'SignatureField:Signature',
      'CheckField:Check',
      'FormSet2:Radio',
      'SingleLineFieldString:SingleLine',
      'NumberFieldInteger:Number',
      'NumberFieldDecimal:Number',
      'DateField:Date',
    ]);
    const radio = doc.Fields.find((f) => f.Type === 'Radio')!;
    expect(radio).toMatchObject({ Name: 'FormSet2.Radio group', Options: [{ Value: 'Option A', Key: 'RadioFieldString' }] });
    expect(doc.Fields.find((f) => f.Key === 'NumberFieldDecimal')?.Value).toBe('123.45');

    await scribble(one, 'Test Signer');
    const bad = await signerCall(one, 'POST', '/sign', { Fields: { [fileId]: { FormSet2: 'Option B', CheckField: 'yes' } } });
    expect(bad.status).toBe(400);
    expect(bad.json.Message).toBe(
      `Fields.${fileId}.CheckField: a check box takes true, false or its export value "I agree to the terms".; Fields.${fileId}.FormSet2: choose one of "Option A".`,
    );
    const signed1 = await signerCall(one, 'POST', '/sign', {
      Fields: { [fileId]: { CheckField: 'I agree to the terms', FormSet2: 'Option A', NumberFieldInteger: 43, 'FormSet2.DateField': '2025-12-01' }, 'annex.pdf': null },
    });
    expect(signed1.status, signed1.text).toBe(200);

    await scribble(two, 'Second Signer');
    const keys2 = ((await signerCall(two, 'GET', '')).json.Documents[0].Fields as { Key: string }[]).map((f) => f.Key);
    expect(keys2).toEqual(expect.arrayContaining(['FormSet2', 'FormSet3', 'CheckFieldTrue', 'CheckFieldFalse', 'SingleLineFieldNull', 'Signature']));
    const signed2 = await signerCall(two, 'POST', '/sign', {
      Fields: { [fileId]: { CheckFieldFalse: true, CheckFieldTrue: false, SingleLineFieldNull: 'Optional text', FormSet3: 1 } },
    });
    expect(signed2.status, signed2.text).toBe(200);
    expect(signed2.json.TransactionStatus).toBe(30);

    const tx = (await call(base, 'GET', `/api/transaction/${id}`)).json;
    expect(tx.Signers[0].Context).toEqual({
      [fileId]: {
        CheckField: true,
        FormSet2: 'Option A',
        SingleLineFieldString: 'John Doe',
        NumberFieldInteger: 43,
        NumberFieldDecimal: 123.45,
        DateField: '2025-12-01',
      },
      'annex.pdf': {},
    });
    expect(tx.Signers[1].Context).toEqual({
      [fileId]: {
        FormSet2: null,
        SingleLineFieldString: 'John Doe',
        NumberFieldInteger: 42,
        NumberFieldDecimal: 123.45,
        DateField: '2025-11-28',
        CheckFieldTrue: false,
        CheckFieldFalse: true,
        SingleLineFieldNull: 'Optional text',
        FormSet3: '1',
      },
      'annex.pdf': {},
    });

    const pdf = (await call(base, 'GET', `/api/transaction/${id}/file/${fileId}`)).bytes;
    const report = await checkSignedPdf(pdf, await caPem());
    expect(report.pdfsig.map((x) => x.valid), report.details).toEqual([true, true, true]);
    expect(report.openssl).toEqual([true, true, true]);
    expect(report.qpdf, report.details).toBe(true);
    // signer2 filled check boxes, a radio group and a text field after signer1 signed: paraph's own verifier explains
    // every one of those changes. (What it refuses are the SetParaph initials stamped for signer2: not a form fill.)
    const verdict = await verifyPdf(pdf, { trustRoots: [await caPem()], now: s.service.clock.now() });
    const first = verdict.signatures[0]!;
    expect(first.modifications.allowed).toEqual(expect.arrayContaining([expect.stringMatching(/form field dictionary \(Radio group\) \d+ 0 R filled/)]));
    expect(first.modifications.disallowed.filter((d) => !d.includes('a /Stamp annotation was added'))).toEqual([]);
    expect(verdict.signatures.slice(1).map((x) => x.valid)).toEqual([true, true]);
    const form = (await PDFDocument.load(pdf)).getForm();
    expect(form.getRadioGroup('FormSet2.Radio group').getSelected()).toBe('Option A');
    expect(form.getRadioGroup('FormSet3.Radio group').getSelected()).toBe('1');
    expect(form.getCheckBox('FormSet1.CheckField').isChecked()).toBe(true);
    expect(form.getCheckBox('FormSet3.CheckFieldTrue').isChecked()).toBe(false);
    expect(form.getCheckBox('FormSet3.CheckFieldFalse').isChecked()).toBe(true);
    expect(form.getTextField('FormSet2.NumberFieldInteger').getText()).toBe('43');
    expect(form.getTextField('FormSet2.NumberFieldDecimal').getText()).toBe('123.45');
    expect(form.getTextField('FormSet2.SingleLineFieldString').getText()).toBe('John Doe');
    expect(form.getTextField('FormSet3.SingleLineFieldNull').getText()).toBe('Optional text');
  });

  it('a fillable PDF: FormSets naming the fileId give the signer the PDF\'s own fields, filled and signed in its own signature field', async () => {
    const created = await call(base, 'POST', '/api/transaction', { json: { Seal: true, Signers: [{ SendSignRequest: false, Email: 'zoe@example.com' }] } });
    const id = created.json.Id as string;
    const fileId = 'Contract.pdf';
    expect(await put(id, fileId, { body: PYTHON_FILLABLE_METADATA, headers: { 'content-type': 'application/json' } })).toBe(202);
    const refused = await call(base, 'PUT', `/api/transaction/${id}/file/Other.pdf`, { body: PYTHON_FILLABLE_METADATA, headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(400);
    expect(refused.json.Message).toContain('Signers.Signer1.FormSets[0]: "Contract.pdf" does not name a key of FormSets');
    expect(await put(id, fileId, { body: await fillablePdf(), headers: { 'content-type': 'application/pdf' } })).toBe(201);
    expect((await call(base, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const [token] = (await tokens(id)) as [string];

    const fields = (await signerCall(token, 'GET', '')).json.Documents[0].Fields as { Key: string; Type: string; Value?: string; Required: boolean; Options?: { Value: string }[] }[];
    expect(fields.map((f) => [f.Key, f.Type, f.Value ?? null, f.Required])).toEqual([
      ['Customer.Name', 'SingleLine', null, false],
      ['Customer.City', 'SingleLine', 'Delft', false],
      ['Agree', 'Check', 'Yes', false],
      ['Plan', 'Radio', null, false],
      ['Signature1', 'Signature', null, false],
    ]);
    expect(fields[3]?.Options?.map((o) => o.Value)).toEqual(['Basic', 'Premium']);

    await scribble(token, 'Zoë Janssen');
    const signed = await signerCall(token, 'POST', '/sign', { Fields: { [fileId]: { 'Customer.Name': 'Zoë Janssen', Agree: 'Yes', Plan: 'Premium' } } });
    expect(signed.status, signed.text).toBe(200);
    expect(signed.json.TransactionStatus).toBe(30);
    const tx = (await call(base, 'GET', `/api/transaction/${id}`)).json;
    expect(tx.Signers[0].Context).toEqual({ [fileId]: { 'Customer.Name': 'Zoë Janssen', 'Customer.City': 'Delft', Agree: true, Plan: 'Premium' } });

    const pdf = (await call(base, 'GET', `/api/transaction/${id}/file/${fileId}`)).bytes;
    const report = await checkSignedPdf(pdf, await caPem());
    expect(report.pdfsig.map((x) => x.valid), report.details).toEqual([true, true]);
    expect(report.openssl).toEqual([true, true]);
    expect(report.qpdf, report.details).toBe(true);
    expect((await verifyPdf(pdf, { trustRoots: [await caPem()], now: s.service.clock.now() })).valid).toBe(true);
    const form = (await PDFDocument.load(pdf)).getForm();
    expect(form.getTextField('Customer.Name').getText()).toBe('Zoë Janssen');
    expect(form.getCheckBox('Agree').isChecked()).toBe(true);
    expect(form.getRadioGroup('Plan').getSelected()).toBe('Premium');
    // The signer's signature is in the PDF's own field: no default field was added.
    expect(form.getFields().map((f) => f.getName())).not.toContain('Signer1.Signature');
    expect(form.getSignature('Signature1').acroField.dict.get(PDFName.of('V'))).toBeInstanceOf(PDFRef);
  });
});
