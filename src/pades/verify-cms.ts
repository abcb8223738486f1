/**
 * Checks one CMS SignedData (RFC 5652 §5.4–5.6) as PAdES uses it (ETSI EN 319 142-1 §5.1, ETSI EN 319 122-1
 * §5.2.2): the message-digest attribute against the digest of the signed content, the signature over the signed
 * attributes (RSA PKCS#1 v1.5, RSA-PSS, ECDSA), the ESS signing-certificate(-v2) attribute against the signer's
 * certificate, and the RFC 3161 signature time-stamp carried as an unsigned attribute. Certificate trust is
 * not judged here (see verify-chain.ts). Findings are returned as data; only unparsable DER throws.
 */
import './crypto-engine.js';
import { constants, createHash, createVerify, verify as cryptoVerify, X509Certificate, type Hash, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  timeStampToken: '1.2.840.113549.1.9.16.2.14',
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsaPss: '1.2.840.113549.1.1.10',
  ecPublicKey: '1.2.840.10045.2.1',
} as const;

/** Digest algorithm OIDs to node:crypto names. */
const DIGESTS: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
  // RFC 8419 §3: id-shake256 with a 512-bit output (the -len variant carries its length as a parameter).
  '2.16.840.1.101.3.4.2.12': 'shake256',
};

/** EdDSA (RFC 8419) signature algorithm OIDs, with the only digest each may use for the signed attributes. */
const EDDSA: Record<string, { scheme: 'Ed25519' | 'Ed448'; digest: string }> = {
  '1.3.101.112': { scheme: 'Ed25519', digest: 'sha512' },
  '1.3.101.113': { scheme: 'Ed448', digest: 'shake256' },
};

/** A node:crypto Hash for a digest name of this module (SHAKE256 with RFC 8419's 512-bit output). */
export function createDigest(name: string): Hash {
  return name === 'shake256' ? createHash('shake256', { outputLength: 64 }) : createHash(name);
}

/** Signature algorithm OIDs that name their hash, to [scheme, node:crypto hash]. */
const SIGNATURE_ALGORITHMS: Record<string, ['pkcs1' | 'ecdsa', string]> = {
  '1.2.840.113549.1.1.5': ['pkcs1', 'sha1'],
  '1.2.840.113549.1.1.11': ['pkcs1', 'sha256'],
  '1.2.840.113549.1.1.12': ['pkcs1', 'sha384'],
  '1.2.840.113549.1.1.13': ['pkcs1', 'sha512'],
  '1.2.840.10045.4.3.2': ['ecdsa', 'sha256'],
  '1.2.840.10045.4.3.3': ['ecdsa', 'sha384'],
  '1.2.840.10045.4.3.4': ['ecdsa', 'sha512'],
};

/** Maps a digest AlgorithmIdentifier OID to its node:crypto name, or undefined when unsupported. */
export function digestNameOf(oid: string): string | undefined {
  return DIGESTS[oid];
}

/** The result of checking one CMS signature. */
export interface CmsCheck {
  /** node:crypto name of the SignerInfo digest algorithm (`sha256`, …), or the OID when unsupported. */
  readonly digestAlgorithm: string;
  /** The message-digest attribute equals the digest of the signed content. */
  readonly digestOk: boolean;
  /** The signature value verifies over the signed attributes with the signer certificate's public key. */
  readonly signatureOk: boolean;
  /** The ESS signing-certificate(-v2) attribute names the signer certificate; undefined when absent. */
  readonly signingCertificateOk: boolean | undefined;
  /** Which signature scheme the SignerInfo uses, e.g. `RSASSA-PKCS1-v1_5`, `RSA-PSS`, `ECDSA`. */
  readonly signatureScheme: string;
  /** DER of the signer's certificate, when the CMS carries it. */
  readonly signerCertificate: Uint8Array | undefined;
  /** DER of every certificate the CMS carries. */
  readonly certificates: readonly Uint8Array[];
  /** The SignerInfo signature value (what a signature time-stamp's imprint covers). */
  readonly signatureValue: Uint8Array;
  /** The eContent (for a time-stamp token: the DER TSTInfo), when encapsulated. */
  readonly content: Uint8Array | undefined;
  /** The eContentType OID. */
  readonly contentType: string;
  /** DER of the RFC 3161 time-stamp token in the unsigned attributes, when present. */
  readonly timestampToken: Uint8Array | undefined;
  /** Whether the signed attributes carry a signingTime (PAdES baseline forbids it). */
  readonly hasSigningTime: boolean;
  /** Whether the SignerInfo has signed attributes (PAdES requires them; adbe.pkcs7.detached does not). */
  readonly hasSignedAttributes: boolean;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

/**
 * Computes the digest of the signed content with a node:crypto digest name; the verifier passes a function that
 * hashes the signed byte ranges in place (streaming) rather than a concatenated copy.
 */
export type ContentDigester = (digestName: string) => Uint8Array;

/** Hands the signed content to `update` chunk by chunk (for signatures without signed attributes). */
export type ContentFeeder = (update: (chunk: Uint8Array) => void) => void;

function toBytes(view: ArrayBuffer | Uint8Array): Uint8Array {
  return view instanceof Uint8Array ? view : new Uint8Array(view);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

function attributeValue(attrs: pkijs.SignedAndUnsignedAttributes | undefined, oid: string): asn1js.AsnType | undefined {
  const attr = attrs?.attributes.find((a) => a.type === oid);
  return attr?.values[0];
}

/**
 * The certificates of a SignedData with their DER exactly as the CMS carries them (re-encoding a parsed certificate
 * is slow and could differ from the signed bytes).
 */
function certificatesOf(signedData: pkijs.SignedData, signedDataAsn1: asn1js.AsnType): Map<pkijs.Certificate, Uint8Array> {
  const raw = new Map<pkijs.Certificate, Uint8Array>();
  const fields = signedDataAsn1 instanceof asn1js.Sequence ? signedDataAsn1.valueBlock.value : [];
  const set = fields.find((f) => f.idBlock.tagClass === 3 && f.idBlock.tagNumber === 0);
  const encoded = (set as asn1js.Constructed | undefined)?.valueBlock.value ?? [];
  (signedData.certificates ?? []).forEach((cert, i) => {
    if (!(cert instanceof pkijs.Certificate)) return;
    const view = encoded[i]?.valueBeforeDecodeView;
    raw.set(cert, view && view.length > 0 ? new Uint8Array(view) : new Uint8Array(cert.toSchema().toBER(false)));
  });
  return raw;
}

function findSignerCertificate(signedData: pkijs.SignedData, signerInfo: pkijs.SignerInfo): pkijs.Certificate | undefined {
  const certs = (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const sid: unknown = signerInfo.sid;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return certs.find((c) => c.issuer.isEqual(sid.issuer) && c.serialNumber.isEqual(sid.serialNumber));
  }
  // SubjectKeyIdentifier: [0] IMPLICIT OCTET STRING, compared with the certificate's SKI extension.
  const ski = (sid as { valueBlock?: { valueHexView?: Uint8Array } }).valueBlock?.valueHexView;
  if (!ski) return undefined;
  return certs.find((c) => {
    const ext = c.extensions?.find((e) => e.extnID === '2.5.29.14');
    const parsed = ext?.parsedValue as asn1js.OctetString | undefined;
    return parsed !== undefined && sameBytes(parsed.valueBlock.valueHexView, ski);
  });
}

interface SchemeChoice {
  scheme: string;
  hash: string;
  pssSaltLength?: number;
}

function chooseScheme(signerInfo: pkijs.SignerInfo, digestName: string | undefined): SchemeChoice | string {
  const oid = signerInfo.signatureAlgorithm.algorithmId;
  const eddsa = EDDSA[oid];
  if (eddsa) {
    if (digestName !== eddsa.digest) return `${eddsa.scheme} signatures must digest with ${eddsa.digest.toUpperCase()} (RFC 8419), not ${digestName ?? signerInfo.digestAlgorithm.algorithmId}`;
    return { scheme: eddsa.scheme, hash: eddsa.digest };
  }
  if (oid === OID.rsaEncryption || oid === OID.ecPublicKey) {
    if (!digestName) return `unsupported digest algorithm ${signerInfo.digestAlgorithm.algorithmId}`;
    return { scheme: oid === OID.rsaEncryption ? 'RSASSA-PKCS1-v1_5' : 'ECDSA', hash: digestName };
  }
  return schemeOfAlgorithm(signerInfo.signatureAlgorithm);
}

/** The scheme and hash of a signature AlgorithmIdentifier that names its hash (or RSA-PSS with parameters). */
function schemeOfAlgorithm(algorithm: pkijs.AlgorithmIdentifier): SchemeChoice | string {
  const oid = algorithm.algorithmId;
  const eddsa = EDDSA[oid];
  if (eddsa) return { scheme: eddsa.scheme, hash: eddsa.digest };
  const named = SIGNATURE_ALGORITHMS[oid];
  if (named) return { scheme: named[0] === 'pkcs1' ? 'RSASSA-PKCS1-v1_5' : 'ECDSA', hash: named[1] };
  if (oid === OID.rsaPss) {
    const params = new pkijs.RSASSAPSSParams({ schema: algorithm.algorithmParams });
    const hash = DIGESTS[params.hashAlgorithm.algorithmId];
    if (!hash) return `unsupported RSA-PSS hash ${params.hashAlgorithm.algorithmId}`;
    return { scheme: 'RSA-PSS', hash, pssSaltLength: params.saltLength };
  }
  return `unsupported signature algorithm ${oid}`;
}

/**
 * Verifies a signature value made with `algorithm` (e.g. an OCSP response's or a certificate's) over `data` with the
 * public key of the DER certificate `signer`. False for unsupported algorithms.
 * @internal (pkijs type, kept out of the published types)
 */
export function verifySignatureValue(algorithm: pkijs.AlgorithmIdentifier, signer: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  const choice = schemeOfAlgorithm(algorithm);
  if (typeof choice === 'string') return false;
  try {
    return verifyWith(choice, new X509Certificate(signer).publicKey, data, signature);
  } catch {
    return false;
  }
}

/** Verifies `signature` over the content `feed` hands out, streaming, for the given scheme choice. */
function verifyStreaming(choice: SchemeChoice, key: KeyObject, feed: ContentFeeder, signature: Uint8Array): boolean {
  try {
    if (choice.scheme === 'Ed25519' || choice.scheme === 'Ed448') {
      // Pure EdDSA has no streaming interface: the content is collected once.
      const chunks: Uint8Array[] = [];
      feed((chunk) => chunks.push(chunk));
      return cryptoVerify(null, Buffer.concat(chunks), key, signature);
    }
    const verifier = createVerify(choice.hash);
    feed((chunk) => verifier.update(chunk));
    if (choice.scheme === 'RSA-PSS') {
      return verifier.verify({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: choice.pssSaltLength ?? 20 }, signature);
    }
    if (choice.scheme === 'ECDSA') return verifier.verify({ key, dsaEncoding: 'der' }, signature);
    return verifier.verify({ key, padding: constants.RSA_PKCS1_PADDING }, signature);
  } catch {
    return false;
  }
}

/** Verifies `signature` over `data` with `key`, for the given scheme choice. */
function verifyWith(choice: SchemeChoice, key: KeyObject, data: Uint8Array, signature: Uint8Array): boolean {
  try {
    if (choice.scheme === 'Ed25519' || choice.scheme === 'Ed448') return cryptoVerify(null, data, key, signature);
    if (choice.scheme === 'RSA-PSS') {
      return cryptoVerify(
        choice.hash,
        data,
        { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: choice.pssSaltLength ?? 20 },
        signature,
      );
    }
    if (choice.scheme === 'ECDSA') return cryptoVerify(choice.hash, data, { key, dsaEncoding: 'der' }, signature);
    return cryptoVerify(choice.hash, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
  } catch {
    return false;
  }
}

/** Checks the ESS signing-certificate(-v2) attribute; undefined when neither is present. */
function checkSigningCertificate(
  signerInfo: pkijs.SignerInfo,
  certDer: Uint8Array | undefined,
  serial: Uint8Array | undefined,
  problems: string[],
): boolean | undefined {
  const v2 = attributeValue(signerInfo.signedAttrs, OID.signingCertificateV2);
  const v1 = v2 ? undefined : attributeValue(signerInfo.signedAttrs, OID.signingCertificate);
  const value = v2 ?? v1;
  if (!value) return undefined;
  if (!certDer) {
    problems.push('signing-certificate attribute present but the signer certificate is not in the CMS');
    return false;
  }
  try {
    const certs = (value as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence;
    const first = certs.valueBlock.value[0] as asn1js.Sequence;
    const parts = first.valueBlock.value;
    let index = 0;
    let hashName = v2 ? 'sha256' : 'sha1';
    if (v2 && parts[0] instanceof asn1js.Sequence) {
      const alg = new pkijs.AlgorithmIdentifier({ schema: parts[0] });
      const name = DIGESTS[alg.algorithmId];
      if (!name) {
        problems.push(`signing-certificate-v2 uses unsupported hash ${alg.algorithmId}`);
        return false;
      }
      hashName = name;
      index = 1;
    }
    const certHash = (parts[index] as asn1js.OctetString).valueBlock.valueHexView;
    if (!sameBytes(certHash, createHash(hashName).update(certDer).digest())) {
      problems.push('signing-certificate attribute does not match the signer certificate (hash differs)');
      return false;
    }
    const issuerSerial = parts[index + 1];
    if (issuerSerial instanceof asn1js.Sequence && serial) {
      const serialNumber = issuerSerial.valueBlock.value[1] as asn1js.Integer | undefined;
      if (serialNumber && !sameBytes(serialNumber.valueBlock.valueHexView, serial)) {
        problems.push('signing-certificate attribute names another serial number than the signer certificate');
        return false;
      }
    }
    return true;
  } catch (error) {
    problems.push(`signing-certificate attribute is malformed (${error instanceof Error ? error.message : String(error)})`);
    return false;
  }
}

/**
 * Checks the first SignerInfo of `cms` (DER ContentInfo). For detached content `digestContent` hashes the signed
 * data (and `feedContent`, when given, streams it for a SignerInfo without signed attributes, whose signature covers
 * the content itself); for encapsulated content (a time-stamp token) the eContent is used instead.
 */
export function checkCmsSignature(cms: Uint8Array, digestContent: ContentDigester, feedContent?: ContentFeeder): CmsCheck {
  const problems: string[] = [];
  const warnings: string[] = [];
  // Trailing zero padding, as in a PDF /Contents, is allowed: only the first DER element is read.
  const asn1 = asn1js.fromBER(cms);
  if (asn1.offset === -1) throw new Error(`not DER: ${asn1.result.error}`);
  const info = new pkijs.ContentInfo({ schema: asn1.result });
  if (info.contentType !== OID.signedData) throw new Error(`content type ${info.contentType} is not SignedData`);
  const signedData = new pkijs.SignedData({ schema: info.content });
  const rawCertificates = certificatesOf(signedData, info.content as asn1js.AsnType);
  const certificates = [...rawCertificates.values()];
  const signerInfo = signedData.signerInfos[0];
  const eContent = signedData.encapContentInfo.eContent;
  const content = eContent ? toBytes(eContent.getValue()) : undefined;
  const contentType = signedData.encapContentInfo.eContentType;
  const base = { certificates, content, contentType, warnings, problems };
  if (!signerInfo) {
    problems.push('the CMS has no SignerInfo');
    return {
      ...base,
      digestAlgorithm: '',
      digestOk: false,
      signatureOk: false,
      signingCertificateOk: undefined,
      signatureScheme: '',
      signerCertificate: undefined,
      signatureValue: new Uint8Array(0),
      timestampToken: undefined,
      hasSigningTime: false,
      hasSignedAttributes: false,
    };
  }
  if (signedData.signerInfos.length > 1) warnings.push(`the CMS has ${signedData.signerInfos.length} SignerInfos; only the first is checked`);
  const digestName = DIGESTS[signerInfo.digestAlgorithm.algorithmId];
  if (digestName === 'sha1' || SIGNATURE_ALGORITHMS[signerInfo.signatureAlgorithm.algorithmId]?.[1] === 'sha1') {
    warnings.push('the signature uses SHA-1, which is no longer collision resistant');
  }
  const signatureValue = toBytes(signerInfo.signature.valueBlock.valueHexView);
  const signer = findSignerCertificate(signedData, signerInfo);
  const signerCertificate = signer ? rawCertificates.get(signer) : undefined;
  if (!signer) problems.push('the signer certificate is not in the CMS');

  let digestOk = false;
  if (!digestName) {
    problems.push(`unsupported digest algorithm ${signerInfo.digestAlgorithm.algorithmId}`);
  } else if (!signerInfo.signedAttrs) {
    warnings.push('the SignerInfo has no signed attributes: its signature covers the content directly (not allowed by PAdES)');
  } else {
    const md = attributeValue(signerInfo.signedAttrs, OID.messageDigest);
    if (!(md instanceof asn1js.OctetString)) {
      problems.push('the message-digest attribute is missing');
    } else {
      const actual = content ? createDigest(digestName).update(content).digest() : digestContent(digestName);
      digestOk = sameBytes(md.valueBlock.valueHexView, actual);
      if (!digestOk) problems.push('the message digest does not match the signed content: the document was changed');
    }
    const ct = attributeValue(signerInfo.signedAttrs, OID.contentType);
    if (!(ct instanceof asn1js.ObjectIdentifier) || ct.valueBlock.toString() !== contentType) {
      problems.push('the content-type attribute is missing or differs from the encapsulated content type');
    }
  }

  let signatureOk = false;
  let signatureScheme = '';
  const choice = chooseScheme(signerInfo, digestName);
  if (typeof choice === 'string') {
    problems.push(choice);
  } else if (signer && signerInfo.signedAttrs) {
    signatureScheme = choice.scheme;
    const key = new X509Certificate(signerCertificate!).publicKey;
    signatureOk = verifyWith(choice, key, toBytes(signerInfo.signedAttrs.encodedValue), signatureValue);
    if (!signatureOk) problems.push('the signature value does not verify with the signer certificate');
  } else if (signer) {
    signatureScheme = choice.scheme;
    const key = new X509Certificate(signerCertificate!).publicKey;
    const feed: ContentFeeder | undefined = content ? (update) => update(content) : feedContent;
    if (!feed) problems.push('the signature has no signed attributes and its content cannot be streamed');
    else {
      // Without signed attributes, one check covers both: the signature is over the content itself.
      signatureOk = verifyStreaming(choice, key, feed, signatureValue);
      digestOk = signatureOk;
      if (!signatureOk) problems.push('the signature does not verify over the signed content: the document was changed or the signature is bad');
    }
  }

  const signingCertificateOk = checkSigningCertificate(
    signerInfo,
    signerCertificate,
    signer ? toBytes(signer.serialNumber.valueBlock.valueHexView) : undefined,
    problems,
  );
  const tst = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === OID.timeStampToken)?.values[0];
  const timestampToken = tst ? new Uint8Array(tst.toBER(false)) : undefined;
  const hasSigningTime = attributeValue(signerInfo.signedAttrs, OID.signingTime) !== undefined;
  return {
    ...base,
    digestAlgorithm: digestName ?? signerInfo.digestAlgorithm.algorithmId,
    digestOk,
    signatureOk,
    signingCertificateOk,
    signatureScheme,
    signerCertificate,
    signatureValue,
    timestampToken,
    hasSigningTime,
    hasSignedAttributes: signerInfo.signedAttrs !== undefined,
  };
}

/** What an RFC 3161 time-stamp token says and whether its own CMS signature holds. */
export interface TimestampCheck {
  /** The token's CMS signature, message digest and signing-certificate attribute hold. */
  readonly tokenOk: boolean;
  /** The token's message imprint equals the digest of what it should cover. */
  readonly imprintOk: boolean;
  /** `genTime` of the TSTInfo. */
  readonly time: Date | undefined;
  readonly cms: CmsCheck | undefined;
  readonly problems: readonly string[];
}

/**
 * Checks an RFC 3161 TimeStampToken (RFC 3161 §2.4.2): its CMS signature, and that its message imprint is the
 * digest of `covered` (computed with the imprint's own algorithm by `digestCovered`).
 */
export function checkTimestampToken(token: Uint8Array, digestCovered: ContentDigester): TimestampCheck {
  const problems: string[] = [];
  let cms: CmsCheck;
  try {
    cms = checkCmsSignature(token, () => new Uint8Array(0));
  } catch (error) {
    problems.push(`the time-stamp token is not a CMS SignedData (${error instanceof Error ? error.message : String(error)})`);
    return { tokenOk: false, imprintOk: false, time: undefined, cms: undefined, problems };
  }
  problems.push(...cms.problems.map((p) => `time-stamp token: ${p}`));
  if (cms.contentType !== OID.tstInfo || !cms.content) {
    problems.push('the time-stamp token does not encapsulate a TSTInfo');
    return { tokenOk: false, imprintOk: false, time: undefined, cms, problems };
  }
  let imprintOk = false;
  let time: Date | undefined;
  try {
    const tstInfo = pkijs.TSTInfo.fromBER(cms.content);
    time = tstInfo.genTime;
    const hashName = DIGESTS[tstInfo.messageImprint.hashAlgorithm.algorithmId];
    if (!hashName) {
      problems.push(`the time-stamp imprint uses unsupported hash ${tstInfo.messageImprint.hashAlgorithm.algorithmId}`);
    } else {
      imprintOk = sameBytes(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView, digestCovered(hashName));
      if (!imprintOk) problems.push('the time-stamp imprint does not match what it should cover');
    }
  } catch (error) {
    problems.push(`the TSTInfo is malformed (${error instanceof Error ? error.message : String(error)})`);
  }
  const tokenOk = cms.digestOk && cms.signatureOk && cms.signingCertificateOk !== false;
  return { tokenOk, imprintOk, time, cms, problems };
}
