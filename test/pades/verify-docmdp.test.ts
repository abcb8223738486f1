/**
 * verifyPdf on certified documents (DocMDP): a P=1 certification tolerates a /DSS update and a document
 * time-stamp; no level tolerates a new form field (P=2 allows filling the fields the document already has).
 */
import { PDFDocument, PDFName, PDFString, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendPageAnnotation, openPdfForUpdate, writeIncrementalUpdate } from '../../src/pdf/incremental.js';
import { digestPreparedSignature, embedSignature, prepareSignature } from '../../src/pades/prepare-signature.js';
import { prepareAcroFormForSignature } from '../../src/pades/signature-field.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { pdfsigCheck } from '../helpers/external-tools.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const fx = usePadesFixture({ tsaAt: NOW });
let original: Uint8Array;

beforeAll(async () => {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('Certified terms', { x: 50, y: 700, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
  original = await doc.save();
});

async function certified(permission: 1 | 2 | 3): Promise<Uint8Array> {
  return (await signPdf(original, { signer: fx.pki.signers.rsa.signer, signingTime: NOW, docMdp: permission })).bytes;
}

/** Adds an empty text field with a widget on page 1, in a new incremental update. */
async function addTextField(pdf: Uint8Array): Promise<Uint8Array> {
  const session = await openPdfForUpdate(pdf);
  const { context } = session.doc;
  const page = session.doc.getPage(0);
  const widget = context.register(
    context.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Tx', T: PDFString.of('Note'), Rect: [50, 50, 200, 70], P: page.ref, F: 4 }),
  );
  prepareAcroFormForSignature(session).fields.push(widget);
  appendPageAnnotation(session, page.ref, widget);
  return writeIncrementalUpdate(session).bytes;
}

async function addDss(pdf: Uint8Array): Promise<Uint8Array> {
  const session = await openPdfForUpdate(pdf);
  const { context, catalog } = session.doc;
  const crls = context.obj([context.register(context.flateStream(fx.pki.crls.intermediate))]);
  catalog.set(PDFName.of('DSS'), context.register(context.obj({ CRLs: crls })));
  session.markModified(context.trailerInfo.Root as never);
  return writeIncrementalUpdate(session).bytes;
}

async function addDocumentTimestamp(pdf: Uint8Array): Promise<Uint8Array> {
  const prepared = await prepareSignature(pdf, { type: 'doc-timestamp' });
  const token = await fx.tsa.timestamper()(digestPreparedSignature(prepared, 'SHA-256'), 'SHA-256');
  return embedSignature(prepared, token);
}

describe('verifyPdf on certified documents', () => {
  it('reports the certification and its permission', async () => {
    const report = await verifyPdf(await certified(1), { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.valid).toBe(true);
    expect(report.signatures[0]?.certification).toBe(1);
    expect((await pdfsigCheck(await certified(1))).signatures[0]?.valid).toBe(true);
  });

  it('accepts a /DSS update and a document time-stamp after a P=1 certification', async () => {
    const pdf = await addDocumentTimestamp(await addDss(await certified(1)));
    const report = await verifyPdf(pdf, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.problems).toEqual([]);
    expect(report.signatures.map((s) => [s.kind, s.certification, s.valid])).toEqual([
      ['signature', 1, true],
      ['document-timestamp', undefined, true],
    ]);
  });

  it('rejects a new form field after a P=1 and after a P=2 certification, naming the rule', async () => {
    for (const p of [1, 2] as const) {
      const report = await verifyPdf(await addTextField(await certified(p)), { trustRoots: [fx.pki.rootPem], now: NOW });
      expect(report.valid).toBe(false);
      expect(report.signatures[0]?.certification).toBe(p);
      expect(report.signatures[0]?.modifications.ok).toBe(false);
      expect(report.signatures[0]?.modifications.disallowed.join(' ')).toMatch(/revision 2: \[new-form-field\] .*form field Note/);
    }
  });
});
