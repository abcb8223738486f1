/**
 * Preparing a document for signing (decisions.md §3, §4): its metadata's fields and a default signature field for
 * each signer the metadata gives none, placed in one incremental update. Upload does it as soon as the PDF is there
 * (so a document start could not prepare is refused at upload) and keeps the result; start reuses it while the
 * preparation key (PDF, metadata, signers) still matches, and prepares again only when it does not.
 */
import { preparationKey, type StoredFile } from '../domain/transaction.js';
import { PdfParseError, PlacementError, isInputError, type ParaphError } from '../errors.js';
import { placeFieldsFromMetadata } from '../pdf/place-fields-from-metadata.js';
import type { ServiceContext } from './context.js';

/** A prepared document: the blob of the PDF with its fields, and where the fields are. */
export interface PreparedDocument {
  readonly sha256: string;
  readonly size: number;
  readonly key: string;
  readonly placements: NonNullable<StoredFile['Placements']>;
}

/**
 * Prepares `pdf` (the bytes of `file.Original`) for `signerIds` and stores the result as a blob.
 *
 * @throws PlacementError (the metadata does not fit the document), PdfParseError (the PDF cannot be prepared; its
 *   message says so), as input errors.
 */
export async function prepareDocument(
  ctx: ServiceContext,
  file: StoredFile,
  pdf: Uint8Array,
  signerIds: readonly string[],
): Promise<PreparedDocument> {
  const key = preparationKey(file, signerIds);
  if (key === undefined) throw new Error(`File ${file.FileId} has no PDF to prepare.`);
  let prepared;
  try {
    prepared = await placeFieldsFromMetadata(pdf, file.Metadata ?? {}, { signerIds: [...signerIds], fileId: file.FileId });
  } catch (error) {
    // The metadata's own placement errors name its fields; anything else is the document's fault.
    if (!isInputError(error) || (error instanceof PlacementError && file.Metadata !== undefined)) throw error;
    const code = String((error as { code?: unknown }).code);
    if (code === 'PDF_NO_PAGES') {
      // pdf-lib found pages that pdf.js (in the text index's workers) cannot: the page tree is damaged.
      throw new PdfParseError('PDF_UNREADABLE', "The PDF's page tree is damaged (pdf.js can read none of the pages it lists): repair or re-save the document.");
    }
    // What pdf.js says when it cannot open the document is the answer as it is.
    if (OPEN_FAILURES.has(code)) throw error;
    throw new PdfParseError((error as ParaphError).code, `The PDF cannot be prepared for signing: ${(error as Error).message}`);
  }
  const blob = await ctx.store.blobs.write(prepared.bytes);
  return { sha256: blob.sha256, size: blob.size, key, placements: prepared.placements };
}

/** Refusals of a document pdf.js cannot open at all. */
const OPEN_FAILURES = new Set(['PDF_UNREADABLE', 'PDF_ENCRYPTED', 'PDF_EMPTY', 'PDF_NOT_A_PDF']);

/** `file`'s upload-time preparation when it was made from what `file` and `signerIds` are now, else undefined. */
export function reusablePreparation(file: StoredFile, signerIds: readonly string[]): PreparedDocument | undefined {
  const key = preparationKey(file, signerIds);
  if (key === undefined || file.Prepared === undefined || file.Prepared.key !== key || file.Placements === undefined) return undefined;
  return { sha256: file.Prepared.sha256, size: file.Prepared.size, key, placements: file.Placements };
}
