/**
 * Preparing a document for signing (docs/design/files.md#preparation-at-upload): its metadata's fields and a default
 * signature field for each signer the metadata gives none. Upload resolves where they go as soon as the PDF is there,
 * and checks that they can be written there (so a document start could not prepare is refused at upload), without
 * writing anything; start writes them in one incremental update at the placements upload resolved while the
 * preparation key (PDF, metadata, signers) still matches, and resolves again only when it does not. The pdf-lib
 * steps (reading the page geometry and the PDF's own fields, resolving, text search, checking, writing) run as jobs
 * of pdf-work.ts's processes.
 */
import { preparationKey, type StoredFile } from '../domain/transaction.js';
import { PdfParseError, PlacementError, isInputError, type ParaphError } from '../errors.js';
import type { DocumentFacts } from '../pdf/document-facts.js';
import { fieldAlternateName, fieldSpecOf } from '../pdf/file-metadata.js';
import type { ResolvedPlacements } from '../pdf/resolve-placements.js';
import type { FieldPlacement } from '../pdf/resolve-locations.js';
import { defaultTextEngine } from '../pdf/text-index/text-engine.js';
import { resolveIndexLimits } from '../pdf/text-index/limits.js';
import type { ServiceContext } from './context.js';
import { DEFAULT_PDF_WORK_LIMITS, runPdfJob, type PdfWorkLimits } from './pdf-jobs/pdf-work.js';

type Placements = NonNullable<StoredFile['Placements']>;

/** Where a document's fields go, and the key of what that was resolved from. */
export interface ResolvedDocument {
  readonly key: string;
  readonly placements: Placements;
}

/** A prepared document: the blob of the PDF with its fields, and where the fields are. */
export interface PreparedDocument {
  readonly sha256: string;
  readonly size: number;
  readonly placements: Placements;
}

/**
 * Resolves the placements of `file` for `signerIds` on `pdf` (the bytes of `file.Original`) and checks that they can
 * be placed on it; writes nothing.
 *
 * @throws PlacementError (the metadata does not fit the document), PdfParseError (the PDF cannot be prepared; its
 *   message says so, `PDF_TOO_COMPLEX` past the budget of pdf-work.ts), as input errors.
 */
export async function resolveDocument(
  ctx: ServiceContext,
  file: StoredFile,
  pdf: Uint8Array,
  signerIds: readonly string[],
  facts?: DocumentFacts,
): Promise<ResolvedDocument> {
  const key = keyOf(file, signerIds);
  try {
    const document = facts ?? (await readFacts(ctx, file, pdf));
    const resolved = await resolveInPool(ctx, file, pdf, signerIds, document);
    const pages = resolved.pages;
    // With no field to write (seal-only, or only the PDF's own fields) there is nothing to check against the PDF.
    if (resolved.placements.some((p) => p.existing !== true)) {
      await runPdfJob({ kind: 'check', bytes: pdf, placements: resolved.placements, pages }, ctx.settings.pdfWork, { pageCount: pages.length, trace: ctx.trace });
    }
    return { key, placements: resolved.placements };
  } catch (error) {
    throw preparationError(file, error);
  }
}

/**
 * Places the fields of `file` on `pdf` (the bytes of `file.Original`) and stores the result as a blob: at the
 * placements of `resolved` when given (resolved by {@link resolveDocument} for the same key), else resolved now.
 *
 * @throws as {@link resolveDocument}.
 */
export async function prepareDocument(
  ctx: ServiceContext,
  file: StoredFile,
  pdf: Uint8Array,
  signerIds: readonly string[],
  resolved?: ResolvedDocument,
  texts?: FieldTexts,
): Promise<PreparedDocument> {
  let prepared;
  try {
    if (resolved && resolved.placements.every((p) => p.existing === true)) {
      // Nothing to write (a seal-only document, or only the PDF's own fields): the job would give the bytes back.
      prepared = { bytes: pdf, placements: resolved.placements };
    } else if (resolved) {
      const labels = fieldLabels(file, resolved.placements, texts);
      const placed = await runPdfJob({ kind: 'place', bytes: pdf, placements: resolved.placements, ...labels }, ctx.settings.pdfWork, { pageCount: file.Original?.pages ?? 0, trace: ctx.trace });
      prepared = { bytes: placed.bytes, placements: resolved.placements };
    } else {
      const document = await readFacts(ctx, file, pdf);
      const again = await resolveInPool(ctx, file, pdf, signerIds, document);
      const pages = again.pages;
      const labels = fieldLabels(file, again.placements, texts);
      const placed = await runPdfJob({ kind: 'place', bytes: pdf, placements: again.placements, pages, ...labels }, ctx.settings.pdfWork, { pageCount: pages.length, trace: ctx.trace });
      prepared = { bytes: placed.bytes, placements: again.placements };
    }
  } catch (error) {
    throw preparationError(file, error);
  }
  const blob = await ctx.store.blobs.write(prepared.bytes);
  return { sha256: blob.sha256, size: blob.size, placements: prepared.placements };
}

/**
 * The words paraph writes into a document's fields, in the document's (the transaction's) language: what an unsigned
 * signature box says ("Sign here" and each signer's name where known), and the language the FileMetaData Labels and
 * Tooltips are chosen in for the fields' tooltips (/TU).
 */
export interface FieldTexts {
  readonly signHere: string;
  /** Signer Id → the name to show (ScribbleName); a signer without one is not named (never by Id or e-mail). */
  readonly names: Readonly<Record<string, string>>;
  /** The transaction's language. */
  readonly language: string;
}

/** The Sign-here labels and the alternate names (/TU) of the fields placed, by field name. */
function fieldLabels(
  file: StoredFile,
  placements: readonly FieldPlacement[],
  texts: FieldTexts | undefined,
): { labels?: Record<string, string>; alternateNames?: Record<string, string> } {
  if (texts === undefined) return {};
  const labels: Record<string, string> = {};
  const alternateNames: Record<string, string> = {};
  for (const p of placements) {
    if (p.existing === true) continue;
    const spec = p.type === 'Radio' ? undefined : fieldSpecOf(file.Metadata, p.formSet, p.fieldKey);
    const alternate = spec === undefined ? undefined : fieldAlternateName(spec, [texts.language]);
    if (alternate !== undefined) alternateNames[p.field] = alternate;
    if (p.type !== 'Signature') continue;
    const names = p.signerIds.map((id) => texts.names[id]).filter((n): n is string => n !== undefined && n.trim() !== '');
    labels[p.field] = names.length > 0 ? `${texts.signHere}: ${names.join(', ')}` : texts.signHere;
  }
  return { labels, ...(Object.keys(alternateNames).length > 0 ? { alternateNames } : {}) };
}

/**
 * `resolvePlacements` in a PDF process: the text index (Search locations, the {{SignerN}} tags of default signature
 * fields) is read there, under the text index's limits as the job's budget (its whole-document time, its memory cap
 * as the process's resident-memory cap) and the pool's heap cap.
 */
function resolveInPool(ctx: ServiceContext, file: StoredFile, pdf: Uint8Array, signerIds: readonly string[], document: DocumentFacts): Promise<ResolvedPlacements> {
  // Without signers (no default signature field to look for) and without a Search, the job reads no PDF (the facts
  // the upload job read are all it takes); it still runs in a PDF process, which alone loads the resolver.
  const index = resolveIndexLimits(undefined);
  const work = ctx.settings.pdfWork ?? DEFAULT_PDF_WORK_LIMITS;
  // The same heap cap as every other job, so that the pool's processes serve every kind of job (a process is reused
  // only for a job of its own heap cap).
  const limits: PdfWorkLimits = { maxHeapMb: work.maxHeapMb, maxRssMb: index.maxRssMb, baseMs: index.baseMs, perPageMs: index.perPageMs };
  return runPdfJob(
    { kind: 'resolve', bytes: pdf, metadata: file.Metadata ?? {}, signerIds, fileId: file.FileId, document, engine: defaultTextEngine(), limits: index },
    limits,
    { pageCount: document.pages.length, trace: ctx.trace },
  );
}

function readFacts(ctx: ServiceContext, file: StoredFile, pdf: Uint8Array): Promise<DocumentFacts> {
  return runPdfJob({ kind: 'facts', bytes: pdf }, ctx.settings.pdfWork, { pageCount: file.Original?.pages ?? 0, trace: ctx.trace });
}

/** What upload resolved for `file`, when it was resolved from what `file` and `signerIds` are now; else undefined. */
export function reusableResolution(file: StoredFile, signerIds: readonly string[]): ResolvedDocument | undefined {
  const key = preparationKey(file, signerIds);
  if (key === undefined || file.Prepared?.key !== key || file.Placements === undefined) return undefined;
  return { key, placements: file.Placements };
}

function keyOf(file: StoredFile, signerIds: readonly string[]): string {
  const key = preparationKey(file, signerIds);
  if (key === undefined) throw new Error(`File ${file.FileId} has no PDF to prepare.`);
  return key;
}

/** Refusals of a document pdf.js cannot open at all. */
const OPEN_FAILURES = new Set(['PDF_UNREADABLE', 'PDF_ENCRYPTED', 'PDF_EMPTY', 'PDF_NOT_A_PDF']);

/** What to answer for `error`, thrown while preparing `file`. */
function preparationError(file: StoredFile, error: unknown): unknown {
  // The metadata's own placement errors name its fields; anything else is the document's fault.
  if (!isInputError(error) || (error instanceof PlacementError && file.Metadata !== undefined)) return error;
  const code = String((error as { code?: unknown }).code);
  if (code === 'PDF_NO_PAGES') {
    // pdf-lib found pages that pdf.js (in the text index's workers) cannot: the page tree is damaged.
    return new PdfParseError('PDF_UNREADABLE', "The PDF's page tree is damaged (pdf.js can read none of the pages it lists): repair or re-save the document.");
  }
  // What pdf.js says when it cannot open the document is the answer as it is.
  if (OPEN_FAILURES.has(code)) return error;
  return new PdfParseError((error as ParaphError).code, `The PDF cannot be prepared for signing: ${(error as Error).message}`);
}
