/**
 * `signPdf`: one PAdES signature (ETSI EN 319 142-1 B-B, or B-T with a time-stamper) in its own incremental update
 * (docs/design/signatures.md#pades), over the staged API of prepare-signature.ts and the CMS of cms.ts.
 */
import './crypto-engine.js';
import * as pkijs from 'pkijs';
import { SigningError } from '../errors.js';
import type { SignatureAppearance } from './appearance.js';
import { buildCmsSignature } from './cms.js';
import type { DocMdpPermission } from './docmdp.js';
import { continueUpdates, type PdfUpdateSession } from '../pdf/incremental.js';
import {
  digestPreparedSignature,
  embedSignatureInPlace,
  prepareSignature,
  prepareSignatureInSession,
  type PrepareSignatureOptions,
  type PreparedSignature,
  type SignaturePlacement,
} from './prepare-signature.js';
import type { HashAlgorithm, Signer, Timestamper } from './types.js';

/** Options of {@link signPdf}. */
export interface SignPdfOptions {
  readonly signer: Signer;
  /** Written as `/M`; the CMS carries no signingTime. */
  readonly signingTime: Date;
  /** The signature field to fill (e.g. `sig1.Signer1`); with `placement`, created when missing. */
  readonly field?: string;
  /** A new visible field at this box (reader coordinates); without `field` and `placement` the signature is invisible. */
  readonly placement?: SignaturePlacement;
  /** SHA-256 by default. */
  readonly hash?: HashAlgorithm;
  readonly reason?: string;
  readonly location?: string;
  readonly contactInfo?: string;
  /** What the widget shows. `name` defaults to the certificate's common name; `date` to the signing time. */
  readonly appearance?: { readonly name?: string; readonly date?: string; readonly image?: Uint8Array };
  /** Adds a signature time-stamp (B-T). */
  readonly timestamper?: Timestamper;
  /** Certifies the document (first signature only): 1 no changes, 2 form fill and signing, 3 also annotations. */
  readonly docMdp?: DocMdpPermission;
  /** Bytes reserved for the CMS; 16384 by default. */
  readonly contentsSize?: number;
}

/** The result of {@link signPdf} and `sealPdf`. */
export interface SignPdfResult {
  /** The signed document: the input unchanged, followed by the signature's incremental update. */
  readonly bytes: Uint8Array;
  /** The fully qualified name of the field that holds the signature. */
  readonly fieldName: string;
}

/**
 * A display name from the subject of a DER certificate: the first attribute present among `prefer` (OIDs; common
 * name, then organization, by default), else the first attribute.
 */
export function certificateSubjectName(der: Uint8Array, prefer: readonly string[] = ['2.5.4.3', '2.5.4.10']): string | undefined {
  // A signer's certificate is parsed for every signature it makes: remember the answer per certificate object.
  let names = subjectNames.get(der);
  if (names === undefined) subjectNames.set(der, (names = new Map()));
  const key = prefer.join(' ');
  if (!names.has(key)) names.set(key, parseSubjectName(der, prefer));
  return names.get(key);
}

const subjectNames = new WeakMap<Uint8Array, Map<string, string | undefined>>();

function parseSubjectName(der: Uint8Array, prefer: readonly string[]): string | undefined {
  try {
    const certificate = pkijs.Certificate.fromBER(der.buffer.slice(der.byteOffset, der.byteOffset + der.byteLength) as ArrayBuffer);
    const attributes = certificate.subject.typesAndValues;
    const chosen = prefer.map((oid) => attributes.find((a) => a.type === oid)).find((a) => a !== undefined) ?? attributes[0];
    const value = chosen?.value.valueBlock as { value?: unknown } | undefined;
    return typeof value?.value === 'string' ? value.value : undefined;
  } catch {
    return undefined;
  }
}

/** The result of {@link signInSession}. */
export interface SessionSignResult extends SignPdfResult {
  /** The same parse, open for the next update after this signature (the next signature covers this one). */
  readonly session: PdfUpdateSession;
}

export type AppearanceSignOptions = Omit<SignPdfOptions, 'appearance'> & {
  readonly appearance?: SignatureAppearance;
  readonly fieldNamePrefix?: string;
  readonly selectField?: PrepareSignatureOptions['selectField'];
};

/** Runs prepare → digest → CMS → embed for a prepared appearance; shared by signPdf and sealPdf. */
export async function signWithAppearance(pdf: Uint8Array, options: AppearanceSignOptions): Promise<SignPdfResult> {
  checkSigner(options);
  const prepared = await prepareSignature(pdf, prepareOptions(options));
  return { bytes: await embedCms(prepared, options), fieldName: prepared.fieldName };
}

/** {@link signWithAppearance} on an open session (see {@link signInSession}); shared by signInSession and sealInSession. */
export async function signSessionWithAppearance(session: PdfUpdateSession, options: AppearanceSignOptions): Promise<SessionSignResult> {
  checkSigner(options);
  const prepared = await prepareSignatureInSession(session, prepareOptions(options));
  const bytes = await embedCms(prepared, options);
  return { bytes, fieldName: prepared.fieldName, session: continueUpdates(session, bytes) };
}

function checkSigner(options: AppearanceSignOptions): void {
  const hash = options.hash ?? 'SHA-256';
  if (!['SHA-256', 'SHA-384', 'SHA-512'].includes(hash)) {
    throw new SigningError('HASH_UNSUPPORTED', `Hash algorithm "${String(hash)}" is not supported: use SHA-256, SHA-384 or SHA-512.`);
  }
  if (options.signer.certificateChain.length === 0) {
    throw new SigningError('SIGNER_NO_CERTIFICATE', "The signer's certificate chain is empty: it must start with the signer's own certificate.");
  }
}

function prepareOptions(options: AppearanceSignOptions): PrepareSignatureOptions {
  return {
    type: 'signature',
    field: options.field,
    placement: options.placement,
    signingTime: options.signingTime,
    reason: options.reason,
    location: options.location,
    contactInfo: options.contactInfo,
    appearance: options.appearance,
    docMdp: options.docMdp,
    contentsSize: options.contentsSize,
    fieldNamePrefix: options.fieldNamePrefix,
    selectField: options.selectField,
  };
}

/** Digests the prepared file, builds the CMS and writes it into the placeholder (in place). */
async function embedCms(prepared: PreparedSignature, options: AppearanceSignOptions): Promise<Uint8Array> {
  const hash = options.hash ?? 'SHA-256';
  const contentDigest = digestPreparedSignature(prepared, hash);
  const der = await buildCmsSignature({ signer: options.signer, contentDigest, hash, timestamper: options.timestamper });
  return embedSignatureInPlace(prepared, der);
}

function signatureAppearance(options: SignPdfOptions): SignatureAppearance | undefined {
  const chainHead = options.signer.certificateChain[0];
  return options.appearance || options.placement || options.field
    ? {
        kind: 'signature',
        name: options.appearance?.name ?? (chainHead ? certificateSubjectName(chainHead) : undefined) ?? 'Signed',
        ...(options.appearance?.image ? { image: options.appearance.image } : {}),
        ...(options.appearance?.date ? { date: options.appearance.date } : {}),
      }
    : undefined;
}

/**
 * Signs `pdf` with one PAdES signature in a new incremental update: fills the unsigned signature field `field`
 * (or creates one at `placement`, or an invisible one), with `/SubFilter /ETSI.CAdES.detached`, `/M` from
 * `signingTime`, and a CMS with signing-certificate-v2 and no signingTime. Earlier signatures stay valid.
 *
 * @example
 * const { bytes, fieldName } = await signPdf(pdf, {
 *   signer, signingTime: new Date('2026-11-21T10:00:00Z'), field: 'sig1.Signer1',
 *   appearance: { name: 'Zoë Janssen', image: scribblePng },
 * });
 */
export async function signPdf(pdf: Uint8Array, options: SignPdfOptions): Promise<SignPdfResult> {
  return signWithAppearance(pdf, { ...options, appearance: signatureAppearance(options) });
}

/**
 * {@link signPdf} on a document already open for an update (`openPdfForUpdate`, or the `session` of an earlier
 * signature): signs without parsing the file again. The signature's incremental update also holds whatever else the
 * session changed and covers everything before it; the result's `session` continues after it, so N signatures of
 * one document cost one parse. Same errors as {@link signPdf}.
 */
export function signInSession(session: PdfUpdateSession, options: SignPdfOptions): Promise<SessionSignResult> {
  return signSessionWithAppearance(session, { ...options, appearance: signatureAppearance(options) });
}
