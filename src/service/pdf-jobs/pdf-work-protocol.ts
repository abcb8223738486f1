/** Messages between pdf-work.ts and its child process (pdf-work-worker.ts): plain data, advanced IPC serialization. */
import { ParaphError, ValidationError } from '../../errors.js';
import type { DocumentFacts } from '../../pdf/document-facts.js';
import type { FileMetaData } from '../../pdf/file-metadata.js';
import type { ResolvedPlacements } from '../../pdf/resolve-placements.js';
import type { TextEngine } from '../../pdf/text-index/text-engine.js';
import type { IndexLimits } from '../../pdf/text-index/limits.js';
import type { PdfNormalization } from '../../pdf/normalize-pdf.js';
import type { PageGeometry } from '../../pdf/page-geometry.js';
import type { FieldPlacement } from '../../pdf/resolve-locations.js';
import type { HashAlgorithm, SignatureScheme } from '../../pades/types.js';
import type { ParaphStamp } from '../signer/fill-form-fields.js';
import type { NormalizedScribble } from '../signer/scribble-image.js';
import type { NormalizedLogo } from '../branding/logo-header.js';
import type { FieldValue } from '../signer/signer-fields.js';

/**
 * The public half of a key the serving process holds: the child builds the CMS around it and asks the host, through
 * a {@link PdfJobCall}, for each signature value. The key itself never reaches the child.
 */
export interface RemoteSignerInfo {
  readonly party: 'signer' | 'seal';
  readonly certificateChain: readonly Uint8Array[];
  readonly scheme: SignatureScheme;
}

/** A seal to apply (sealInSession's options less the key), checked as readers would when `checkWithCaPem` is given. */
export interface SealStep {
  readonly signer: RemoteSignerInfo;
  readonly signingTime: Date;
  readonly sealedLabel: string;
  /** Asks the host for a signature time-stamp (B-T). */
  readonly timestamp: boolean;
  /** The seal CA: the sealed output is checked (check-sealed-output.ts) and the problem, if any, answered. */
  readonly checkWithCaPem?: string;
}
import type { RemoteSpan } from '../observability/tracing.js';
import type { RenderReceiptOptions } from '../../receipt/receipt.js';

/** A PDF step of the service: each reads or writes a PDF in a PDF process. */
export type PdfJob =
  /**
   * `normalizePdf`, then the page count of what paraph works on and, up to `maxPages` pages, its facts for
   * `resolvePlacements`.
   */
  | { readonly kind: 'open'; readonly bytes: Uint8Array; readonly normalizeMs: number; readonly maxPages?: number }
  /** `documentFacts` of the PDF. */
  | { readonly kind: 'facts'; readonly bytes: Uint8Array }
  /** `resolvePlacements` (the text index read in this process, under the job's budget). */
  | {
      readonly kind: 'resolve';
      readonly bytes: Uint8Array;
      readonly metadata: FileMetaData | Readonly<Record<string, never>>;
      readonly signerIds: readonly string[];
      readonly fileId: string;
      readonly document: DocumentFacts;
      readonly engine: TextEngine;
      readonly limits: IndexLimits;
    }
  /** `checkPlacements` on the PDF opened afresh. */
  | { readonly kind: 'check'; readonly bytes: Uint8Array; readonly placements: readonly FieldPlacement[]; readonly pages: readonly PageGeometry[] }
  /** `rewritePdf`: a clean one-revision copy of an unsigned document. */
  | { readonly kind: 'rewrite'; readonly bytes: Uint8Array; readonly timeoutMs: number }
  /** `placeFields`. */
  | {
      readonly kind: 'place';
      readonly bytes: Uint8Array;
      readonly placements: readonly FieldPlacement[];
      readonly pages?: readonly PageGeometry[];
      /** Labels of unsigned Signature/Seal fields by field name; the others get placeFields' default. */
      readonly labels?: Readonly<Record<string, string>>;
      /** Alternate names (/TU, the tooltips) by field name: the fields' Labels and Tooltips. */
      readonly alternateNames?: Readonly<Record<string, string>>;
    }
  /** `normalizeScribblePng`: a signer's drawn signature decoded and re-encoded by paraph. */
  | { readonly kind: 'scribble'; readonly bytes: Uint8Array }
  /** `normalizeLogo`: an account's logo checked, decoded and re-encoded by paraph. */
  | { readonly kind: 'logo'; readonly bytes: Uint8Array }
  /**
   * A signer's work on one document from one parse: `fillFormFieldsInSession`, then `signInSession` for each field
   * (the signature values asked of the host), then, for the last signer of a sealed transaction, the seal.
   */
  | {
      readonly kind: 'sign';
      readonly bytes: Uint8Array;
      readonly values: readonly FieldValue[];
      readonly paraph?: ParaphStamp;
      readonly signer: RemoteSignerInfo;
      readonly fields: readonly string[];
      readonly signingTime: Date;
      readonly appearance: { readonly name: string; readonly date: string; readonly image?: Uint8Array };
      readonly timestamp: boolean;
      readonly seal?: SealStep;
    }
  /** `sealPdf`, checked when the step says so. */
  | { readonly kind: 'seal'; readonly bytes: Uint8Array; readonly seal: SealStep }
  /** `buildReceipt`: the evidential receipt rendered from plain data and sealed (unchecked) in the same job. */
  | { readonly kind: 'receipt'; readonly receipt: RenderReceiptOptions; readonly seal: SealStep };

/** A sealed document and, when it was checked and readers would not validate the seal, why. */
export interface SealedDocument {
  readonly bytes: Uint8Array;
  readonly problem?: string;
}

/** What each kind of job answers. */
export interface PdfJobResults {
  /** `bytes` and `normalization` only when the document was rewritten. */
  open: { pageCount: number; facts?: DocumentFacts; bytes?: Uint8Array; normalization?: PdfNormalization };
  facts: DocumentFacts;
  resolve: ResolvedPlacements;
  check: Record<string, never>;
  place: { bytes: Uint8Array };
  rewrite: { bytes: Uint8Array };
  scribble: NormalizedScribble;
  logo: NormalizedLogo;
  /** `bytes`: the document after the signer's signatures; `sealed` when the job sealed it too. */
  sign: { bytes: Uint8Array; sealed?: SealedDocument };
  seal: SealedDocument;
  receipt: { bytes: Uint8Array };
}

/**
 * What a running job asks of the host (child → host `{ id, call }`): a signature value over the CMS signed
 * attributes with the named key, or a time-stamp token over a digest. `n` numbers the calls of one job.
 */
export type PdfJobCall =
  | { readonly n: number; readonly op: 'sign'; readonly party: RemoteSignerInfo['party']; readonly data: Uint8Array; readonly hash: HashAlgorithm }
  | { readonly n: number; readonly op: 'timestamp'; readonly data: Uint8Array; readonly hash: HashAlgorithm };

/** The host's answer to a call (host → child `{ id, answer }`). */
export type PdfJobAnswer = { readonly n: number; readonly ok: true; readonly value: Uint8Array } | { readonly n: number; readonly ok: false; readonly error: PdfJobError };

/** A failed job's error as data (pdf-work.ts makes the typed error again). */
export type PdfJobError =
  | { kind: 'validation'; code: string; message: string; issues: string[] }
  | { kind: 'placement' | 'parse' | 'paraph'; code: string; message: string; origin: 'input' | 'internal' }
  | { kind: 'internal'; message: string };

/** The answer to a job; `span` is the process's span of it when the message carried a sampled `traceparent`. */
export type PdfJobReply = ({ id: number; ok: true; result: unknown } | { id: number; ok: false; error: PdfJobError }) & { span?: RemoteSpan };

/** Host → child: a job to run, or the answer to one of its calls. */
export type PdfHostMessage = PdfJobMessage | { id: number; answer: PdfJobAnswer };
/** Child → host: loaded, a job's end, or a call of a running job. */
export type PdfChildMessage = { ready: true } | PdfJobReply | { id: number; call: PdfJobCall };

/** An error as plain data the other side turns back into the same typed error. */
export function errorAsData(error: unknown): PdfJobError {
  if (error instanceof ValidationError) return { kind: 'validation', code: error.code, message: error.message, issues: [...error.issues] };
  if (error instanceof ParaphError) {
    const kind = error.name === 'PlacementError' ? 'placement' : error.name === 'PdfParseError' || error.name === 'PdfTooComplexError' ? 'parse' : 'paraph';
    return { kind, code: error.code, message: error.message, origin: error.origin };
  }
  return { kind: 'internal', message: error instanceof Error ? error.message : String(error) };
}

/** A job handed to the process; `traceparent` when tracing is on: the process then times its work as a child span. */
export interface PdfJobMessage {
  readonly id: number;
  readonly job: PdfJob;
  readonly traceparent?: string;
}
