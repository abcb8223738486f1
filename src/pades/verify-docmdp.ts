/**
 * Certification signatures when verifying (ISO 32000-2 §12.8.2.2 DocMDP, §12.8.4 /Perms; ETSI EN 319 142-1
 * §5.4 for /DSS and document time-stamps after a certification): finds the certifying signature and its
 * permission P. What each level allows is decided in change-policy.ts.
 */
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef } from '../pdf/pdf-lib.js';
import { resolveIn, type ObjectState } from './modification-check.js';

/** DocMDP permission level P: 1 no changes, 2 form fill and signing, 3 also annotations. */
export type DocMdpPermission = 1 | 2 | 3;

/** The certification of a document: which signature dictionary certifies it, with which permission. */
export interface Certification {
  readonly objectNumber: number;
  readonly permission: DocMdpPermission;
}

/** Reads `/Perms /DocMDP` of the final document and the DocMDP reference of the signature it points at. */
export function findCertification(state: ObjectState): Certification | undefined {
  const catalog = resolveIn(state, state.root);
  if (!(catalog instanceof PDFDict)) return undefined;
  const perms = resolveIn(state, catalog.get(PDFName.of('Perms')));
  const ref = perms instanceof PDFDict ? perms.get(PDFName.of('DocMDP')) : undefined;
  if (!(ref instanceof PDFRef)) return undefined;
  const signature = resolveIn(state, ref);
  if (!(signature instanceof PDFDict)) return undefined;
  const references = resolveIn(state, signature.get(PDFName.of('Reference')));
  let permission: DocMdpPermission = 2;
  if (references instanceof PDFArray) {
    for (const entry of references.asArray()) {
      const reference = resolveIn(state, entry);
      if (!(reference instanceof PDFDict) || reference.get(PDFName.of('TransformMethod')) !== PDFName.of('DocMDP')) continue;
      const params = resolveIn(state, reference.get(PDFName.of('TransformParams')));
      const p = params instanceof PDFDict ? params.get(PDFName.of('P')) : undefined;
      const value = p instanceof PDFNumber ? p.asNumber() : 2;
      permission = value === 1 || value === 3 ? value : 2;
    }
  }
  return { objectNumber: ref.objectNumber, permission };
}
