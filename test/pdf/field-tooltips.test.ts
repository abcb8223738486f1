/**
 * A FileMetaData field's Label and Tooltip become the placed field's alternate name (/TU, the tooltip readers show),
 * in the document's language: read back with our reader, with qpdf's JSON and with pdf.js.
 */
import { execFileSync } from 'node:child_process';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { placeFieldsFromMetadata } from '../../src/pdf/place-fields-from-metadata.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFString } from '../../src/pdf/pdf-lib.js';
import { basePdf } from '../helpers/base-pdfs.js';
import { qpdfCheck } from '../helpers/external-tools.js';
import { scratchFiles } from '../helpers/scratch-files.js';

const METADATA = {
  Signers: { Signer1: { FormSets: ['f'] } },
  FormSets: {
    f: {
      Place: {
        Type: 'SingleLine',
        Label: { nl: 'Plaats', de: 'Ort', en: 'Place' },
        Tooltip: { nl: 'Waar u tekent', en: 'Where you sign' },
        Location: { PageNumber: 1, Left: 72, Top: 200 },
      },
      Start: { Type: 'Date', Label: { 'nl-NL': 'Startdatum', 'en-US': 'Start date' }, Location: { PageNumber: 1, Left: 72, Top: 240 } },
      Agree: { Type: 'Check', Tooltip: 'I agree to the terms', Location: { PageNumber: 1, Left: 72, Top: 280 } },
      Sign: { Type: 'Signature', Label: { de: 'Unterschrift des Mieters' }, Location: { PageNumber: 1, Left: 72, Top: 320 } },
      Plain: { Type: 'Number', Location: { PageNumber: 1, Left: 72, Top: 420 } },
    },
  },
};

const scratch = scratchFiles('tooltips');

/** Field name → /TU, read with our reader (pdf-lib through src/pdf). */
async function alternateNames(pdf: Uint8Array): Promise<Record<string, string>> {
  const doc = await loadPdf(pdf);
  const out: Record<string, string> = {};
  const walk = (ref: unknown, prefix: string): void => {
    const dict = doc.context.lookup(ref as never);
    if (!(dict instanceof PDFDict)) return;
    const t = dict.lookup(PDFName.of('T'));
    const name = t instanceof PDFString || t instanceof PDFHexString ? `${prefix}${t.decodeText()}` : prefix.slice(0, -1);
    const tu = dict.lookup(PDFName.of('TU'));
    if (tu instanceof PDFString || tu instanceof PDFHexString) out[name] = tu.decodeText();
    const kids = dict.lookup(PDFName.of('Kids'));
    if (kids instanceof PDFArray) for (const kid of kids.asArray()) walk(kid, `${name}.`);
  };
  const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
  for (const ref of fields.asArray()) walk(ref, '');
  return out;
}

describe("a field's Label and Tooltip in the PDF (/TU)", () => {
  it('writes Label — Tooltip in the language asked for, keeps the defaults of fields without them', async () => {
    const { bytes } = await placeFieldsFromMetadata(await basePdf(1, false), METADATA, { language: 'nl-NL' });
    expect(await alternateNames(bytes)).toEqual({
      'f.Place': 'Plaats — Waar u tekent',
      'f.Start': 'Startdatum (YYYY-MM-DD)',
      'f.Agree': 'I agree to the terms',
      // Only German given: the one text there is, whatever the language.
      'f.Sign': 'Unterschrift des Mieters',
      'f.Plain': 'Number',
    });
    expect((await qpdfCheck(bytes)).ok).toBe(true);
  });

  it('falls back to English without a language', async () => {
    const { bytes } = await placeFieldsFromMetadata(await basePdf(1, false), METADATA);
    const names = await alternateNames(bytes);
    expect(names['f.Place']).toBe('Place — Where you sign');
    expect(names['f.Start']).toBe('Start date (YYYY-MM-DD)');
  });

  it('is what qpdf --json and pdf.js read as the alternate name of each field', async () => {
    const { bytes } = await placeFieldsFromMetadata(await basePdf(1, false), METADATA, { language: 'de-DE' });
    const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=acroform', scratch.file(bytes)], { encoding: 'utf8' })) as {
      acroform: { fields: { fullname: string; alternativename: string }[] };
    };
    const byQpdf = Object.fromEntries(json.acroform.fields.map((f) => [f.fullname, f.alternativename]));
    expect(byQpdf['f.Place']).toBe('Ort — Where you sign');
    expect(byQpdf['f.Sign']).toBe('Unterschrift des Mieters');

    const doc = await getDocument({ data: bytes.slice(), isEvalSupported: false, verbosity: 0 }).promise;
    try {
      const annotations = (await (await doc.getPage(1)).getAnnotations()) as { fieldName: string; alternativeText?: string }[];
      const byPdfjs = Object.fromEntries(annotations.map((a) => [a.fieldName, a.alternativeText]));
      expect(byPdfjs['f.Place']).toBe('Ort — Where you sign');
      expect(byPdfjs['f.Agree']).toBe('I agree to the terms');
    } finally {
      await doc.destroy();
    }
  });
});
