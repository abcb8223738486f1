/**
 * Incremental updates of a document made before anything signed it are its history, not changes "after signing":
 * an unsigned PDF whose title and XMP metadata were edited in earlier updates, then placed and sealed, verifies
 * without such a warning; the same edit after the seal still warns.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { openPdfForUpdate, writeIncrementalUpdate } from '../../src/pdf/incremental.js';
import { PDFDocument, PDFName, PDFRef, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { placeFields } from '../../src/pdf/place-fields.js';
import { attackFile } from './attack-corpus.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const fx = usePadesFixture();
let edited: Uint8Array;

const xmp = (title: string): string =>
  `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
  `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">${title}</rdf:li></rdf:Alt></dc:title>` +
  `</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;

/** One incremental update that retitles the document in /Info and in its XMP metadata. */
async function retitle(pdf: Uint8Array, title: string): Promise<Uint8Array> {
  const session = await openPdfForUpdate(pdf);
  const { doc } = session;
  doc.setTitle(title);
  session.markModified(doc.context.trailerInfo.Info as PDFRef);
  const metadata = doc.catalog.get(PDFName.of('Metadata')) as PDFRef;
  doc.context.assign(metadata, doc.context.stream(xmp(title), { Type: 'Metadata', Subtype: 'XML' }));
  session.markModified(metadata);
  return writeIncrementalUpdate(session).bytes;
}

beforeAll(async () => {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle('Draft 1');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595, 842]).drawText('Contract', { x: 50, y: 780, size: 14, font });
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(doc.context.stream(xmp('Draft 1'), { Type: 'Metadata', Subtype: 'XML' })));
  edited = await retitle(await retitle(await doc.save({ useObjectStreams: false }), 'Draft 2'), 'Contract');
});

describe('changes before the first signature', () => {
  it('are history: an unsigned document edited in two earlier updates, placed and sealed, verifies without "after signing"', async () => {
    const placed = await placeFields(edited, [
      { field: 'org.Stamp', formSet: 'org', fieldKey: 'Stamp', type: 'Seal', signerIds: [], pageNumber: 1, left: 300, top: 600, width: 200, height: 80 },
    ]);
    const { bytes } = await sealPdf(placed.bytes, { signer: fx.pki.seal.signer, signingTime: NOW });
    const report = await verifyPdf(bytes, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.revisions).toBe(5); // original, two edits, the field, the seal
    expect(report.signatures.map((s) => s.coveredRevision)).toEqual([4]);
    expect(report.valid, JSON.stringify(report.signatures[0]?.problems)).toBe(true);
    expect(report.warnings).toEqual([]);
    const tools = await checkSignedPdf(bytes, fx.pki.rootPem);
    expect(tools.pdfsig.map((s) => s.validation), tools.details).toEqual(['Signature is Valid.']);
    expect(tools.qpdf, tools.details).toBe(true);

    // The same edit after the seal is a change after signing, and says so.
    const later = await verifyPdf(await retitle(bytes, 'Changed'), { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(later.warnings.filter((w) => w.includes('after signing'))).toEqual([
      expect.stringMatching(/^revision 5: the document information dictionary \d+ 0 R was changed after signing \(\/Title\)$/),
      expect.stringMatching(/^revision 5: the XMP metadata stream \d+ 0 R was changed after signing$/),
    ]);
  });

  it('leave the attack corpus warning of a title changed after a certification signature', async () => {
    const report = await verifyPdf(attackFile('p1-info-title.pdf'), { trustRoots: [attackFile('root.pem')], now: NOW });
    expect(report.warnings).toEqual([expect.stringMatching(/^revision 1: the document information dictionary \d+ 0 R was changed after signing \(\/Title\)$/)]);
  });
});
