/**
 * The one owner of the interactive form (ISO 32000-2 §12.7): the field tree under the catalog's /AcroForm /Fields,
 * walked with its inheritable entries (/FT, /Ff, /V) and fully qualified names, bounded in depth and safe against
 * cycles a hostile file may hold; the /AcroForm dictionary found or created inside an incremental update; and the
 * test of whether a dictionary is a signature dictionary (§12.8.1). Every module that reads or writes form fields
 * goes through here: placing fields, filling them, listing and creating signature fields, finding signatures.
 * Pure: reads and changes parsed objects only.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString, type PDFDocument, type PDFObject } from './pdf-lib.js';
import type { PdfUpdateSession } from './incremental.js';

/** Deeper field trees than this are not real forms (and the walk must stay bounded on hostile input). */
const MAX_FIELD_DEPTH = 32;

/** Resolves an indirect reference to its object (a direct object is returned as it is). */
export type ResolveObject = (object: PDFObject | undefined) => PDFObject | undefined;

/** A widget annotation of a terminal field: the merged field itself, or one of its /Kids without /T. */
export interface FieldWidgetNode {
  /** As referenced (a PDFRef, or the direct dictionary). */
  readonly object: PDFObject;
  readonly dict: PDFDict;
}

/** A field of the tree, as the walk meets it (parents before their kids). */
export interface FieldNode {
  /** As referenced in /Fields or the parent's /Kids (a PDFRef, or the direct dictionary). */
  readonly object: PDFObject;
  readonly dict: PDFDict;
  /** Fully qualified name: the partial names (/T) of the field and its ancestors joined with periods. */
  readonly name: string | undefined;
  /** /FT, inherited from the nearest ancestor that has one (`Tx`, `Btn`, `Ch`, `Sig`). */
  readonly type: string | undefined;
  /** /Ff, inherited; 0 when no ancestor has one. */
  readonly flags: number;
  /** /V, inherited, unresolved. */
  readonly value: PDFObject | undefined;
  /** True when no kid is a field (has /T): then the field holds a value and {@link widgets} are its annotations. */
  readonly terminal: boolean;
  /** A terminal field's widgets: its /Kids, or the field itself (merged field and widget). Empty for a parent. */
  readonly widgets: readonly FieldWidgetNode[];
  /** Every kid that resolves to a dictionary, fields and widgets alike (a damaged parent may hold both). */
  readonly kids: readonly FieldWidgetNode[];
  /** The field whose /Kids hold this one; undefined for a root of /Fields. */
  readonly parent: FieldNode | undefined;
}

/** The document's /AcroForm dictionary, when it has one. */
export function acroFormOf(doc: PDFDocument): PDFDict | undefined {
  return doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
}

/** Resolves through the document's objects. */
export function resolverOf(doc: PDFDocument): ResolveObject {
  return (object) => (object instanceof PDFRef ? doc.context.lookup(object) : object);
}

/**
 * Calls `visit` for every field under `fields` (the /AcroForm /Fields array, or a reference to it), parents before
 * kids, in tree order. A kid is a field when it has /T; the other kids are widgets. Each object is visited once
 * (cycles are cut) and no deeper than 32 levels. `resolve` decides which objects are seen: the document's, or those
 * of one revision (signature verification).
 */
export function walkFieldTree(fields: PDFObject | undefined, resolve: ResolveObject, visit: (node: FieldNode) => void): void {
  const roots = resolve(fields);
  if (!(roots instanceof PDFArray)) return;
  const seen = new Set<PDFObject | string>();
  const walk = (object: PDFObject, parent: { name?: string; type?: string; flags: number; value?: PDFObject; node?: FieldNode }, depth: number): void => {
    const key = object instanceof PDFRef ? object.toString() : object;
    if (depth > MAX_FIELD_DEPTH || seen.has(key)) return;
    seen.add(key);
    const dict = resolve(object);
    if (!(dict instanceof PDFDict)) return;
    const partial = textOf(resolve(dict.get(PDFName.of('T'))));
    const name = partial === undefined ? parent.name : parent.name === undefined ? partial : `${parent.name}.${partial}`;
    const ft = resolve(dict.get(PDFName.of('FT')));
    const ff = resolve(dict.get(PDFName.of('Ff')));
    const type = ft instanceof PDFName ? nameText(ft) : parent.type;
    const flags = ff instanceof PDFNumber ? ff.asNumber() : parent.flags;
    const value = dict.get(PDFName.of('V')) ?? parent.value;
    const kidsArray = resolve(dict.get(PDFName.of('Kids')));
    const kids: FieldWidgetNode[] = [];
    if (kidsArray instanceof PDFArray) {
      for (const kid of kidsArray.asArray()) {
        const kidDict = resolve(kid);
        if (kidDict instanceof PDFDict) kids.push({ object: kid, dict: kidDict });
      }
    }
    const fieldKids = kids.filter((kid) => kid.dict.has(PDFName.of('T')));
    const terminal = fieldKids.length === 0;
    const widgets = !terminal ? [] : kids.length > 0 ? kids : [{ object, dict }];
    const node: FieldNode = { object, dict, name, type, flags, value, terminal, widgets, kids, parent: parent.node };
    visit(node);
    const here = { ...(name !== undefined ? { name } : {}), ...(type !== undefined ? { type } : {}), flags, ...(value !== undefined ? { value } : {}), node };
    for (const kid of fieldKids) walk(kid.object, here, depth + 1);
  };
  for (const root of roots.asArray()) walk(root, { flags: 0 }, 0);
}

/** Every field of `doc`'s form, parents before kids ({@link walkFieldTree} over the document's objects). */
export function formFieldNodes(doc: PDFDocument): FieldNode[] {
  const nodes: FieldNode[] = [];
  walkFieldTree(acroFormOf(doc)?.get(PDFName.of('Fields')), resolverOf(doc), (node) => nodes.push(node));
  return nodes;
}

/** The terminal field whose fully qualified name is `name` (the first, should two share it). */
export function findTerminalField(doc: PDFDocument, name: string): FieldNode | undefined {
  return formFieldNodes(doc).find((node) => node.terminal && node.name === name);
}

/**
 * The catalog's /AcroForm and its /Fields inside an update, both created when missing; whatever holds them is marked
 * modified, so the update writes them.
 */
export function openAcroForm(session: PdfUpdateSession): { form: PDFDict; fields: PDFArray } {
  const { doc } = session;
  const context = doc.context;
  const catalog = doc.catalog;
  const rootRef = context.trailerInfo.Root;
  const markCatalog = (): void => {
    if (rootRef instanceof PDFRef) session.markModified(rootRef);
  };
  const held = catalog.get(PDFName.of('AcroForm'));
  let form: PDFDict | undefined;
  if (held instanceof PDFRef) {
    form = context.lookupMaybe(held, PDFDict);
    if (form !== undefined) session.markModified(held);
  } else if (held instanceof PDFDict) {
    form = held;
    markCatalog();
  }
  if (form === undefined) {
    form = context.obj({ Fields: [] });
    catalog.set(PDFName.of('AcroForm'), context.register(form));
    markCatalog();
  }
  const heldFields = form.get(PDFName.of('Fields'));
  let fields: PDFArray | undefined;
  if (heldFields instanceof PDFRef) {
    fields = context.lookupMaybe(heldFields, PDFArray);
    if (fields !== undefined) session.markModified(heldFields);
  } else if (heldFields instanceof PDFArray) {
    fields = heldFields;
  }
  if (fields === undefined) {
    fields = context.obj([]);
    form.set(PDFName.of('Fields'), fields);
  }
  return { form, fields };
}

/** True for a signature dictionary (ISO 32000-2 §12.8.1): one with a /ByteRange array and a string /Contents. */
export function isSignatureDictionary(object: PDFObject | undefined): object is PDFDict {
  if (!(object instanceof PDFDict)) return false;
  const contents = object.get(PDFName.of('Contents'));
  return object.get(PDFName.of('ByteRange')) instanceof PDFArray && (contents instanceof PDFHexString || contents instanceof PDFString);
}

/** A name's text: PDF 2.0 names are UTF-8 bytes (pdf-lib keeps them one byte per character). */
export function nameText(name: PDFName): string {
  const raw = name.decodeText();
  const bytes = Uint8Array.from([...raw].map((c) => c.charCodeAt(0) & 0xff));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return raw;
  }
}

/** The text of a PDF string (literal or hex); undefined for anything else. */
export function textOf(value: PDFObject | undefined): string | undefined {
  if (!(value instanceof PDFString || value instanceof PDFHexString)) return undefined;
  try {
    return value.decodeText();
  } catch {
    // A damaged string is still a name: its bytes as Latin-1, rather than an exception in a walk of hostile input.
    return Buffer.from(value.asBytes()).toString('latin1');
  }
}
