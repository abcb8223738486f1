/**
 * Certification signatures (ISO 32000-2 §12.8.2.2 DocMDP, §12.8.4 /Perms): read the permission level a certified
 * document allows (1 no changes, 2 form fill and signing, 3 also annotations) and declare one on a first signature.
 */
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef, type PDFContext, type PDFDocument } from '../pdf/pdf-lib.js';
import type { PdfUpdateSession } from '../pdf/incremental.js';

/** DocMDP permission level P. */
export type DocMdpPermission = 1 | 2 | 3;

/**
 * The DocMDP permission of a certified document (`/Perms /DocMDP` → the signature's DocMDP reference →
 * `/TransformParams /P`, default 2), or `undefined` when the document is not certified.
 */
export function readDocMdpPermission(doc: PDFDocument): DocMdpPermission | undefined {
  const perms = doc.catalog.lookupMaybe(PDFName.of('Perms'), PDFDict);
  const signature = perms?.lookupMaybe(PDFName.of('DocMDP'), PDFDict);
  if (!signature) return undefined;
  const references = signature.lookupMaybe(PDFName.of('Reference'), PDFArray);
  for (const entry of references?.asArray() ?? []) {
    const reference = doc.context.lookupMaybe(entry, PDFDict);
    if (reference?.get(PDFName.of('TransformMethod')) !== PDFName.of('DocMDP')) continue;
    const p = reference.lookupMaybe(PDFName.of('TransformParams'), PDFDict)?.get(PDFName.of('P'));
    const value = p instanceof PDFNumber ? p.asNumber() : 2;
    return value === 1 || value === 3 ? value : 2;
  }
  // A /DocMDP entry without a DocMDP reference: treat as the default level.
  return 2;
}

/** Appends a signature reference dictionary to `signature`'s /Reference array (creating the array). */
function appendReference(context: PDFContext, signature: PDFDict, reference: PDFDict): void {
  const held = signature.get(PDFName.of('Reference'));
  if (held instanceof PDFArray) held.push(reference);
  else signature.set(PDFName.of('Reference'), context.obj([reference]));
}

/** Adds the DocMDP signature reference (`/Reference [<< /Type /SigRef /TransformMethod /DocMDP … >>]`) to `signature`. */
export function addDocMdpReference(context: PDFContext, signature: PDFDict, permission: DocMdpPermission): void {
  appendReference(
    context,
    signature,
    context.obj({
      Type: 'SigRef',
      TransformMethod: 'DocMDP',
      TransformParams: { Type: 'TransformParams', P: permission, V: PDFName.of('1.2') },
    }),
  );
}

/** The DocMDP level a field's /Lock asks for (ISO 32000-2 §12.7.5.5, /P in the lock dictionary), if any. */
export function lockPermission(lock: PDFDict | undefined): DocMdpPermission | undefined {
  const p = lock?.get(PDFName.of('P'));
  const value = p instanceof PDFNumber ? p.asNumber() : undefined;
  return value === 1 || value === 2 || value === 3 ? value : undefined;
}

/**
 * Adds the FieldMDP signature reference (ISO 32000-2 §12.8.2.4) that a signature field's /Lock dictionary asks for:
 * `/TransformParams << /Action … /Fields … >>` copied from the lock, and /Data pointing at the catalog (required by
 * PDF 1.7 readers), so that verifiers know which fields the signature locks. A lock without a known /Action adds nothing.
 */
export function addFieldMdpReference(context: PDFContext, signature: PDFDict, lock: PDFDict, catalog: PDFRef | undefined): boolean {
  const action = lock.get(PDFName.of('Action'));
  if (!(action instanceof PDFName) || !['All', 'Include', 'Exclude'].includes(action.decodeText())) return false;
  const params = context.obj({ Type: 'TransformParams', Action: action, V: PDFName.of('1.2') });
  const fields = lock.get(PDFName.of('Fields'));
  if (action.decodeText() !== 'All' && fields !== undefined) params.set(PDFName.of('Fields'), fields);
  const reference = context.obj({ Type: 'SigRef', TransformMethod: 'FieldMDP' });
  reference.set(PDFName.of('TransformParams'), params);
  if (catalog) reference.set(PDFName.of('Data'), catalog);
  appendReference(context, signature, reference);
  return true;
}

/** Points the catalog's `/Perms /DocMDP` at the certification signature `signatureRef` and marks the catalog. */
export function setDocMdpPerms(session: PdfUpdateSession, signatureRef: PDFRef): void {
  const { doc } = session;
  const context = doc.context;
  const root = context.trailerInfo.Root;
  const held = doc.catalog.get(PDFName.of('Perms'));
  if (held instanceof PDFRef) {
    context.lookup(held, PDFDict).set(PDFName.of('DocMDP'), signatureRef);
    session.markModified(held);
    return;
  }
  const perms = held instanceof PDFDict ? held : context.obj({});
  perms.set(PDFName.of('DocMDP'), signatureRef);
  doc.catalog.set(PDFName.of('Perms'), perms);
  if (root instanceof PDFRef) session.markModified(root);
}
