/**
 * The CMS SignedData of a PAdES signature (ETSI EN 319 142-1 §5.1, ETSI EN 319 122-1 §5, RFC 5652): detached,
 * one SignerInfo, signed attributes content-type, message-digest and signing-certificate-v2 (RFC 5035, with
 * issuerSerial), no signingTime (PAdES puts the time in the signature dictionary's /M), the signer's chain embedded,
 * and optionally the signature-time-stamp unsigned attribute (B-T) over the signature value.
 */
import './crypto-engine.js';
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { SigningError } from '../errors.js';
import type { HashAlgorithm, Signer, Timestamper } from './types.js';

/** Object identifiers used in the SignedData. */
export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsassaPss: '1.2.840.113549.1.1.10',
  mgf1: '1.2.840.113549.1.1.8',
} as const;

const DIGEST_OID: Record<HashAlgorithm, string> = {
  'SHA-256': '2.16.840.1.101.3.4.2.1',
  'SHA-384': '2.16.840.1.101.3.4.2.2',
  'SHA-512': '2.16.840.1.101.3.4.2.3',
};
const RSA_OID: Record<HashAlgorithm, string> = {
  'SHA-256': '1.2.840.113549.1.1.11',
  'SHA-384': '1.2.840.113549.1.1.12',
  'SHA-512': '1.2.840.113549.1.1.13',
};
const ECDSA_OID: Record<HashAlgorithm, string> = {
  'SHA-256': '1.2.840.10045.4.3.2',
  'SHA-384': '1.2.840.10045.4.3.3',
  'SHA-512': '1.2.840.10045.4.3.4',
};
const HASH_LENGTH: Record<HashAlgorithm, number> = { 'SHA-256': 32, 'SHA-384': 48, 'SHA-512': 64 };

/** Node's name of a hash algorithm (`sha256`, …). */
export function nodeHashName(hash: HashAlgorithm): string {
  return hash.replace('-', '').toLowerCase();
}

/** Hashes `data` with `hash`. */
export function digestBytes(data: Uint8Array, hash: HashAlgorithm): Uint8Array {
  return new Uint8Array(createHash(nodeHashName(hash)).update(data).digest());
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function parseCertificate(der: Uint8Array, position: number): pkijs.Certificate {
  try {
    return pkijs.Certificate.fromBER(toArrayBuffer(der));
  } catch (error) {
    throw new SigningError(
      'SIGNER_CERTIFICATE_INVALID',
      `Certificate #${position + 1} of the signer's chain is not a DER X.509 certificate: hand in DER bytes, not PEM.`,
      { cause: error },
    );
  }
}

function digestAlgorithm(hash: HashAlgorithm): pkijs.AlgorithmIdentifier {
  return new pkijs.AlgorithmIdentifier({ algorithmId: DIGEST_OID[hash] });
}

/** The SignerInfo signatureAlgorithm for the signer's scheme and hash. */
export function signatureAlgorithm(signer: Signer, hash: HashAlgorithm): pkijs.AlgorithmIdentifier {
  switch (signer.scheme) {
    case 'RSASSA-PKCS1-v1_5':
      return new pkijs.AlgorithmIdentifier({ algorithmId: RSA_OID[hash], algorithmParams: new asn1js.Null() });
    case 'ECDSA':
      return new pkijs.AlgorithmIdentifier({ algorithmId: ECDSA_OID[hash] });
    case 'RSA-PSS': {
      // A signer may declare its own PSS parameters; otherwise MGF1 with the same hash and salt = hash length.
      const declared = (signer as Partial<{ pssParameters(h: HashAlgorithm): { saltLength: number } }>).pssParameters;
      const saltLength = declared ? declared.call(signer, hash).saltLength : HASH_LENGTH[hash];
      const params = new pkijs.RSASSAPSSParams({
        hashAlgorithm: digestAlgorithm(hash),
        maskGenAlgorithm: new pkijs.AlgorithmIdentifier({
          algorithmId: OID.mgf1,
          algorithmParams: digestAlgorithm(hash).toSchema(),
        }),
        saltLength,
      });
      return new pkijs.AlgorithmIdentifier({ algorithmId: OID.rsassaPss, algorithmParams: params.toSchema() });
    }
    default:
      throw new SigningError('UNSUPPORTED_SIGNATURE_SCHEME', `Unsupported signature scheme "${String(signer.scheme)}": use RSASSA-PKCS1-v1_5, RSA-PSS or ECDSA.`);
  }
}

/** ESS signing-certificate-v2 (RFC 5035): the hash of the signer's certificate plus its issuer and serial. */
function signingCertificateV2(certificate: pkijs.Certificate, certificateDer: Uint8Array, hash: HashAlgorithm): asn1js.Sequence {
  const issuerSerial = new asn1js.Sequence({
    value: [
      // GeneralNames with one directoryName [4] (explicit: Name is a CHOICE).
      new asn1js.Sequence({
        value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [certificate.issuer.toSchema()] })],
      }),
      certificate.serialNumber,
    ],
  });
  const essCertIdV2 = new asn1js.Sequence({
    value: [
      // hashAlgorithm DEFAULT sha256: DER leaves a default out.
      ...(hash === 'SHA-256' ? [] : [digestAlgorithm(hash).toSchema()]),
      new asn1js.OctetString({ valueHex: toArrayBuffer(digestBytes(certificateDer, hash)) }),
      issuerSerial,
    ],
  });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return a.length - b.length;
}

/** The pieces of a SignerInfo before the signature value exists. */
export interface PreparedSignerInfo {
  /** DER of the signed attributes as a SET: exactly what the signer signs. */
  readonly toBeSigned: Uint8Array;
  readonly signerInfo: pkijs.SignerInfo;
  readonly certificates: readonly pkijs.Certificate[];
}

/**
 * Builds the signed attributes for a detached signature over content whose digest is `contentDigest`, for the
 * first certificate of `certificateChain`. Attributes are sorted by encoding, as DER orders a SET OF.
 */
export function prepareSignerInfo(options: {
  certificateChain: readonly Uint8Array[];
  signer: Signer;
  hash: HashAlgorithm;
  contentDigest: Uint8Array;
}): PreparedSignerInfo {
  const { certificateChain, signer, hash, contentDigest } = options;
  const signerDer = certificateChain[0];
  if (!signerDer) throw new SigningError('SIGNER_NO_CERTIFICATE', "The signer's certificate chain is empty: it must start with the signer's own certificate.");
  if (contentDigest.length !== HASH_LENGTH[hash]) {
    throw new SigningError('DIGEST_LENGTH_MISMATCH', `A ${hash} digest has ${HASH_LENGTH[hash]} bytes, got ${contentDigest.length}.`, { origin: 'internal' });
  }
  const certificates = certificateChain.map((der, i) => parseCertificate(der, i));
  const signerCertificate = certificates[0] as pkijs.Certificate;
  const attributes = [
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
    new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: toArrayBuffer(contentDigest) })] }),
    new pkijs.Attribute({ type: OID.signingCertificateV2, values: [signingCertificateV2(signerCertificate, signerDer, hash)] }),
  ]
    .map((attribute) => ({ attribute, der: new Uint8Array(attribute.toSchema().toBER()) }))
    .sort((a, b) => compareBytes(a.der, b.der))
    .map((entry) => entry.attribute);
  const signedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes });
  const encoded = new Uint8Array(signedAttrs.toSchema().toBER());
  // In the SignerInfo the attributes are [0] IMPLICIT; what is signed is their encoding as a SET (RFC 5652 §5.4).
  const toBeSigned = encoded.slice();
  toBeSigned[0] = 0x31;
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: signerCertificate.issuer, serialNumber: signerCertificate.serialNumber }),
    digestAlgorithm: digestAlgorithm(hash),
    signedAttrs,
    signatureAlgorithm: signatureAlgorithm(signer, hash),
  });
  return { toBeSigned, signerInfo, certificates };
}

/** Options of {@link buildCmsSignature}. */
export interface CmsSignatureOptions {
  readonly signer: Signer;
  /** The digest of the signed byte ranges, computed with `hash`. */
  readonly contentDigest: Uint8Array;
  /** Digest algorithm; SHA-256 by default. */
  readonly hash?: HashAlgorithm;
  /** When given, adds a signature time-stamp (B-T) over the signature value. */
  readonly timestamper?: Timestamper;
}

/**
 * Builds the DER CMS ContentInfo (SignedData) of a PAdES signature: asks `signer` to sign the signed attributes,
 * then, with a `timestamper`, adds its token as the signature-time-stamp unsigned attribute.
 *
 * @example
 * const der = await buildCmsSignature({ signer, contentDigest: digestPreparedSignature(prepared, 'SHA-256') });
 */
export async function buildCmsSignature(options: CmsSignatureOptions): Promise<Uint8Array> {
  const hash = options.hash ?? 'SHA-256';
  const { signer } = options;
  const prepared = prepareSignerInfo({ certificateChain: signer.certificateChain, signer, hash, contentDigest: options.contentDigest });
  const signatureValue = await signer.sign(prepared.toBeSigned, hash);
  if (!(signatureValue instanceof Uint8Array) || signatureValue.length === 0) {
    throw new SigningError('SIGNER_NO_SIGNATURE', 'The signer returned no signature value.', { origin: 'internal' });
  }
  const { signerInfo } = prepared;
  signerInfo.signature = new asn1js.OctetString({ valueHex: toArrayBuffer(signatureValue) });
  if (options.timestamper) {
    const token = await options.timestamper(digestBytes(signatureValue, hash), hash);
    const parsed = asn1js.fromBER(toArrayBuffer(token));
    if (parsed.offset === -1) {
      throw new SigningError('TIMESTAMP_TOKEN_INVALID', 'The time-stamp authority returned a token that is not DER: check the TSA URL.');
    }
    signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
      type: 1,
      attributes: [new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [parsed.result] })],
    });
  }
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    digestAlgorithms: [digestAlgorithm(hash)],
    certificates: [...prepared.certificates],
    signerInfos: [signerInfo],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return new Uint8Array(contentInfo.toSchema().toBER());
}
