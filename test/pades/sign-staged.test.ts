import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { PDFBool, PDFDict, PDFDocument, PDFName, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { SigningError } from '../../src/errors.js';
import { buildCmsSignature } from '../../src/pades/cms.js';
import { digestPreparedSignature, embedSignature, prepareSignature } from '../../src/pades/prepare-signature.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { placeFields } from '../../src/pdf/place-fields.js';
import { checkSignedPdf, extractSignatures } from '../helpers/external-tools.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const T0 = new Date(TEST_NOW);
const fx = usePadesFixture();
let base: Uint8Array;

beforeAll(async () => {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595, 842]).drawText('Contract', { x: 50, y: 780, size: 14, font });
  base = await doc.save({ useObjectStreams: false });
});

async function expectValid(pdf: Uint8Array, count: number): Promise<void> {
  const report = await checkSignedPdf(pdf, fx.pki.rootPem);
  expect(report.pdfsig.map((s) => s.validation), report.details).toEqual(Array(count).fill('Signature is Valid.'));
  expect(report.openssl, report.details).toEqual(Array(count).fill(true));
  expect(report.qpdf, report.details).toBe(true);
}

function latin1(bytes: Uint8Array, from: number, to: number): string {
  return Buffer.from(bytes.subarray(from, to)).toString('latin1');
}

describe('staged signing: prepare → digest → embed', () => {
  it('prepares a /ByteRange that covers the whole file except the /Contents hex string (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 64, max: 40_000 }),
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        async (contentsSize, reason, location) => {
          const prepared = await prepareSignature(base, { type: 'signature', signingTime: T0, contentsSize, reason, location });
          const [a, b, c, d] = prepared.byteRange;
          expect(a).toBe(0);
          expect(b).toBe(prepared.contentsOffset);
          expect(c).toBe(prepared.contentsOffset + prepared.contentsLength);
          expect(c + d).toBe(prepared.bytes.length);
          expect(prepared.contentsLength).toBe(contentsSize * 2 + 2);
          expect(prepared.bytes[b]).toBe(0x3c); // <
          expect(prepared.bytes[c - 1]).toBe(0x3e); // >
          expect(/^<0+>$/.test(latin1(prepared.bytes, b, c))).toBe(true);
          // The patched /ByteRange names exactly these numbers.
          const text = latin1(prepared.bytes, prepared.bytes.length - d, prepared.bytes.length);
          const before = latin1(prepared.bytes, Math.max(0, b - 200), b);
          const match = /\/ByteRange \[(\d+) (\d+) (\d+) (\d+) *\]/.exec(before + text);
          expect(match?.slice(1).map(Number)).toEqual([a, b, c, d]);
          // The digest is the hash of the two ranges, concatenated.
          const expected = createHash('sha256')
            .update(Buffer.concat([prepared.bytes.subarray(0, b), prepared.bytes.subarray(c, c + d)]))
            .digest();
          expect(Buffer.from(digestPreparedSignature(prepared, 'SHA-256')).equals(expected)).toBe(true);
          expect(prepared.bytes.subarray(0, base.length)).toEqual(base);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('lets the CMS be made elsewhere (a remote signer) between the stages', async () => {
    const prepared = await prepareSignature(base, { type: 'signature', signingTime: T0, reason: 'Remote' });
    const digest = digestPreparedSignature(prepared, 'SHA-384');
    const der = await buildCmsSignature({ signer: fx.pki.signers.p384.signer, contentDigest: digest, hash: 'SHA-384' });
    const before = prepared.bytes.slice();
    const signed = embedSignature(prepared, der);
    expect(Buffer.from(prepared.bytes).equals(Buffer.from(before))).toBe(true);
    expect(signed.length).toBe(prepared.bytes.length);
    const report = await checkSignedPdf(signed, fx.pki.rootPem);
    expect(report.pdfsig[0]?.validation, report.details).toBe('Signature is Valid.');
    expect(report.openssl).toEqual([true]);
    expect(report.qpdf).toBe(true);
    const [extracted] = await extractSignatures(signed);
    expect(Buffer.from(extracted!.cms).equals(Buffer.from(der))).toBe(true);
  });

  it('prepares a /DocTimeStamp dictionary with SubFilter ETSI.RFC3161 for document time-stamps', async () => {
    const prepared = await prepareSignature(base, { type: 'doc-timestamp' });
    const text = latin1(prepared.bytes, base.length, prepared.bytes.length);
    expect(text).toContain('/Type /DocTimeStamp');
    expect(text).toContain('/SubFilter /ETSI.RFC3161');
    expect(text).not.toContain('/M (');
    expect(prepared.fieldName).toBe('DocTimeStamp1');
  });
});

describe('AcroForm', () => {
  it('turns /NeedAppearances off, so viewers do not redraw a signed document', async () => {
    const doc = await PDFDocument.load(base);
    doc.catalog.set(PDFName.of('AcroForm'), doc.context.obj({ Fields: [], NeedAppearances: true }));
    const withFlag = await doc.save({ useObjectStreams: false });
    const { bytes } = await signPdf(withFlag, { signer: fx.pki.signers.p256.signer, signingTime: T0 });
    await expectValid(bytes, 1);
    const form = (await PDFDocument.load(bytes)).catalog.lookup(PDFName.of('AcroForm'), PDFDict);
    expect(form.get(PDFName.of('NeedAppearances'))).toBe(PDFBool.False);
    expect(form.get(PDFName.of('SigFlags'))?.toString()).toBe('3');
  });
});

describe('refusals', () => {
  it('PLACEHOLDER_TOO_SMALL when the CMS does not fit, and nothing is written', async () => {
    const prepared = await prepareSignature(base, { type: 'signature', signingTime: T0, contentsSize: 256 });
    const before = prepared.bytes.slice();
    const der = await buildCmsSignature({ signer: fx.pki.signers.rsa.signer, contentDigest: digestPreparedSignature(prepared, 'SHA-256') });
    let error: unknown;
    try {
      embedSignature(prepared, der);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SigningError);
    expect(error).toMatchObject({ code: 'PLACEHOLDER_TOO_SMALL', origin: 'input' });
    expect((error as Error).message).toContain(`${der.length} bytes`);
    expect((error as Error).message).toContain('holds 256');
    expect(Buffer.from(prepared.bytes).equals(Buffer.from(before))).toBe(true);
    await expect(signPdf(base, { signer: fx.pki.signers.rsa.signer, signingTime: T0, contentsSize: 256 })).rejects.toMatchObject({
      code: 'PLACEHOLDER_TOO_SMALL',
    });
  });

  it('refuses to sign a document certified with DocMDP P=1, but allows P=2', async () => {
    const certified = await signPdf(base, { signer: fx.pki.signers.p256.signer, signingTime: T0, docMdp: 1 });
    await expectValid(certified.bytes, 1);
    await expect(signPdf(certified.bytes, { signer: fx.pki.signers.rsa.signer, signingTime: T0 })).rejects.toMatchObject({
      code: 'DOCMDP_NO_CHANGES',
      message: expect.stringContaining('permission 1'),
    });

    const p2 = await signPdf(base, { signer: fx.pki.signers.p256.signer, signingTime: T0, docMdp: 2 });
    const second = await signPdf(p2.bytes, { signer: fx.pki.signers.rsa.signer, signingTime: T0 });
    await expectValid(second.bytes, 2);
    expect(Buffer.from(p2.bytes).toString('latin1')).toMatch(/\/TransformMethod \/DocMDP/);
  });

  it('certifies only a first signature', async () => {
    const signed = await signPdf(base, { signer: fx.pki.signers.p256.signer, signingTime: T0 });
    await expectValid(signed.bytes, 1);
    await expect(signPdf(signed.bytes, { signer: fx.pki.signers.rsa.signer, signingTime: T0, docMdp: 2 })).rejects.toMatchObject({
      code: 'CERTIFICATION_NOT_FIRST',
    });
  });

  it('FIELD_NOT_FOUND for an unknown field name, listing the unsigned signature fields', async () => {
    const placed = await placeFields(base, [
      { field: 'sig.Signer1', formSet: 'sig', fieldKey: 'Signer1', type: 'Signature', signerIds: ['Signer1'], pageNumber: 1, left: 50, top: 100, width: 140, height: 70 },
    ]);
    await expect(signPdf(placed.bytes, { signer: fx.pki.signers.p256.signer, signingTime: T0, field: 'nope.Nobody' })).rejects.toMatchObject({
      code: 'FIELD_NOT_FOUND',
      message: expect.stringMatching(/"nope\.Nobody".*"sig\.Signer1"/),
    });
    await expect(signPdf(base, { signer: fx.pki.signers.p256.signer, signingTime: T0, field: 'nope.Nobody' })).rejects.toMatchObject({
      code: 'FIELD_NOT_FOUND',
      message: expect.stringContaining('no unsigned signature fields'),
    });
  });

  it('FIELD_ALREADY_SIGNED when the named field holds a signature', async () => {
    const first = await signPdf(base, { signer: fx.pki.signers.p256.signer, signingTime: T0, field: 'Approval', placement: { pageNumber: 1, left: 10, top: 10, width: 100, height: 50 } });
    await expectValid(first.bytes, 1);
    await expect(signPdf(first.bytes, { signer: fx.pki.signers.rsa.signer, signingTime: T0, field: 'Approval' })).rejects.toMatchObject({
      code: 'FIELD_ALREADY_SIGNED',
    });
  });

  it('refuses to put a signature into a field of another type, or to create a field whose name has a period', async () => {
    const placed = await placeFields(base, [
      { field: 'form.Name', formSet: 'form', fieldKey: 'Name', type: 'SingleLine', signerIds: [], pageNumber: 1, left: 50, top: 100, width: 140, height: 18 },
    ]);
    const placement = { pageNumber: 1, left: 10, top: 300, width: 100, height: 50 };
    await expect(signPdf(placed.bytes, { signer: fx.pki.signers.p256.signer, signingTime: T0, field: 'form.Name', placement })).rejects.toMatchObject({
      code: 'FIELD_NOT_A_SIGNATURE_FIELD',
    });
    await expect(signPdf(placed.bytes, { signer: fx.pki.signers.p256.signer, signingTime: T0, field: 'form' })).rejects.toMatchObject({
      code: 'FIELD_NOT_A_SIGNATURE_FIELD',
    });
    await expect(signPdf(base, { signer: fx.pki.signers.p256.signer, signingTime: T0, field: 'a.b', placement })).rejects.toMatchObject({
      code: 'FIELD_NAME_INVALID',
    });
  });

  it('rejects an invalid signing time and a placement outside the document', async () => {
    await expect(signPdf(base, { signer: fx.pki.signers.p256.signer, signingTime: new Date(Number.NaN) })).rejects.toMatchObject({ code: 'SIGNING_TIME_INVALID' });
    await expect(
      signPdf(base, { signer: fx.pki.signers.p256.signer, signingTime: T0, placement: { pageNumber: 2, left: 0, top: 0, width: 100, height: 50 } }),
    ).rejects.toMatchObject({ code: 'PAGE_OUT_OF_RANGE' });
  });
});
