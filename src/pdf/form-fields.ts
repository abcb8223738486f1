/**
 * The form fields a PDF already has (ISO 32000-2 §12.7.4: the field tree under /AcroForm /Fields, with inheritable
 * /FT, /Ff and /V), for Signhost's fillable PDFs ("approach 1", docs/design/fields.md#fillable-pdfs): text fields,
 * check boxes, radio groups and unsigned signature fields a signer may fill, with their widgets. Read-only fields, push
 * buttons, choice, password and file-select fields and signed signature fields are left out: nobody fills them. Pure:
 * reads a parsed document, changes nothing.
 */
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef, type PDFDocument, type PDFObject } from './pdf-lib.js';
import { acroFormOf, nameText, resolverOf, textOf, walkFieldTree } from './acroform.js';
import { loadPdf } from './load-pdf.js';
import { readPageGeometry } from './page-boxes.js';
import { userRectToReader, type ReaderRect } from './page-geometry.js';

/** A widget of an existing field, in reader coordinates. */
export interface ExistingWidget extends ReaderRect {
  pageNumber: number;
  /**
   * Check box or radio button: its export value, the name of its on-state (the key of /AP /N other than Off), or the
   * widget's entry of the field's /Opt when it has one (ISO 32000-2 §12.7.5.2.4: then the state names are indices).
   */
  onState?: string;
}

/** A fillable field of the PDF. */
export interface ExistingField {
  /** Fully qualified name: the partial names of the field and its ancestors joined with periods. */
  name: string;
  type: 'Signature' | 'Check' | 'Radio' | 'SingleLine';
  /** /Ff Required (bit 2). */
  required: boolean;
  /** Text: the current value; check box or radio group: the selected on-state. */
  value?: string;
  widgets: ExistingWidget[];
}

const FF_READ_ONLY = 1 << 0;
const FF_REQUIRED = 1 << 1;
const FF_PASSWORD = 1 << 13;
const FF_FILE_SELECT = 1 << 20;
const FF_RADIO = 1 << 15;
const FF_PUSH_BUTTON = 1 << 16;

/**
 * Every field of the PDF `pdf` a signer can fill, in field-tree order (paraph's public form of {@link readFormFields}:
 * it takes bytes, as the rest of the API does). Throws PdfParseError when the bytes are no PDF paraph can read.
 *
 * @example
 * const fields = await readPdfFormFields(bytes); // [{ name: 'Name', type: 'SingleLine', widgets: [...] }, ...]
 */
export async function readPdfFormFields(pdf: Uint8Array): Promise<ExistingField[]> {
  return readFormFields(await loadPdf(pdf));
}

/**
 * Every field of `doc` a signer can fill, in field-tree order. Widgets on no page of the document are left out.
 * `doc` must come from paraph's own pdf-lib build (load-pdf.ts): the objects of another copy of pdf-lib (`import
 * 'pdf-lib'`) fail every `instanceof` here, and the form would look empty, so such a document is refused.
 *
 * @example
 * const fields = readFormFields(await loadPdf(bytes)); // [{ name: 'Name', type: 'SingleLine', widgets: [...] }, ...]
 */
export function readFormFields(doc: PDFDocument): ExistingField[] {
  if (!(doc.catalog instanceof PDFDict)) {
    throw new TypeError('readFormFields: the document was loaded by another copy of pdf-lib than paraph\'s; pass its bytes to readPdfFormFields instead');
  }
  const fieldList = acroFormOf(doc)?.get(PDFName.of('Fields'));
  if (fieldList === undefined) return [];
  const pages = doc.getPages();
  const pageOf = new Map<string, number>();
  pages.forEach((page, i) => pageOf.set(page.ref.toString(), i + 1));
  // Widgets without /P: find their page through the pages' /Annots.
  const annotPage = new Map<string, number>();
  pages.forEach((page, i) => {
    const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
    for (let j = 0; annots !== undefined && j < annots.size(); j++) {
      const ref = annots.get(j);
      if (ref instanceof PDFRef) annotPage.set(ref.toString(), i + 1);
    }
  });
  const geometries = pages.map((page, i) => readPageGeometry(page, i + 1));
  const out: ExistingField[] = [];

  const widgetOf = (ref: PDFObject, dict: PDFDict): ExistingWidget | undefined => {
    const pageRef = dict.get(PDFName.of('P'));
    const pageNumber = (pageRef instanceof PDFRef ? pageOf.get(pageRef.toString()) : undefined) ?? (ref instanceof PDFRef ? annotPage.get(ref.toString()) : undefined);
    const rect = dict.lookupMaybe(PDFName.of('Rect'), PDFArray);
    if (pageNumber === undefined || rect === undefined || rect.size() !== 4) return undefined;
    const n = [0, 1, 2, 3].map((i) => rect.lookupMaybe(i, PDFNumber)?.asNumber() ?? Number.NaN) as [number, number, number, number];
    if (n.some((v) => !Number.isFinite(v))) return undefined;
    const user = { x: Math.min(n[0], n[2]), y: Math.min(n[1], n[3]), width: Math.abs(n[2] - n[0]), height: Math.abs(n[3] - n[1]) };
    const widget: ExistingWidget = { pageNumber, ...userRectToReader(geometries[pageNumber - 1]!, user) };
    const normal = dict.lookupMaybe(PDFName.of('AP'), PDFDict)?.lookup(PDFName.of('N'));
    const on = normal instanceof PDFDict ? normal.keys().map(nameText).find((k) => k !== 'Off') : undefined;
    if (on !== undefined) widget.onState = on;
    return widget;
  };

  walkFieldTree(fieldList, resolverOf(doc), (node) => {
    if (!node.terminal || node.name === undefined) return;
    const widgets: ExistingWidget[] = [];
    for (const w of node.widgets) {
      const widget = widgetOf(w.object, w.dict);
      if (widget) widgets.push(widget);
    }
    const states = widgets.map((w) => w.onState);
    const opt = node.dict.lookupMaybe(PDFName.of('Opt'), PDFArray);
    if (opt !== undefined && opt.size() === widgets.length) {
      widgets.forEach((w, i) => {
        const exported = textOf(opt.lookup(i));
        if (exported !== undefined) w.onState = exported;
      });
    }
    const field = describe(node.name, { ...(node.type !== undefined ? { ft: node.type } : {}), ff: node.flags, ...(node.value !== undefined ? { v: node.value } : {}) }, widgets, states);
    if (field) out.push(field);
  });
  return out;
}

function describe(
  name: string,
  f: { ft?: string; ff: number; v?: PDFObject },
  widgets: ExistingWidget[],
  states: readonly (string | undefined)[],
): ExistingField | undefined {
  if (widgets.length === 0 || (f.ff & FF_READ_ONLY) !== 0) return undefined;
  const required = (f.ff & FF_REQUIRED) !== 0;
  switch (f.ft) {
    case 'Tx': {
      if ((f.ff & (FF_PASSWORD | FF_FILE_SELECT)) !== 0) return undefined;
      const text = textOf(f.v);
      return { name, type: 'SingleLine', required, ...(text !== undefined && text !== '' ? { value: text } : {}), widgets };
    }
    case 'Btn': {
      if ((f.ff & FF_PUSH_BUTTON) !== 0) return undefined;
      const state = f.v instanceof PDFName ? nameText(f.v) : undefined;
      const field: ExistingField = { name, type: (f.ff & FF_RADIO) !== 0 ? 'Radio' : 'Check', required, widgets };
      const selected = state === undefined || state === 'Off' ? -1 : states.indexOf(state);
      if (selected !== -1) field.value = widgets[selected]?.onState ?? state;
      return field;
    }
    case 'Sig':
      return f.v === undefined ? { name, type: 'Signature', required, widgets } : undefined;
    default:
      return undefined;
  }
}
