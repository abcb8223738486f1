/**
 * `sealPdf`: the organizational seal (docs/design/signatures.md#seal), a PAdES signature by the organization's seal
 * certificate, applied as the last signature of a document. Visible in the document's unsigned Seal field when it has
 * one (placed by placeFields from a `Seal` Location), otherwise invisible.
 */
import { SigningError } from '../errors.js';
import type { SignatureFieldInfo } from './signature-field.js';
import type { PdfUpdateSession } from '../pdf/incremental.js';
import {
  certificateSubjectName,
  signSessionWithAppearance,
  signWithAppearance,
  type AppearanceSignOptions,
  type SessionSignResult,
  type SignPdfResult,
} from './sign-pdf.js';
import type { SignaturePlacement } from './prepare-signature.js';
import type { HashAlgorithm, Signer, Timestamper } from './types.js';

/** Options of {@link sealPdf}. */
export interface SealPdfOptions {
  /** The seal key and certificate (advanced: the service's seal CA; qualified: PKCS#12 or PKCS#11). */
  readonly signer: Signer;
  readonly signingTime: Date;
  /** Shown in the seal's appearance; by default the seal certificate's organization (O), else its common name. */
  readonly organizationName?: string;
  /** The seal field to fill; by default the first unsigned seal field (see {@link findSealField}), else invisible. */
  readonly field?: string;
  /** A new visible seal at this box when the document has no seal field. */
  readonly placement?: SignaturePlacement;
  readonly timestamper?: Timestamper;
  readonly hash?: HashAlgorithm;
  readonly reason?: string;
  /** The word the appearance prints before the date, e.g. `Verzegeld` in a Dutch document; default `Sealed`. */
  readonly sealedLabel?: string;
  readonly location?: string;
  readonly contactInfo?: string;
  readonly contentsSize?: number;
}

/**
 * The first unsigned signature field that is meant for the seal: its last name part starts with `Seal`
 * (case-insensitive), or its `/TU` is `Seal` (the label placeFields gives a Seal field by default).
 */
function findSealField(fields: readonly SignatureFieldInfo[]): SignatureFieldInfo | undefined {
  return fields.find((f) => {
    if (f.signed) return false;
    const last = f.name.split('.').pop() ?? '';
    return /^seal/i.test(last) || f.description === 'Seal';
  });
}

/**
 * Seals `pdf`: one more PAdES signature, in its own incremental update, whose appearance shows the organization's
 * name and "Sealed" with the date. Earlier signatures stay valid.
 *
 * @example
 * const { bytes } = await sealPdf(signed, { signer: sealSigner, signingTime: now, organizationName: 'Acme B.V.' });
 */
export async function sealPdf(pdf: Uint8Array, options: SealPdfOptions): Promise<SignPdfResult> {
  return signWithAppearance(pdf, sealSignOptions(options));
}

/**
 * {@link sealPdf} on a document already open for an update (e.g. the session of the last signature): seals without
 * parsing the file again; the result's `session` continues after the seal. Same errors as {@link sealPdf}.
 */
export async function sealInSession(session: PdfUpdateSession, options: SealPdfOptions): Promise<SessionSignResult> {
  return signSessionWithAppearance(session, sealSignOptions(options));
}

function sealSignOptions(options: SealPdfOptions): AppearanceSignOptions {
  const head = options.signer.certificateChain[0];
  const organizationName = options.organizationName ?? (head ? certificateSubjectName(head, ['2.5.4.10', '2.5.4.3']) : undefined);
  if (typeof organizationName !== 'string' || organizationName.trim() === '') {
    throw new SigningError('ORGANIZATION_NAME_MISSING', 'The seal needs an organization name to show: pass organizationName (the seal certificate names none).');
  }
  return {
    signer: options.signer,
    signingTime: options.signingTime,
    field: options.field,
    selectField: findSealField,
    placement: options.placement,
    hash: options.hash,
    reason: options.reason ?? 'Sealed',
    location: options.location,
    contactInfo: options.contactInfo,
    timestamper: options.timestamper,
    contentsSize: options.contentsSize,
    fieldNamePrefix: 'Seal',
    appearance: { kind: 'seal', organizationName, ...(options.sealedLabel !== undefined ? { sealedLabel: options.sealedLabel } : {}) },
  };
}
