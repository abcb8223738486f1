/**
 * Writing a signer's values into the form fields paraph placed or the PDF had (fillable PDFs) (ISO 32000-2 §12.7.4:
 * text fields /V plus a new normal appearance; check boxes /V and /AS set to the on-state or Off; radio groups /V set
 * to the chosen button's state and each button's /AS to it or Off), and the signer's initials for `SetParaph`
 * (docs/design/fields.md#initials: the initials at the bottom right of every page without a signature field, as a Stamp
 * annotation with its own appearance), in one incremental update before the signer's signature. Pure: bytes in,
 * bytes out.
 */
import fontkit from '@pdf-lib/fontkit';
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFRef, PDFStream, type PDFFont } from '../../pdf/pdf-lib.js';
import { loadBundledFont } from '../../pdf/fonts.js';
import { textFieldAppearance, textFieldFontSize } from '../../pdf/field-appearance.js';
import { findTerminalField, nameText, textOf } from '../../pdf/acroform.js';
import { continueUpdates, openPdfForUpdate, writeIncrementalUpdate, type PdfUpdateSession } from '../../pdf/incremental.js';
import { stampInitials, type InitialsStamp } from '../../pdf/stamp-initials.js';
import { PlacementError } from '../../errors.js';
import type { FieldValue } from './signer-fields.js';

/** Initials to stamp (SetParaph). */
export type ParaphStamp = InitialsStamp;

/**
 * Fills `values` and stamps `paraph` into `pdf` in one incremental update. Returns the input unchanged when there is
 * nothing to do.
 *
 * @throws PlacementError `FIELD_NOT_FOUND` when a field is not in the PDF.
 */
export async function fillFormFields(pdf: Uint8Array, values: readonly FieldValue[], paraph?: ParaphStamp): Promise<Uint8Array> {
  if (values.length === 0 && (paraph === undefined || paraph.pages.length === 0)) return pdf;
  return (await fillFormFieldsInSession(await openPdfForUpdate(pdf), values, paraph)).bytes;
}

/**
 * {@link fillFormFields} on a document already open for an update: writes the update (when there is something to
 * do) and returns the file with the session for the next update of the same parse.
 *
 * @throws PlacementError `FIELD_NOT_FOUND` when a field is not in the PDF.
 */
export async function fillFormFieldsInSession(
  session: PdfUpdateSession,
  values: readonly FieldValue[],
  paraph?: ParaphStamp,
): Promise<{ bytes: Uint8Array; session: PdfUpdateSession }> {
  if (values.length === 0 && (paraph === undefined || paraph.pages.length === 0)) return { bytes: session.original, session };
  const doc = session.doc;
  const ctx = doc.context;
  const texts = values.filter((v) => v.type !== 'Check' && v.type !== 'Radio').map((v) => String(v.value));
  let font: PDFFont | undefined;
  if (texts.length > 0 || (paraph && !paraph.image)) {
    doc.registerFontkit(fontkit);
    font = await doc.embedFont(await loadBundledFont('regular'), { subset: true });
  }
  for (const value of values) {
    const field = findField(session, value.name);
    if (field === undefined) throw new PlacementError('FIELD_NOT_FOUND', `The document has no field ${JSON.stringify(value.name)}.`);
    session.markModified(field.ref);
    if (value.type === 'Check' || value.type === 'Radio') {
      const opt = field.dict.lookupMaybe(PDFName.of('Opt'), PDFArray);
      let fieldState: PDFName = PDFName.of('Off');
      field.widgets.forEach((widget, i) => {
        session.markModified(widget.ref);
        // A button's on-state is the key of its /AP /N besides Off (a fillable PDF's own names win); its export value
        // that name, or its entry of the field's /Opt.
        const on = normalStates(widget.dict).find((k) => nameText(k) !== 'Off');
        const optText = opt !== undefined && opt.size() === field.widgets.length ? textOf(opt.lookup(i)) : undefined;
        const exported = optText ?? (on !== undefined ? nameText(on) : undefined);
        let shown: PDFName | undefined;
        if (value.type === 'Check') {
          if (value.value === true) shown = on ?? PDFName.of(exportName(value.exportValue ?? 'Yes'));
        } else if (value.value !== '' && exported === value.value) {
          shown = on ?? PDFName.of(exportName(value.value));
        }
        widget.dict.set(PDFName.of('AS'), shown ?? PDFName.of('Off'));
        if (shown !== undefined) fieldState = shown;
      });
      field.dict.set(PDFName.of('V'), fieldState);
      continue;
    }
    const text = String(value.value);
    field.dict.set(PDFName.of('V'), PDFHexString.fromText(text));
    for (const widget of field.widgets) {
      const rect = widget.dict.lookup(PDFName.of('Rect'), PDFArray).asRectangle();
      const rotation = widget.dict.lookupMaybe(PDFName.of('MK'), PDFDict)?.get(PDFName.of('R'))?.toString() ?? '0';
      const [w, h] = rotation === '90' || rotation === '270' ? [rect.height, rect.width] : [rect.width, rect.height];
      const oldNormal = widget.dict.lookupMaybe(PDFName.of('AP'), PDFDict)?.lookup(PDFName.of('N'));
      const oldStream = oldNormal instanceof PDFStream ? oldNormal : undefined;
      // Keep the old appearance's /Matrix: it undoes the page's /Rotate (fields.ts).
      const matrixValue = oldStream?.dict.get(PDFName.of('Matrix'));
      const content = textFieldAppearance(font as PDFFont, 'F1', w, h, textFieldFontSize(h), text);
      const stream = ctx.flateStream(content, {
        Type: 'XObject',
        Subtype: 'Form',
        BBox: [0, 0, w, h],
        Resources: { Font: { F1: (font as PDFFont).ref } },
      });
      if (matrixValue) stream.dict.set(PDFName.of('Matrix'), matrixValue);
      session.markModified(widget.ref);
      widget.dict.set(PDFName.of('AP'), ctx.obj({ N: ctx.register(stream) }));
    }
  }
  if (paraph) await stampInitials(session, paraph, font);
  if (font) await font.embed();
  const { bytes } = writeIncrementalUpdate(session);
  return { bytes, session: continueUpdates(session, bytes) };
}

/** The check box on-state name: the export value's UTF-8 bytes (as fields.ts writes it). */
function exportName(value: string): string {
  const bytes = new TextEncoder().encode(value);
  return String.fromCharCode(...bytes);
}

interface Found {
  readonly ref: PDFRef;
  readonly dict: PDFDict;
  readonly widgets: readonly { ref: PDFRef; dict: PDFDict }[];
}

/**
 * A widget's /AP /N state names. The state dictionary is left where it is (direct, as place-fields.ts and Acrobat
 * write it): filling only sets /AS and /V, so the appearances the document's author drew stay untouched, and poppler
 * takes an indirect /N for the appearance stream itself and would draw nothing. docs/design/fields.md#filling
 * says which validators read this form.
 */
function normalStates(widget: PDFDict): PDFName[] {
  const normal = widget.lookupMaybe(PDFName.of('AP'), PDFDict)?.lookup(PDFName.of('N'));
  return normal instanceof PDFDict ? normal.keys() : [];
}

/** The terminal field named `name` (fully qualified), with its widgets, as objects the update can rewrite. */
function findField(session: PdfUpdateSession, name: string): Found | undefined {
  const node = findTerminalField(session.doc, name);
  if (node === undefined || !(node.object instanceof PDFRef)) return undefined;
  const widgets = node.widgets.flatMap((w) => (w.object instanceof PDFRef ? [{ ref: w.object, dict: w.dict }] : []));
  return { ref: node.object, dict: node.dict, widgets };
}
