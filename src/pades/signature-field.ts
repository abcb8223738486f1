/**
 * Signature form fields (ISO 32000-2 §12.7.5.5, §12.8.1): find the field a signature goes into by its fully
 * qualified name, list the document's signature fields, and create a new one (visible at a placement or
 * invisible), marking every object it changes in the incremental update session.
 */
import { PDFBool, PDFHexString, PDFName, PDFNumber, PDFRef, type PDFArray, type PDFDict, type PDFDocument } from '../pdf/pdf-lib.js';
import { formFieldNodes, openAcroForm, textOf } from '../pdf/acroform.js';
import { appendPageAnnotation, type PdfUpdateSession } from '../pdf/incremental.js';

/** A widget annotation of a field, with the page it sits on when known. */
export interface FieldWidget {
  readonly ref: PDFRef;
  readonly dict: PDFDict;
  readonly pageRef: PDFRef | undefined;
}

/** A signature field of the document. */
export interface SignatureFieldInfo {
  /** Fully qualified name (`parent.child`). */
  readonly name: string;
  readonly ref: PDFRef;
  readonly dict: PDFDict;
  /** Whether `/V` already holds a signature. */
  readonly signed: boolean;
  readonly widgets: readonly FieldWidget[];
  /** The field's `/TU` (user-facing description), when it has one. */
  readonly description: string | undefined;
}

/** Every terminal field of the AcroForm whose type is /Sig, with its widgets, in document order. */
export function listSignatureFields(doc: PDFDocument): SignatureFieldInfo[] {
  return formFieldNodes(doc).flatMap((node): SignatureFieldInfo[] => {
    if (!node.terminal || node.name === undefined || node.type !== 'Sig' || !(node.object instanceof PDFRef)) return [];
    const widgets = node.widgets.flatMap((w): FieldWidget[] => {
      if (!(w.object instanceof PDFRef)) return [];
      const page = w.dict.get(PDFName.of('P'));
      return [{ ref: w.object, dict: w.dict, pageRef: page instanceof PDFRef ? page : undefined }];
    });
    return [{
      name: node.name,
      ref: node.object,
      dict: node.dict,
      signed: node.dict.get(PDFName.of('V')) !== undefined,
      widgets,
      description: textOf(node.dict.get(PDFName.of('TU'))),
    }];
  });
}

/**
 * The document's AcroForm dictionary, created when missing, with `/SigFlags 3` (signatures exist, append only) and
 * `/NeedAppearances` turned off;
 * marks whatever object holds it as modified.
 */
export function prepareAcroFormForSignature(session: PdfUpdateSession): { form: PDFDict; fields: PDFArray } {
  const { form, fields } = openAcroForm(session);
  form.set(PDFName.of('SigFlags'), PDFNumber.of(3));
  // A viewer asked to regenerate appearances would change the signed document's look (Acrobat then reports the
  // signature as invalid): appearances must be fixed once a document is signed.
  if (form.get(PDFName.of('NeedAppearances')) === PDFBool.True) form.set(PDFName.of('NeedAppearances'), PDFBool.False);
  return { form, fields };
}

/** The first of `Base1`, `Base2`, … that no field of the document uses. */
export function unusedFieldName(doc: PDFDocument, base: string): string {
  const used = new Set(listAllFieldNames(doc));
  for (let i = 1; ; i++) if (!used.has(`${base}${i}`)) return `${base}${i}`;
}

/** The fully qualified names of every field of the AcroForm, of any type (parents included). */
export function listAllFieldNames(doc: PDFDocument): string[] {
  return formFieldNodes(doc).flatMap((node) => (node.name !== undefined && node.dict.has(PDFName.of('T')) ? [node.name] : []));
}

/**
 * Creates a new signature field named `name` whose single widget sits at `rect` (user space) on `pageRef`
 * (`[0 0 0 0]` for an invisible signature), adds it to the AcroForm and the page's /Annots.
 */
export function createSignatureField(
  session: PdfUpdateSession,
  options: { name: string; pageRef: PDFRef; rect: readonly [number, number, number, number] },
): SignatureFieldInfo {
  const context = session.doc.context;
  const { fields } = prepareAcroFormForSignature(session);
  const dict = context.obj({
    FT: 'Sig',
    T: PDFHexString.fromText(options.name),
    Type: 'Annot',
    Subtype: 'Widget',
    // Print (4) + Locked (128): shown when printed, not movable.
    F: 132,
    Rect: [...options.rect],
    P: options.pageRef,
  }) as PDFDict;
  const ref = context.register(dict);
  fields.push(ref);
  appendPageAnnotation(session, options.pageRef, ref);
  return { name: options.name, ref, dict, signed: false, widgets: [{ ref, dict, pageRef: options.pageRef }], description: undefined };
}
