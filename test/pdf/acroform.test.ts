import { describe, expect, it } from 'vitest';
import { PDFDict, PDFDocument, PDFHexString, PDFName, type PDFRef } from '../../src/pdf/pdf-lib.js';
import { findTerminalField, formFieldNodes, isSignatureDictionary, openAcroForm } from '../../src/pdf/acroform.js';
import { openPdfForUpdate, writeIncrementalUpdate } from '../../src/pdf/incremental.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';

/** A one-page document whose form is built by `build` from its context. */
async function formDocument(build: (doc: PDFDocument, add: (fields: Record<string, unknown>) => PDFRef) => PDFRef[]): Promise<PDFDocument> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  const add = (fields: Record<string, unknown>): PDFRef => doc.context.register(doc.context.obj(fields as never));
  const roots = build(doc, add);
  doc.catalog.set(PDFName.of('AcroForm'), doc.context.obj({ Fields: roots }));
  return doc;
}

describe('the field tree', () => {
  it('names fields by their ancestors and inherits /FT, /Ff and /V from them; widgets are kids without /T', async () => {
    const doc = await formDocument((d, add) => {
      const parent = add({ T: PDFHexString.fromText('form'), FT: 'Tx', Ff: 2, V: PDFHexString.fromText('inherited') });
      const widgetA = add({ Type: 'Annot', Subtype: 'Widget', Rect: [0, 0, 10, 10] });
      const widgetB = add({ Type: 'Annot', Subtype: 'Widget', Rect: [20, 0, 30, 10] });
      const child = add({ T: PDFHexString.fromText('name'), Parent: parent, Kids: [widgetA, widgetB] });
      const signature = add({ T: PDFHexString.fromText('sig'), FT: 'Sig', Subtype: 'Widget', Rect: [0, 0, 0, 0] });
      d.context.lookup(parent, PDFDict).set(PDFName.of('Kids'), d.context.obj([child]));
      return [parent, signature];
    });
    const nodes = formFieldNodes(doc);
    expect(nodes.map((n) => [n.name, n.type, n.flags, n.terminal, n.widgets.length])).toEqual([
      ['form', 'Tx', 2, false, 0],
      ['form.name', 'Tx', 2, true, 2],
      ['sig', 'Sig', 0, true, 1],
    ]);
    expect(findTerminalField(doc, 'form.name')?.value?.toString()).toBe(PDFHexString.fromText('inherited').toString());
    expect(findTerminalField(doc, 'form')).toBeUndefined();
  });

  it('visits each field once and stops on a tree whose /Kids point back at an ancestor', async () => {
    const doc = await formDocument((d, add) => {
      const root = add({ T: PDFHexString.fromText('loop'), FT: 'Tx' });
      const kid = add({ T: PDFHexString.fromText('kid'), Kids: [root] });
      d.context.lookup(root, PDFDict).set(PDFName.of('Kids'), d.context.obj([kid, root]));
      return [root, root];
    });
    expect(formFieldNodes(doc).map((n) => n.name)).toEqual(['loop', 'loop.kid']);
  });

  it('stays bounded on a chain deeper than any real form', async () => {
    const doc = await formDocument((_d, add) => {
      let node = add({ T: PDFHexString.fromText('leaf'), FT: 'Tx' });
      for (let i = 0; i < 200; i++) node = add({ T: PDFHexString.fromText(`n${i}`), Kids: [node] });
      return [node];
    });
    expect(formFieldNodes(doc).length).toBe(33);
  });
});

describe('the /AcroForm of an update', () => {
  it('is created with its /Fields when missing, and written by the update', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([200, 200]);
    const session = await openPdfForUpdate(await doc.save());
    const { fields } = openAcroForm(session);
    fields.push(session.doc.context.register(session.doc.context.obj({ T: PDFHexString.fromText('added'), FT: 'Tx' })));
    const reread = await loadPdf(writeIncrementalUpdate(session).bytes);
    expect(formFieldNodes(reread).map((n) => n.name)).toEqual(['added']);
  });
});

describe('isSignatureDictionary', () => {
  it('needs a /ByteRange array and a string /Contents', async () => {
    const doc = await PDFDocument.create();
    const dict = (fields: Record<string, unknown>) => doc.context.obj(fields as never) as unknown as PDFDict;
    expect(isSignatureDictionary(dict({ ByteRange: [0, 1, 2, 3], Contents: PDFHexString.of('00') }))).toBe(true);
    expect(isSignatureDictionary(dict({ ByteRange: [0, 1, 2, 3] }))).toBe(false);
    expect(isSignatureDictionary(dict({ Contents: PDFHexString.of('00') }))).toBe(false);
    expect(isSignatureDictionary(undefined)).toBe(false);
  });
});
