import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFBool, PDFDict, PDFDocument, PDFName, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { placeFields } from '../../src/pdf/place-fields.js';
import type { FieldPlacement } from '../../src/pdf/resolve-locations.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const T0 = new Date(TEST_NOW);
const ORG = 'Paraph Test B.V.';
const fx = usePadesFixture({ tsaAt: T0 });
let base: Uint8Array;

beforeAll(async () => {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595, 842]).drawText('Contract', { x: 50, y: 780, size: 14, font });
  base = await doc.save({ useObjectStreams: false });
});

function sealField(fieldKey: string, top: number): FieldPlacement {
  return { field: `org.${fieldKey}`, formSet: 'org', fieldKey, type: 'Seal', signerIds: [], pageNumber: 1, left: 300, top, width: 200, height: 80 };
}

/** Number of dark pixels (at 72 dpi, reader coordinates) inside a box of page 1. */
function ink(pdf: Uint8Array, box: { left: number; top: number; width: number; height: number }): number {
  const dir = mkdtempSync(join(tmpdir(), 'paraph-seal-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', ['-gray', '-r', '72', '-f', '1', '-l', '1', '-singlefile', join(dir, 'in.pdf'), join(dir, 'out')]);
    const pgm = readFileSync(join(dir, 'out.pgm'));
    const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'))!;
    const width = Number(header[1]);
    let count = 0;
    for (let y = box.top; y < box.top + box.height; y++) {
      for (let x = box.left; x < box.left + box.width; x++) if ((pgm[header[0].length + y * width + x] ?? 255) < 160) count++;
    }
    return count;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('sealPdf', () => {
  it('seals invisibly when the document has no seal field', async () => {
    const { bytes, fieldName } = await sealPdf(base, { signer: fx.pki.seal.signer, signingTime: T0, organizationName: ORG });
    expect(fieldName).toBe('Seal1');
    const report = await checkSignedPdf(bytes, fx.pki.rootPem);
    expect(report.pdfsig.map((s) => s.validation), report.details).toEqual(['Signature is Valid.']);
    expect(report.openssl).toEqual([true]);
    expect(report.qpdf).toBe(true);
    expect(Buffer.from(bytes).toString('latin1')).toContain('/Rect [ 0 0 0 0 ]');
  });

  it('fills the placed Seal field and shows the organization and "Sealed" in it', async () => {
    const placed = await placeFields(base, [sealField('Stamp', 600)]);
    const before = ink(placed.bytes, { left: 302, top: 602, width: 196, height: 76 });
    const { bytes, fieldName } = await sealPdf(placed.bytes, { signer: fx.pki.seal.signer, signingTime: T0, organizationName: ORG });
    expect(fieldName).toBe('org.Stamp');
    const report = await checkSignedPdf(bytes, fx.pki.rootPem);
    expect(report.pdfsig.map((s) => s.validation), report.details).toEqual(['Signature is Valid.']);
    expect(report.openssl).toEqual([true]);
    expect(report.qpdf).toBe(true);
    // The unsigned placeholder label is replaced by the seal's appearance, which has more ink (border + two lines).
    const after = ink(bytes, { left: 302, top: 602, width: 196, height: 76 });
    expect(after).toBeGreaterThan(before);
    expect(after).toBeGreaterThan(300);
  });

  it('prints the word before the date in the language it is given ("Verzegeld" on a Dutch document), "Sealed" by default', async () => {
    const placed = await placeFields(base, [sealField('Stamp', 600)]);
    const shown = async (options: { sealedLabel?: string }) => {
      const { bytes } = await sealPdf(placed.bytes, { signer: fx.pki.seal.signer, signingTime: T0, organizationName: ORG, ...options });
      const dir = mkdtempSync(join(tmpdir(), 'paraph-seal-'));
      try {
        writeFileSync(join(dir, 'in.pdf'), bytes);
        // MuPDF draws the widget's appearance, so its text is what a reader sees in the box.
        return execFileSync('mutool', ['draw', '-q', '-F', 'txt', '-o', '-', join(dir, 'in.pdf'), '1'], { encoding: 'utf8' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const dutch = await shown({ sealedLabel: 'Verzegeld' });
    expect(dutch).toContain('Verzegeld 2026-11-21 10:00 UTC');
    expect(dutch).not.toContain('Sealed');
    expect(await shown({})).toContain('Sealed 2026-11-21 10:00 UTC');
  });

  it('uses the named field when given one, and is the last signature after the signers', async () => {
    const placed = await placeFields(base, [
      { field: 'sig.Signer1', formSet: 'sig', fieldKey: 'Signer1', type: 'Signature', signerIds: ['Signer1'], pageNumber: 1, left: 50, top: 600, width: 200, height: 80 },
      sealField('Stamp', 600),
      sealField('Other', 700),
    ]);
    const signed = await signPdf(placed.bytes, { signer: fx.pki.signers.p256.signer, signingTime: T0, field: 'sig.Signer1' });
    const sealed = await sealPdf(signed.bytes, { signer: fx.pki.seal.signer, signingTime: T0, organizationName: ORG, field: 'org.Other' });
    expect(sealed.fieldName).toBe('org.Other');
    const report = await checkSignedPdf(sealed.bytes, fx.pki.rootPem);
    expect(report.pdfsig.map((s) => s.validation), report.details).toEqual(['Signature is Valid.', 'Signature is Valid.']);
    expect(report.pdfsig.map((s) => s.totalDocumentSigned)).toEqual([false, true]);
    expect(report.openssl).toEqual([true, true]);
    expect(report.qpdf).toBe(true);
  });

  it('carries a signature time-stamp when given a time-stamper', async () => {
    const before = fx.tsa.requests.length;
    const { bytes } = await sealPdf(base, { signer: fx.pki.seal.signer, signingTime: T0, organizationName: ORG, timestamper: fx.tsa.timestamper() });
    expect(fx.tsa.requests).toHaveLength(before + 1);
    const report = await checkSignedPdf(bytes, fx.pki.rootPem);
    expect(report.pdfsig.map((s) => s.validation), report.details).toEqual(['Signature is Valid.']);
    expect(report.openssl).toEqual([true]);
    expect(report.qpdf).toBe(true);
  });

  it('needs an organization name and refuses a document certified with P=1', async () => {
    await expect(sealPdf(base, { signer: fx.pki.seal.signer, signingTime: T0, organizationName: ' ' })).rejects.toMatchObject({
      code: 'ORGANIZATION_NAME_MISSING',
    });
    const certified = await signPdf(base, { signer: fx.pki.signers.rsa.signer, signingTime: T0, docMdp: 1 });
    const report = await checkSignedPdf(certified.bytes, fx.pki.rootPem);
    expect([report.pdfsig[0]?.validation, report.openssl, report.qpdf], report.details).toEqual(['Signature is Valid.', [true], true]);
    await expect(sealPdf(certified.bytes, { signer: fx.pki.seal.signer, signingTime: T0, organizationName: ORG })).rejects.toMatchObject({
      code: 'DOCMDP_NO_CHANGES',
    });
  });
});

describe('sealing a form', () => {
  it('turns /NeedAppearances off, so viewers do not redraw a sealed document', async () => {
    const doc = await PDFDocument.load(base);
    doc.catalog.set(PDFName.of('AcroForm'), doc.context.obj({ Fields: [], NeedAppearances: true }));
    const { bytes } = await sealPdf(await doc.save({ useObjectStreams: false }), { signer: fx.pki.seal.signer, signingTime: T0, organizationName: ORG });
    const report = await checkSignedPdf(bytes, fx.pki.rootPem);
    expect(report.pdfsig.map((s) => s.validation), report.details).toEqual(['Signature is Valid.']);
    expect(report.qpdf, report.details).toBe(true);
    const form = (await PDFDocument.load(bytes)).catalog.lookup(PDFName.of('AcroForm'), PDFDict);
    expect(form.get(PDFName.of('NeedAppearances'))).toBe(PDFBool.False);
  });
});
