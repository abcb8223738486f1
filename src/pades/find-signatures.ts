/**
 * Finds the signatures of a document (ISO 32000-2 §12.7.5.5 signature fields, §12.8.1 signature dictionaries): the
 * signature dictionaries the final document's signature fields reference, and the ones defined in some revision that
 * no field references any more (a field removed from the form, a dictionary deleted), so that a hidden signature
 * is still reported.
 */
import { PDFDict, PDFName, PDFRef } from '../pdf/pdf-lib.js';
import { isSignatureDictionary, walkFieldTree } from '../pdf/acroform.js';
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
  walkFieldTree(form.get(PDFName.of('Fields')), (object) => resolveIn(state, object), (node) => {
    if (node.type !== 'Sig') return;
    const valueRef = node.dict.get(PDFName.of('V'));
    const value = resolveIn(state, valueRef);
    if (value instanceof PDFDict) {
      found.push({
        fieldName: node.name,
        dict: value,
        objectNumber: valueRef instanceof PDFRef ? valueRef.objectNumber : undefined,
        field: node.dict,
        ...(node.object instanceof PDFRef ? { fieldObject: node.object.objectNumber } : {}),
      });
    } else if (valueRef !== undefined) broken.push(`signature field ${node.name ?? '?'} has a /V that is not a signature dictionary`);
  });
  return found;
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
      if (isSignatureDictionary(latest)) orphans.set(n, { fieldName: undefined, dict: latest, objectNumber: n, orphan: true });
    }
  }
  return [...orphans.values()];
}
