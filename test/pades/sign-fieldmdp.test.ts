/**
 * signPdf on a signature field with a /Lock dictionary writes the FieldMDP reference the lock asks for (and a
 * DocMDP certification when the lock carries /P on the first signature), so that verifyPdf refuses a later change
 * to a locked field and accepts one to a field the lock leaves free.
 */
import { describe, expect, it } from 'vitest';
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFDocument } from '../../src/pdf/pdf-lib.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { pdfsigCheck } from '../helpers/external-tools.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { stream, writeSection, type ObjectSpec } from './verify-helpers.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const fx = usePadesFixture({ tsaAt: NOW });

const textField = (num: number, name: string, y: number, value?: string): ObjectSpec => ({
  num,
  body: `<< /Type /Annot /Subtype /Widget /FT /Tx /T (${name}) /Rect [20 ${y} 200 ${y + 20}] /P 3 0 R /F 4 /DA (/F1 12 Tf 0 g)${value ? ` /V (${value})` : ''} >>`,
});

/** A one-page form: the signature field Sig1 with `lock`, and the text fields Amount and Note. */
function form(lock: string): Uint8Array {
  return writeSection(
    undefined,
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R 7 0 R 8 0 R] /DR << /Font << /F1 6 0 R >> >> >> >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> /Annots [5 0 R 7 0 R 8 0 R] >>' },
      { num: 4, body: stream('BT /F1 14 Tf 20 150 Td (I agree to pay 100 EUR.) Tj ET') },
      { num: 5, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig1) /Rect [0 0 0 0] /P 3 0 R /F 132 /Lock ${lock} >>` },
      { num: 6, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
      textField(7, 'Amount', 60),
      textField(8, 'Note', 100),
    ],
    1,
    9,
  );
}

/** Fills text field `num` in a hand-written incremental update. */
function fill(pdf: Uint8Array, num: number, name: string, y: number): Uint8Array {
  return writeSection(pdf, [textField(num, name, y, '1,000,000 EUR')], 1, 30);
}

async function signedReferences(pdf: Uint8Array): Promise<PDFDict[]> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const acro = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict);
  const sig1 = acro.lookup(PDFName.of('Fields'), PDFArray).lookup(0, PDFDict);
  const value = sig1.lookup(PDFName.of('V'), PDFDict);
  return value.lookup(PDFName.of('Reference'), PDFArray).asArray().map((r) => doc.context.lookup(r, PDFDict));
}

describe('signPdf on a field with /Lock', () => {
  it('writes the FieldMDP reference of an /Include lock; a later change to the locked field is refused, to another field accepted', async () => {
    const { bytes } = await signPdf(form('<< /Type /SigFieldLock /Action /Include /Fields [(Amount)] >>'), { signer: fx.pki.signers.rsa.signer, signingTime: NOW, field: 'Sig1' });
    const [reference] = await signedReferences(bytes);
    expect(reference?.get(PDFName.of('TransformMethod'))).toBe(PDFName.of('FieldMDP'));
    const params = reference?.lookup(PDFName.of('TransformParams'), PDFDict);
    expect(params?.get(PDFName.of('Action'))).toBe(PDFName.of('Include'));
    expect(params?.lookup(PDFName.of('Fields'), PDFArray).size()).toBe(1);
    expect((await pdfsigCheck(bytes)).signatures[0]?.valid).toBe(true);

    const locked = await verifyPdf(fill(bytes, 7, 'Amount', 60), { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(locked.valid).toBe(false);
    expect(locked.signatures[0]?.modifications.disallowed.join('\n')).toMatch(/\[fieldmdp-lock\] .*Amount is locked by the signature's FieldMDP reference/);

    const free = await verifyPdf(fill(bytes, 8, 'Note', 100), { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(free.signatures[0]?.modifications.disallowed).toEqual([]);
    expect(free.valid).toBe(true);
  });

  it('certifies with the /P of the lock on the first signature (DocMDP where the lock asks for it)', async () => {
    const { bytes } = await signPdf(form('<< /Type /SigFieldLock /Action /All /P 1 >>'), { signer: fx.pki.signers.rsa.signer, signingTime: NOW, field: 'Sig1' });
    const methods = (await signedReferences(bytes)).map((r) => r.get(PDFName.of('TransformMethod')));
    expect(methods).toEqual([PDFName.of('DocMDP'), PDFName.of('FieldMDP')]);
    const docMdp = (await signedReferences(bytes))[0]!.lookup(PDFName.of('TransformParams'), PDFDict).get(PDFName.of('P'));
    expect(docMdp instanceof PDFNumber ? docMdp.asNumber() : undefined).toBe(1);
    const report = await verifyPdf(fill(bytes, 8, 'Note', 100), { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.signatures[0]?.certification).toBe(1);
    const refused = report.signatures[0]?.modifications.disallowed.join('\n');
    expect(refused).toMatch(/\[docmdp-p1\]/);
    expect(refused).toMatch(/\[fieldmdp-lock\] .*Note is locked .*\/Action \/All/);
  });
});
