/**
 * The CMS SignedData of a PAdES signature (ETSI EN 319 142-1 §5.1, ETSI EN 319 122-1 §5, RFC 5652): detached,
 * one SignerInfo, signed attributes content-type, message-digest and signing-certificate-v2 (RFC 5035, with
 * issuerSerial), no signingTime (PAdES puts the time in the signature dictionary's /M), the signer's chain embedded,
 * and optionally the signature-time-stamp unsigned attribute (B-T) over the signature value.
 */
import './crypto-engine.js';
import { constants, createHash, verify as cryptoVerify, X509Certificate, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { SigningError } from '../errors.js';
import type { HashAlgorithm, Signer, Timestamper } from './types.js';

/** Object identifiers used in the SignedData. */
const OID = {
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

/**
 * A DER element written byte for byte inside asn1js structures (re-encoding a parsed certificate could alter it;
 * asn1js's own RawData ignores the writer of an enclosing constructed value, so it cannot be nested).
 */
class DerBytes {
  constructor(private readonly bytes: Uint8Array) {}
  toBER(_sizeOnly?: boolean, writer?: { write(buffer: ArrayBuffer): void }): ArrayBuffer {
    const buffer = toArrayBuffer(this.bytes);
    if (!writer) return buffer;
    writer.write(buffer);
    return new ArrayBuffer(0);
  }
}

function der(bytes: Uint8Array): asn1js.AsnType {
  return new DerBytes(bytes.slice()) as unknown as asn1js.AsnType;
}

/** The parts of the signer's certificate a SignerInfo names, as DER elements copied from the certificate. */
interface SignerCertificateParts {
  readonly issuer: asn1js.AsnType;
  readonly serialNumber: asn1js.AsnType;
}

function invalidCertificate(position: number, cause?: unknown): SigningError {
  return new SigningError(
    'SIGNER_CERTIFICATE_INVALID',
    `Certificate #${position + 1} of the signer's chain is not a DER X.509 certificate: hand in DER bytes, not PEM.`,
    cause === undefined ? {} : { cause },
  );
}

function rawElement(element: asn1js.AsnType | undefined): asn1js.AsnType {
  const view = (element as { valueBeforeDecodeView?: Uint8Array } | undefined)?.valueBeforeDecodeView;
  if (!view || view.length === 0) throw new Error('missing element');
  return der(view);
}

/**
 * Issuer and serial number of a DER certificate, read with asn1js alone: pkijs's full certificate parse costs
 * milliseconds per certificate, which dominates signing a small document.
 */
function signerCertificateParts(der: Uint8Array): SignerCertificateParts {
  try {
    const parsed = asn1js.fromBER(toArrayBuffer(der));
    if (parsed.offset === -1 || parsed.offset !== der.length) throw new Error('not one DER element');
    const tbs = (parsed.result as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence;
    const fields = tbs.valueBlock.value;
    // TBSCertificate: [0] version (optional), serialNumber, signature, issuer, …
    const first = fields[0];
    const at = first && first.idBlock.tagClass === 3 && first.idBlock.tagNumber === 0 ? 1 : 0;
    return { serialNumber: rawElement(fields[at]), issuer: rawElement(fields[at + 2]) };
  } catch (error) {
    throw invalidCertificate(0, error);
  }
}

/** A certificate of the chain, embedded byte for byte; only its outer DER header is checked. */
function rawCertificate(certificate: Uint8Array, position: number): asn1js.AsnType {
  if (certificate[0] !== 0x30 || derElementLength(certificate) !== certificate.length) throw invalidCertificate(position);
  return der(certificate);
}

/** Total length of the DER element at the start of `der` (header + content), or -1. */
function derElementLength(der: Uint8Array): number {
  const first = der[1];
  if (first === undefined) return -1;
  if (first < 0x80) return 2 + first;
  const count = first & 0x7f;
  if (count === 0 || count > 4) return -1;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + (der[2 + i] ?? 0);
  return 2 + count + length;
}

function digestAlgorithm(hash: HashAlgorithm): pkijs.AlgorithmIdentifier {
  return new pkijs.AlgorithmIdentifier({ algorithmId: DIGEST_OID[hash] });
}

/** The SignerInfo signatureAlgorithm for the signer's scheme and hash. @internal (pkijs type, kept out of the published types) */
function signatureAlgorithm(signer: Signer, hash: HashAlgorithm): pkijs.AlgorithmIdentifier {
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
function signingCertificateV2(parts: SignerCertificateParts, certificateDer: Uint8Array, hash: HashAlgorithm): asn1js.Sequence {
  const issuerSerial = new asn1js.Sequence({
    value: [
      // GeneralNames with one directoryName [4] (explicit: Name is a CHOICE).
      new asn1js.Sequence({
        value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [parts.issuer] })],
      }),
      parts.serialNumber,
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
  /** The signed attributes as they go into the SignerInfo (`[0] IMPLICIT`). */
  readonly signedAttributes: asn1js.AsnType;
  readonly signerCertificate: SignerCertificateParts;
  readonly certificates: readonly asn1js.AsnType[];
}

/**
 * Builds the signed attributes for a detached signature over content whose digest is `contentDigest`, for the
 * first certificate of `certificateChain`. Attributes are sorted by encoding, as DER orders a SET OF.
 */
function prepareSignerInfo(options: {
  certificateChain: readonly Uint8Array[];
  hash: HashAlgorithm;
  contentDigest: Uint8Array;
}): PreparedSignerInfo {
  const { certificateChain, hash, contentDigest } = options;
  const signerDer = certificateChain[0];
  if (!signerDer) throw new SigningError('SIGNER_NO_CERTIFICATE', "The signer's certificate chain is empty: it must start with the signer's own certificate.");
  if (contentDigest.length !== HASH_LENGTH[hash]) {
    throw new SigningError('DIGEST_LENGTH_MISMATCH', `A ${hash} digest has ${HASH_LENGTH[hash]} bytes, got ${contentDigest.length}.`, { origin: 'internal' });
  }
  const signerCertificate = signerCertificateParts(signerDer);
  const certificates = certificateChain.map((certificate, i) => rawCertificate(certificate, i));
  const attributes = [
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
    new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: toArrayBuffer(contentDigest) })] }),
    new pkijs.Attribute({ type: OID.signingCertificateV2, values: [signingCertificateV2(signerCertificate, signerDer, hash)] }),
  ]
    .map((attribute) => ({ attribute, der: new Uint8Array(attribute.toSchema().toBER()) }))
    .sort((a, b) => compareBytes(a.der, b.der))
    .map((entry) => entry.attribute);
  const signedAttributes = new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }).toSchema();
  // In the SignerInfo the attributes are [0] IMPLICIT; what is signed is their encoding as a SET (RFC 5652 §5.4).
  const toBeSigned = new Uint8Array(signedAttributes.toBER());
  toBeSigned[0] = 0x31;
  return { toBeSigned, signedAttributes, signerCertificate, certificates };
}

/**
 * Verifies the signature value a signer returned against its own certificate before it goes into a document: a
 * faulty remote signer or HSM (or a key that does not belong to the certificate) must fail loudly here instead of
 * producing a document whose signature no validator accepts. Throws SigningError `SIGNATURE_VALUE_INVALID`.
 */
function checkSignatureValue(signer: Signer, hash: HashAlgorithm, toBeSigned: Uint8Array, signatureValue: Uint8Array): void {
  const certificate = signer.certificateChain[0]!;
  let ok: boolean;
  try {
    const key = publicKeyOf(certificate);
    const name = nodeHashName(hash);
    if (signer.scheme === 'RSA-PSS') {
      const declared = (signer as Partial<{ pssParameters(h: HashAlgorithm): { saltLength: number } }>).pssParameters;
      const saltLength = declared ? declared.call(signer, hash).saltLength : HASH_LENGTH[hash];
      ok = cryptoVerify(name, toBeSigned, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }, signatureValue);
    } else if (signer.scheme === 'ECDSA') ok = cryptoVerify(name, toBeSigned, { key, dsaEncoding: 'der' }, signatureValue);
    else ok = cryptoVerify(name, toBeSigned, { key, padding: constants.RSA_PKCS1_PADDING }, signatureValue);
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new SigningError(
      'SIGNATURE_VALUE_INVALID',
      `The signer returned a ${signer.scheme} signature value that does not verify with its certificate (${certificateLabel(certificate)}): the signing device or service is faulty, or its key does not belong to that certificate. Nothing was written.`,
      { origin: 'internal' },
    );
  }
}

// Every signature checks its value against the signer's certificate: parse each certificate object once.
const publicKeys = new WeakMap<Uint8Array, KeyObject>();

function publicKeyOf(certificate: Uint8Array): KeyObject {
  let key = publicKeys.get(certificate);
  if (key === undefined) publicKeys.set(certificate, (key = new X509Certificate(certificate).publicKey));
  return key;
}

function certificateLabel(der: Uint8Array): string {
  try {
    return new X509Certificate(der).subject.replace(/\n/g, ', ');
  } catch {
    return 'unreadable certificate';
  }
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
 * then, with a `timestamper`, adds its token as the signature-time-stamp unsigned attribute. The signer's chain is
 * embedded byte for byte.
 *
 * @example
 * const der = await buildCmsSignature({ signer, contentDigest: digestPreparedSignature(prepared, 'SHA-256') });
 */
export async function buildCmsSignature(options: CmsSignatureOptions): Promise<Uint8Array> {
  const hash = options.hash ?? 'SHA-256';
  const { signer } = options;
  const prepared = prepareSignerInfo({ certificateChain: signer.certificateChain, hash, contentDigest: options.contentDigest });
  const algorithm = signatureAlgorithm(signer, hash);
  const signatureValue = await signer.sign(prepared.toBeSigned, hash);
  if (!(signatureValue instanceof Uint8Array) || signatureValue.length === 0) {
    throw new SigningError('SIGNER_NO_SIGNATURE', 'The signer returned no signature value.', { origin: 'internal' });
  }
  checkSignatureValue(signer, hash, prepared.toBeSigned, signatureValue);
  const signerInfo: asn1js.AsnType[] = [
    new asn1js.Integer({ value: 1 }),
    new asn1js.Sequence({ value: [prepared.signerCertificate.issuer, prepared.signerCertificate.serialNumber] }),
    digestAlgorithm(hash).toSchema(),
    prepared.signedAttributes,
    algorithm.toSchema(),
    new asn1js.OctetString({ valueHex: toArrayBuffer(signatureValue) }),
  ];
  if (options.timestamper) {
    const token = await options.timestamper(digestBytes(signatureValue, hash), hash);
    const parsed = asn1js.fromBER(toArrayBuffer(token));
    if (parsed.offset === -1) {
      throw new SigningError('TIMESTAMP_TOKEN_INVALID', 'The time-stamp authority returned a token that is not DER: check the TSA URL.');
    }
    signerInfo.push(
      new pkijs.SignedAndUnsignedAttributes({
        type: 1,
        attributes: [new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [der(token)] })],
      }).toSchema(),
    );
  }
  const signedData = new asn1js.Sequence({
    value: [
      new asn1js.Integer({ value: 1 }),
      new asn1js.Set({ value: [digestAlgorithm(hash).toSchema()] }),
      new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
      new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [...prepared.certificates] }),
      new asn1js.Set({ value: [new asn1js.Sequence({ value: signerInfo })] }),
    ],
  });
  const contentInfo = new asn1js.Sequence({
    value: [
      new asn1js.ObjectIdentifier({ value: OID.signedData }),
      new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [signedData] }),
    ],
  });
  return new Uint8Array(contentInfo.toBER());
}
