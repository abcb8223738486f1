/**
 * Document time-stamps for PAdES B-LTA (ETSI EN 319 142-1 §5.5; ISO 32000-2 §12.8.5): a `/Type /DocTimeStamp`
 * signature dictionary with `/SubFilter /ETSI.RFC3161` whose /Contents is an RFC 3161 time-stamp token over the
 * digest of the signed byte ranges, in its own incremental update. Built on the staged placeholder of
 * prepare-signature.ts (prepare → digest → embed), so no second placeholder writer exists.
 */
import { prepareSignature, digestPreparedSignature, embedSignature } from './prepare-signature.js';
import { parseTimestampToken } from './timestamp.js';
import type { HashAlgorithm, Timestamper } from './types.js';

/** Options of `addDocumentTimestamp`. */
export interface AddDocumentTimestampOptions {
  /** Asks the TSA (e.g. `createHttpTimestamper`). */
  readonly timestamper: Timestamper;
  /** Digest of the byte ranges; SHA-256 by default. */
  readonly hash?: HashAlgorithm;
  /** An existing unsigned signature field to hold the time-stamp; by default a new invisible field `DocTimeStamp1`, …. */
  readonly field?: string;
  /** Bytes reserved for the token; 16384 by default. */
  readonly contentsSize?: number;
}

/** The result of `addDocumentTimestamp`. */
export interface AddDocumentTimestampResult {
  /** The document with the time-stamp update appended (the input is an exact prefix). */
  readonly bytes: Uint8Array;
  readonly fieldName: string;
  /** The TSA's time (TSTInfo genTime). */
  readonly time: Date;
}

/**
 * Appends a document time-stamp covering the whole document as it is (B-LTA when it follows `addValidationData`).
 * @example
 * const lt = await addValidationData(signed, { fetcher, now, trustRoots: [root] });
 * const { bytes } = await addDocumentTimestamp(lt.bytes, { timestamper });
 */
export async function addDocumentTimestamp(pdf: Uint8Array, options: AddDocumentTimestampOptions): Promise<AddDocumentTimestampResult> {
  const hash = options.hash ?? 'SHA-256';
  const prepared = await prepareSignature(pdf, {
    type: 'doc-timestamp',
    ...(options.field === undefined ? {} : { field: options.field }),
    ...(options.contentsSize === undefined ? {} : { contentsSize: options.contentsSize }),
  });
  const token = await options.timestamper(digestPreparedSignature(prepared, hash), hash);
  const bytes = embedSignature(prepared, token);
  return { bytes, fieldName: prepared.fieldName, time: parseTimestampToken(token).genTime };
}
