/**
 * verifyPdf on documents signed and sealed by paraph's own signPdf/sealPdf: three sequential signers plus a seal,
 * B-T with the fake TSA, and tampering of signPdf output (byte flip, pdf-lib rewrite, content change in an
 * incremental update). Every valid file is also checked with pdfsig, openssl cms and qpdf.
 */
import { PDFDocument, PDFName, PDFRef, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { openPdfForUpdate, writeIncrementalUpdate } from '../../src/pdf/incremental.js';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { opensslCmsVerify, pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { writeSection } from './verify-helpers.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const minutes = (n: number): Date => new Date(NOW.getTime() + n * 60_000);

const fx = usePadesFixture({ tsaAt: NOW });
let original: Uint8Array;

beforeAll(async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < 2; i++) doc.addPage([595, 842]).drawText(`Contract page ${i + 1}: the buyer pays 100 EUR.`, { x: 50, y: 700, size: 12, font });
  original = await doc.save();
});

async function signOnce(pdf: Uint8Array, withTsa = false): Promise<Uint8Array> {
  const { bytes } = await signPdf(pdf, {
    signer: fx.pki.signers.p256.signer,
    signingTime: NOW,
    placement: { pageNumber: 1, left: 50, top: 100, width: 140, height: 70 },
    ...(withTsa ? { timestamper: fx.tsa.timestamper() } : {}),
  });
  return bytes;
}

async function expectIndependentlyValid(pdf: Uint8Array, count: number): Promise<void> {
  const pdfsig = await pdfsigCheck(pdf);
  expect(pdfsig.signatures.map((s) => s.valid)).toEqual(Array(count).fill(true));
  for (let i = 0; i < count; i++) expect((await opensslCmsVerify(pdf, i, fx.pki.rootPem)).ok).toBe(true);
  expect((await qpdfCheck(pdf)).ok).toBe(true);
}

describe('verifyPdf on signPdf/sealPdf output', () => {
  it('accepts three sequential signers and a seal; the first three are partial with only allowed changes after them', async () => {
    let pdf = original;
    const signers = [fx.pki.signers.rsa, fx.pki.signers.rsaPss, fx.pki.signers.p256];
    for (const [i, s] of signers.entries()) {
      pdf = (
        await signPdf(pdf, {
          signer: s.signer,
          signingTime: minutes(i),
          placement: { pageNumber: 1 + (i % 2), left: 50 + 150 * i, top: 100, width: 140, height: 70 },
          appearance: { name: `Signer ${i + 1}` },
        })
      ).bytes;
    }
    pdf = (await sealPdf(pdf, { signer: fx.pki.seal.signer, signingTime: minutes(10), organizationName: 'Acme B.V.' })).bytes;

    const report = await verifyPdf(pdf, { trustRoots: [fx.pki.rootDer], now: minutes(20) });
    expect(report.problems).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.revisions).toBe(5);
    expect(report.signatures.map((s) => [s.coveredRevision, s.coversWholeDocument, s.valid, s.modifications.ok])).toEqual([
      [1, false, true, true],
      [2, false, true, true],
      [3, false, true, true],
      [4, true, true, true],
    ]);
    expect(report.signatures.map((s) => s.signatureAlgorithm)).toEqual(['RSASSA-PKCS1-v1_5', 'RSA-PSS', 'ECDSA', 'RSASSA-PKCS1-v1_5']);
    expect(report.signatures[0]?.modifications.laterRevisions).toBe(3);
    expect(report.signatures.every((s) => s.signingCertificateOk === true && s.level === 'B-B')).toBe(true);
    expect(report.signatures[3]?.signer?.subject).toMatch(/organizationIdentifier|O=/);

    const pdfsig = await pdfsigCheck(pdf);
    expect(pdfsig.signatures.map((s) => [s.valid, s.totalDocumentSigned])).toEqual([
      [true, false],
      [true, false],
      [true, false],
      [true, true],
    ]);
    await expectIndependentlyValid(pdf, 4);
  });

  it('accepts signatures that fill signature fields prepared in the original document', async () => {
    const prepared = writeSection(
      undefined,
      [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R 6 0 R] >> >>' },
        { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
        { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Annots [5 0 R 6 0 R] >>' },
        { num: 4, body: '<< /Length 0 >>\nstream\n\nendstream' },
        { num: 5, body: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Signer1) /Rect [50 50 190 120] /P 3 0 R /F 4 >>' },
        { num: 6, body: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Signer2) /Rect [250 50 390 120] /P 3 0 R /F 4 >>' },
      ],
      1,
      7,
    );
    const first = (await signPdf(prepared, { signer: fx.pki.signers.rsa.signer, signingTime: NOW, field: 'Signer1' })).bytes;
    const second = (await signPdf(first, { signer: fx.pki.signers.p256.signer, signingTime: minutes(1), field: 'Signer2' })).bytes;
    const report = await verifyPdf(second, { trustRoots: [fx.pki.rootDer], now: NOW });
    expect(report.problems).toEqual([]);
    expect(report.signatures.map((s) => [s.fieldName, s.valid, s.modifications.ok])).toEqual([
      ['Signer1', true, true],
      ['Signer2', true, true],
    ]);
    expect(report.signatures[0]?.modifications.allowed.join('\n')).toMatch(/signature field .*Signer2.* signed/);
    await expectIndependentlyValid(second, 2);
  });

  it('reports B-T with a valid time-stamp from the fake TSA', async () => {
    const pdf = await signOnce(original, true);
    const report = await verifyPdf(pdf, { trustRoots: [fx.pki.rootPem] });
    expect(report.valid).toBe(true);
    const [sig] = report.signatures;
    expect(sig?.level).toBe('B-T');
    expect(sig?.timestamp).toMatchObject({ valid: true, chainOk: true, chainReason: 'trusted' });
    expect(sig?.timestamp?.time?.toISOString()).toBe(NOW.toISOString());
    expect(sig?.timestamp?.tsa).toMatch(/TSA|Time/i);
    // The time-stamp's time is the validation time, so no warning about unchecked validity.
    expect(sig?.warnings).toEqual([]);
    await expectIndependentlyValid(pdf, 1);
  });

  it('warns when the claimed signing time /M is later than the signature time-stamp', async () => {
    const { bytes } = await signPdf(original, { signer: fx.pki.signers.p256.signer, signingTime: minutes(60), timestamper: fx.tsa.timestamper() });
    const report = await verifyPdf(bytes, { trustRoots: [fx.pki.rootPem] });
    expect(report.valid).toBe(true);
    expect(report.signatures[0]?.warnings.join(' ')).toMatch(/is after the time-stamp/);
  });

  it('reports an untrusted root as chainOk false while digest and signature hold', async () => {
    const pdf = await signOnce(original);
    const report = await verifyPdf(pdf, { trustRoots: [fx.pki.signers.rsa.certDer], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]).toMatchObject({ digestOk: true, signatureOk: true, chainOk: false });
  });

  it('detects a flipped byte in signPdf output', async () => {
    const pdf = Buffer.from(await signOnce(original));
    const at = pdf.indexOf(Buffer.from('/MediaBox'));
    pdf[at + 1] = 'm'.charCodeAt(0);
    const report = await verifyPdf(pdf, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.signatures[0]?.digestOk).toBe(false);
    expect(report.valid).toBe(false);
  });

  it('detects a full rewrite of signPdf output by pdf-lib save()', async () => {
    const signed = await signOnce(original);
    const rewritten = await (await PDFDocument.load(signed)).save();
    const report = await verifyPdf(rewritten, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures).toHaveLength(1);
    expect(report.signatures[0]?.valid).toBe(false);
  });

  it('detects an incremental update that changes page content after signing', async () => {
    const signed = await signOnce(original);
    const session = await openPdfForUpdate(signed);
    const page = session.doc.getPage(0);
    const font = await session.doc.embedFont(StandardFonts.Helvetica);
    page.drawText('the buyer pays 900 EUR', { x: 50, y: 650, size: 12, font });
    session.markModified(page.ref);
    const contents = page.node.get(PDFName.of('Contents'));
    if (contents instanceof PDFRef) session.markModified(contents);
    const changed = writeIncrementalUpdate(session).bytes;
    const report = await verifyPdf(changed, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.valid).toBe(false);
    const [sig] = report.signatures;
    expect(sig?.digestOk).toBe(true);
    expect(sig?.modifications.ok).toBe(false);
    expect(sig?.modifications.disallowed.join('\n')).toMatch(/Contents|Resources|page content/);
    expect((await pdfsigCheck(changed)).signatures[0]?.valid).toBe(true);
  });
});
