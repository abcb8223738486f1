/**
 * Signature form fields (ISO 32000-2 §12.7.5.5, §12.8.1): find the field a signature goes into by its fully
 * qualified name, list the document's signature fields, and create a new one (visible at a placement or
 * invisible), marking every object it changes in the incremental update session.
 */
import { PDFArray, PDFBool, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString, type PDFDocument } from '../pdf/pdf-lib.js';
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

function text(value: unknown): string | undefined {
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}

function inheritedFieldType(dict: PDFDict, doc: PDFDocument): PDFName | undefined {
  let node: PDFDict | undefined = dict;
  for (let depth = 0; node && depth < 32; depth++) {
    const ft = node.get(PDFName.of('FT'));
    if (ft instanceof PDFName) return ft;
    node = doc.context.lookupMaybe(node.get(PDFName.of('Parent')), PDFDict);
  }
  return undefined;
}

/** Every terminal field of the AcroForm whose type is /Sig, with its widgets, in document order. */
export function listSignatureFields(doc: PDFDocument): SignatureFieldInfo[] {
  const context = doc.context;
  const form = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  const fields = form?.lookupMaybe(PDFName.of('Fields'), PDFArray);
  const found: SignatureFieldInfo[] = [];
  const visited = new Set<string>();
  const visit = (ref: PDFRef, parentName: string | undefined, depth: number): void => {
    if (depth > 32 || visited.has(ref.toString())) return;
    visited.add(ref.toString());
    const dict = context.lookupMaybe(ref, PDFDict);
    if (!dict) return;
    const partial = text(dict.get(PDFName.of('T')));
    const name = partial === undefined ? parentName : parentName === undefined ? partial : `${parentName}.${partial}`;
    const kids = dict.lookupMaybe(PDFName.of('Kids'), PDFArray);
    const kidRefs = kids ? kids.asArray().filter((k): k is PDFRef => k instanceof PDFRef) : [];
    // Kids with a /T are child fields; kids without one are this field's widgets.
    const childFields = kidRefs.filter((k) => context.lookupMaybe(k, PDFDict)?.has(PDFName.of('T')));
    if (childFields.length > 0) {
      for (const child of childFields) visit(child, name, depth + 1);
      return;
    }
    if (name === undefined || inheritedFieldType(dict, doc) !== PDFName.of('Sig')) return;
    const widgetRefs = kidRefs.length > 0 ? kidRefs : [ref];
    const widgets = widgetRefs.flatMap((w): FieldWidget[] => {
      const widget = context.lookupMaybe(w, PDFDict);
      if (!widget) return [];
      const page = widget.get(PDFName.of('P'));
      return [{ ref: w, dict: widget, pageRef: page instanceof PDFRef ? page : undefined }];
    });
    found.push({
      name,
      ref,
      dict,
      signed: dict.get(PDFName.of('V')) !== undefined,
      widgets,
      description: text(dict.get(PDFName.of('TU'))),
    });
  };
  for (const entry of fields?.asArray() ?? []) if (entry instanceof PDFRef) visit(entry, undefined, 0);
  return found;
}

/**
 * The document's AcroForm dictionary, created when missing, with `/SigFlags 3` (signatures exist, append only) and
 * `/NeedAppearances` turned off;
 * marks whatever object holds it as modified.
 */
export function prepareAcroFormForSignature(session: PdfUpdateSession): { form: PDFDict; fields: PDFArray } {
  const { doc } = session;
  const context = doc.context;
  const catalog = doc.catalog;
  const rootRef = context.trailerInfo.Root;
  const markCatalog = (): void => {
    if (rootRef instanceof PDFRef) session.markModified(rootRef);
  };
  const held = catalog.get(PDFName.of('AcroForm'));
  let form: PDFDict;
  if (held instanceof PDFRef) {
    form = context.lookup(held, PDFDict);
    session.markModified(held);
  } else if (held instanceof PDFDict) {
    form = held;
    markCatalog();
  } else {
    form = context.obj({ Fields: [] });
    catalog.set(PDFName.of('AcroForm'), context.register(form));
    markCatalog();
  }
  form.set(PDFName.of('SigFlags'), PDFNumber.of(3));
  // A viewer asked to regenerate appearances would change the signed document's look (Acrobat then reports the
  // signature as invalid): appearances must be fixed once a document is signed.
  if (form.get(PDFName.of('NeedAppearances')) === PDFBool.True) form.set(PDFName.of('NeedAppearances'), PDFBool.False);
  let fields: PDFArray;
  const heldFields = form.get(PDFName.of('Fields'));
  if (heldFields instanceof PDFRef) {
    fields = context.lookup(heldFields, PDFArray);
    session.markModified(heldFields);
  } else if (heldFields instanceof PDFArray) {
    fields = heldFields;
  } else {
    fields = context.obj([]);
    form.set(PDFName.of('Fields'), fields);
  }
  return { form, fields };
}

/** The first of `Base1`, `Base2`, … that no field of the document uses. */
export function unusedFieldName(doc: PDFDocument, base: string): string {
  const used = new Set(listAllFieldNames(doc));
  for (let i = 1; ; i++) if (!used.has(`${base}${i}`)) return `${base}${i}`;
}

/** The fully qualified names of every field of the AcroForm, of any type (parents included). */
export function listAllFieldNames(doc: PDFDocument): string[] {
  const context = doc.context;
  const form = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  const names: string[] = [];
  const walk = (entry: unknown, parent: string | undefined, depth: number): void => {
    if (!(entry instanceof PDFRef) || depth > 32) return;
    const dict = context.lookupMaybe(entry, PDFDict);
    const partial = dict && text(dict.get(PDFName.of('T')));
    if (!dict || partial === undefined) return;
    const name = parent === undefined ? partial : `${parent}.${partial}`;
    names.push(name);
    for (const kid of dict.lookupMaybe(PDFName.of('Kids'), PDFArray)?.asArray() ?? []) walk(kid, name, depth + 1);
  };
  for (const entry of form?.lookupMaybe(PDFName.of('Fields'), PDFArray)?.asArray() ?? []) walk(entry, undefined, 0);
  return names;
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
