/**
 * Finds the signatures of a document (ISO 32000-2 §12.7.5.5 signature fields, §12.8.1 signature dictionaries): the
 * signature dictionaries the final document's signature fields reference, and the ones defined in some revision that
 * no field references any more (a field removed from the form, a dictionary deleted), so that a hidden signature
 * is still reported.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFRef, PDFString, type PDFObject } from '../pdf/pdf-lib.js';
import type { RevisionSection } from '../pdf/revisions.js';
import { resolveIn, type ObjectState } from './modification-check.js';

/** A signature dictionary found in the document. */
export interface FoundSignature {
  /** Fully qualified name of the field that references it (undefined for orphans). */
  readonly fieldName: string | undefined;
  readonly dict: PDFDict;
  /** Object number of the signature dictionary, when it is an indirect object. */
  readonly objectNumber: number | undefined;
  /** Set for a signature dictionary no signature field references any more. */
  readonly orphan?: boolean;
  /** The signature field (its /Lock names what the signature locks). */
  readonly field?: PDFDict;
  /** Object number of the signature field, when it is an indirect object. */
  readonly fieldObject?: number;
}

function nameValue(dict: PDFDict, key: string): string | undefined {
  const value = dict.get(PDFName.of(key));
  return value instanceof PDFName ? value.decodeText() : undefined;
}

function textValue(state: ObjectState, value: PDFObject | undefined): string | undefined {
  const resolved = resolveIn(state, value);
  return resolved instanceof PDFString || resolved instanceof PDFHexString ? resolved.decodeText() : undefined;
}

/**
 * Finds the signature dictionaries referenced by signature fields, walking /AcroForm /Fields; signature fields whose
 * /V is set but is no dictionary (e.g. a reference to a missing object) go to `broken`.
 */
export function findSignatures(state: ObjectState, broken: string[]): FoundSignature[] {
  const catalog = resolveIn(state, state.root);
  if (!(catalog instanceof PDFDict)) return [];
  const form = resolveIn(state, catalog.get(PDFName.of('AcroForm')));
  if (!(form instanceof PDFDict)) return [];
  const found: FoundSignature[] = [];
  const seen = new Set<string>();
  const walk = (node: PDFObject | undefined, parentName: string | undefined, inheritedFt: string | undefined, depth: number): void => {
    const key = node?.toString() ?? '';
    if (depth > 32 || seen.has(key)) return;
    seen.add(key);
    const dict = resolveIn(state, node);
    if (!(dict instanceof PDFDict)) return;
    const partial = textValue(state, dict.get(PDFName.of('T')));
    const name = partial === undefined ? parentName : parentName === undefined ? partial : `${parentName}.${partial}`;
    const ft = nameValue(dict, 'FT') ?? inheritedFt;
    const value = resolveIn(state, dict.get(PDFName.of('V')));
    const valueRef = dict.get(PDFName.of('V'));
    if (ft === 'Sig' && value instanceof PDFDict) {
      found.push({
        fieldName: name,
        dict: value,
        objectNumber: valueRef instanceof PDFRef ? valueRef.objectNumber : undefined,
        field: dict,
        ...(node instanceof PDFRef ? { fieldObject: node.objectNumber } : {}),
      });
    }
    else if (ft === 'Sig' && valueRef !== undefined) broken.push(`signature field ${name ?? '?'} has a /V that is not a signature dictionary`);
    const kids = resolveIn(state, dict.get(PDFName.of('Kids')));
    if (kids instanceof PDFArray) for (const kid of kids.asArray()) walk(kid, name, ft, depth + 1);
  };
  const fields = resolveIn(state, form.get(PDFName.of('Fields')));
  if (fields instanceof PDFArray) for (const f of fields.asArray()) walk(f, undefined, undefined, 0);
  return found;
}

function isSignatureDict(object: PDFObject | undefined): object is PDFDict {
  if (!(object instanceof PDFDict)) return false;
  const contents = object.get(PDFName.of('Contents'));
  return object.get(PDFName.of('ByteRange')) instanceof PDFArray && (contents instanceof PDFHexString || contents instanceof PDFString);
}

/**
 * Signature dictionaries defined in any revision that no signature field references in the final document (a
 * field removed from the form, or the dictionary deleted): reported too, so that hiding a signature is noticed.
 */
export function findOrphanSignatures(sections: readonly RevisionSection[], final: ObjectState, found: readonly FoundSignature[]): FoundSignature[] {
  const known = new Set(found.map((f) => f.objectNumber));
  const orphans = new Map<number, FoundSignature>();
  for (const section of [...sections].reverse()) {
    for (const [n, object] of section.objects) {
      if (known.has(n) || orphans.has(n)) continue;
      const latest = final.objects.get(n) ?? object;
      if (isSignatureDict(latest)) orphans.set(n, { fieldName: undefined, dict: latest, objectNumber: n, orphan: true });
    }
  }
  return [...orphans.values()];
}
