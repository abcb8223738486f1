/** Messages between pdf-work.ts and its child process (pdf-work-worker.ts): plain data, advanced IPC serialization. */
import type { DocumentFacts } from '../pdf/document-facts.js';
import type { PdfNormalization } from '../pdf/normalize-pdf.js';
import type { PageGeometry } from '../pdf/page-geometry.js';
import type { FieldPlacement } from '../pdf/resolve-locations.js';
import type { NormalizedScribble } from './signer/scribble-image.js';
import type { RemoteSpan } from './tracing.js';

/** A pdf-lib step of the service. */
export type PdfJob =
  /**
   * `normalizePdf`, then the page count of what paraph works on and, up to `maxPages` pages, its facts for
   * `resolvePlacements`.
   */
  | { readonly kind: 'open'; readonly bytes: Uint8Array; readonly normalizeMs: number; readonly maxPages?: number }
  /** `documentFacts` of the PDF. */
  | { readonly kind: 'facts'; readonly bytes: Uint8Array }
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
    }
  /** `normalizeScribblePng`: a signer's drawn signature decoded and re-encoded by paraph. */
  | { readonly kind: 'scribble'; readonly bytes: Uint8Array };

/** What each kind of job answers. */
export interface PdfJobResults {
  /** `bytes` and `normalization` only when the document was rewritten. */
  open: { pageCount: number; facts?: DocumentFacts; bytes?: Uint8Array; normalization?: PdfNormalization };
  facts: DocumentFacts;
  check: Record<string, never>;
  place: { bytes: Uint8Array };
  rewrite: { bytes: Uint8Array };
  scribble: NormalizedScribble;
}

/** A failed job's error as data (pdf-work.ts makes the typed error again). */
export type PdfJobError =
  | { kind: 'validation'; code: string; message: string; issues: string[] }
  | { kind: 'placement' | 'parse' | 'paraph'; code: string; message: string; origin: 'input' | 'internal' }
  | { kind: 'internal'; message: string };

/** A job handed to the process; `traceparent` when tracing is on: the process then times its work as a child span. */
export interface PdfJobMessage {
  readonly id: number;
  readonly job: PdfJob;
  readonly traceparent?: string;
}

/** The answer to a job; `span` is the process's span of it when the message carried a sampled `traceparent`. */
export type PdfJobReply = ({ id: number; ok: true; result: unknown } | { id: number; ok: false; error: PdfJobError }) & { span?: RemoteSpan };
