/**
 * The check a sealed document must pass before the service reports it sealed: paraph's own verifier finds the new
 * seal as the last signature, referenced by a signature field of the final document, covering the whole file, with
 * its digest and signature intact and no disallowed change; and pdf-lib, reading the file afresh, finds that field
 * signed. A damaged file that readers repair each their own way can take the seal's update without error and still
 * show no signature to a reader; this catches it.
 */
import { listSignatureFields } from '../../pades/list-signature-fields.js';
import { verifyPdf } from '../../pades/verify.js';

/** Why `sealed` does not carry a seal readers validate, or undefined when it does. */
export async function sealedOutputProblem(sealed: Uint8Array, sealCaPem: string): Promise<string | undefined> {
  const report = await verifyPdf(sealed, { trustRoots: [sealCaPem] });
  if (!report.readable) return `the sealed file cannot be read back (${report.problems.join('; ')})`;
  const seal = report.signatures.at(-1);
  if (seal === undefined || seal.kind !== 'signature') return 'no seal is found in the sealed file';
  const failed = [
    seal.fieldName === undefined ? 'no signature field of the final document refers to the seal' : undefined,
    seal.coversWholeDocument ? undefined : 'the seal does not cover the whole file',
    seal.digestOk ? undefined : 'the file does not match the seal\'s digest',
    seal.signatureOk ? undefined : 'the seal\'s signature value does not verify',
    seal.modifications.ok ? undefined : `disallowed changes: ${seal.modifications.disallowed.join('; ')}`,
  ].filter((p): p is string => p !== undefined);
  if (failed.length > 0) return [...failed, ...seal.problems.filter((p) => !failed.includes(p))].join('; ');
  try {
    const fields = await listSignatureFields(sealed);
    if (!fields.some((f) => f.name === seal.fieldName && f.signed)) return `read afresh, the file has no signed field ${JSON.stringify(seal.fieldName)}`;
  } catch (error) {
    return `the sealed file cannot be read afresh (${error instanceof Error ? error.message : String(error)})`;
  }
  return undefined;
}
