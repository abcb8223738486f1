/**
 * The public form of `listSignatureFields`: takes PDF bytes like every other library function,
 * loads them with paraph's loader (PdfParseError for garbage, encrypted or truncated input) and lists the signature
 * fields, signed or not. The pdf-lib document form stays internal to the signing code.
 */
import { loadPdf } from '../pdf/load-pdf.js';
import { listSignatureFields as listFieldsOfDocument, type SignatureFieldInfo } from './signature-field.js';

/**
 * Lists the signature fields of a PDF (ISO 32000-2 §12.7.5.5): name, page, whether signed.
 *
 * @example
 * const unsigned = (await listSignatureFields(pdf)).filter((f) => !f.signed).map((f) => f.name);
 */
export async function listSignatureFields(pdf: Uint8Array): Promise<SignatureFieldInfo[]> {
  return listFieldsOfDocument(await loadPdf(pdf));
}
