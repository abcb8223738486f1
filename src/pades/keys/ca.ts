/**
 * A small certification-authority toolkit on pkijs: self-signed roots, certificates issued under fixed profiles
 * (intermediate CA, natural-person signer, organizational seal, TSA, OCSP responder) and CRLs. Used by the service
 * for its advanced signing and seal CAs (docs/design/signatures.md#seal) and by the tests' PKI.
 * Profiles follow RFC 5280 §4.2, RFC 3161 §2.3 (TSA: critical EKU timeStamping), RFC 6960 §4.2.2.2 (OCSP signing,
 * id-pkix-ocsp-nocheck) and ETSI EN 319 412-1 §5.1.4 (organizationIdentifier).
 * Pure: validity, serial numbers and keys are handed in; nothing reads the clock or draws randomness.
 */
import { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import '../crypto-engine.js';
import { SigningError } from '../../errors.js';
import type { HashAlgorithm, Signer } from '../types.js';

type CryptoKey = webcrypto.CryptoKey;
type PkijsKey = Parameters<pkijs.Certificate['sign']>[0];

/** The parts of an X.500 name paraph writes, in the order they appear (C, O, OU, organizationIdentifier, CN, E). */
export interface DistinguishedName {
  readonly country?: string;
  readonly organization?: string;
  readonly organizationalUnit?: string;
  /** ETSI EN 319 412-1 organizationIdentifier (2.5.4.97), e.g. `NTRNL-12345678`. */
  readonly organizationIdentifier?: string;
  readonly commonName?: string;
  readonly emailAddress?: string;
}

/** What a certificate is for; decides its basic constraints, key usage and extended key usage. */
export type CertificateProfile = 'intermediate-ca' | 'signer' | 'seal' | 'tsa' | 'ocsp-responder';

/**
 * A CA able to issue: its DER certificate and either its private key, or a signer that holds the key elsewhere (a
 * PKCS#11 token: `openPkcs11Signer`; RSA PKCS#1 v1.5 or ECDSA) and signs what is to be signed.
 */
export type CertificateAuthority = SoftwareAuthority | ExternalKeyAuthority;

/** A CA whose private key is in this process. */
export interface SoftwareAuthority {
  readonly certificate: Uint8Array;
  readonly privateKey: CryptoKey;
}

/** A CA whose private key stays in a token; `keySigner` signs with it. */
export interface ExternalKeyAuthority {
  readonly certificate: Uint8Array;
  readonly keySigner: Pick<Signer, 'scheme' | 'sign'>;
}

/** Signature algorithm OIDs for a key that signs outside WebCrypto (RFC 4055 / RFC 5758). */
const EXTERNAL_SIGNATURE_OIDS: Record<'RSASSA-PKCS1-v1_5' | 'ECDSA', Record<HashAlgorithm, string>> = {
  'RSASSA-PKCS1-v1_5': { 'SHA-256': '1.2.840.113549.1.1.11', 'SHA-384': '1.2.840.113549.1.1.12', 'SHA-512': '1.2.840.113549.1.1.13' },
  ECDSA: { 'SHA-256': '1.2.840.10045.4.3.2', 'SHA-384': '1.2.840.10045.4.3.3', 'SHA-512': '1.2.840.10045.4.3.4' },
};

/** Something pkijs signs: a certificate or a CRL (`signature` inside the signed part, `signatureAlgorithm` outside). */
interface PkijsSignable {
  signature: pkijs.AlgorithmIdentifier;
  signatureAlgorithm: pkijs.AlgorithmIdentifier;
  signatureValue: asn1js.BitString;
  sign(key: PkijsKey, hash: string): Promise<void>;
}

/** Signs a certificate or CRL with the issuer's key, in this process or through its key signer. */
async function signWith(
  target: PkijsSignable,
  encodeSigned: () => Uint8Array,
  issuer: Pick<SoftwareAuthority, 'privateKey'> | Pick<ExternalKeyAuthority, 'keySigner'>,
  hash: HashAlgorithm,
): Promise<void> {
  if ('privateKey' in issuer) {
    await target.sign(issuer.privateKey as unknown as PkijsKey, hash);
    return;
  }
  const scheme = issuer.keySigner.scheme;
  if (scheme !== 'RSASSA-PKCS1-v1_5' && scheme !== 'ECDSA') {
    throw new SigningError('UNSUPPORTED_CA_KEY', `A CA key outside this process signs with RSA PKCS#1 v1.5 or ECDSA, not ${scheme}.`);
  }
  const algorithm = (): pkijs.AlgorithmIdentifier =>
    new pkijs.AlgorithmIdentifier({
      algorithmId: EXTERNAL_SIGNATURE_OIDS[scheme][hash],
      ...(scheme === 'ECDSA' ? {} : { algorithmParams: new asn1js.Null() }),
    });
  target.signature = algorithm();
  target.signatureAlgorithm = algorithm();
  const value = await issuer.keySigner.sign(encodeSigned(), hash);
  target.signatureValue = new asn1js.BitString({ valueHex: value });
}

/** A serial number: a positive bigint or its big-endian bytes. */
export type SerialNumber = bigint | Uint8Array;

/** Options common to every certificate. */
export interface CertificateValidity {
  readonly serialNumber: SerialNumber;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** Digest for the CA's signature over the certificate; SHA-256 by default. */
  readonly hash?: HashAlgorithm;
}

/** Options of `createRootCertificate`. */
export interface RootCertificateOptions extends CertificateValidity {
  readonly subject: DistinguishedName;
  readonly keyPair: { readonly publicKey: CryptoKey; readonly privateKey: CryptoKey };
}

/** Options of `issueCertificate`. */
export interface IssueCertificateOptions extends CertificateValidity {
  readonly profile: CertificateProfile;
  readonly subject: DistinguishedName;
  readonly publicKey: CryptoKey;
  readonly issuer: CertificateAuthority;
  /** AIA id-ad-ocsp URL (RFC 5280 §4.2.2.1). */
  readonly ocspUrl?: string;
  /** AIA id-ad-caIssuers URL. */
  readonly caIssuersUrl?: string;
  /** CRL distribution point URL (RFC 5280 §4.2.1.13). */
  readonly crlUrl?: string;
  /** pathLenConstraint for an intermediate CA (default 0). */
  readonly pathLength?: number;
}

/** One revoked certificate in a CRL. */
export interface RevokedEntry {
  readonly serialNumber: SerialNumber;
  readonly revocationDate: Date;
  /** RFC 5280 §5.3.1 CRLReason code (1 keyCompromise, 4 superseded, ...); omitted when undefined. */
  readonly reason?: number;
}

/** Options of `createCrl`. */
export interface CrlOptions {
  readonly issuer: CertificateAuthority;
  readonly thisUpdate: Date;
  readonly nextUpdate: Date;
  /** cRLNumber (RFC 5280 §5.2.3): 0 or more, increasing with every CRL the issuer publishes. */
  readonly crlNumber: bigint;
  readonly revoked?: readonly RevokedEntry[];
  readonly hash?: HashAlgorithm;
}

const OID = {
  country: '2.5.4.6',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  organizationIdentifier: '2.5.4.97',
  commonName: '2.5.4.3',
  emailAddress: '1.2.840.113549.1.9.1',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  crlDistributionPoints: '2.5.29.31',
  crlNumber: '2.5.29.20',
  crlReason: '2.5.29.21',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  adOcsp: '1.3.6.1.5.5.7.48.1',
  adCaIssuers: '1.3.6.1.5.5.7.48.2',
  ocspNoCheck: '1.3.6.1.5.5.7.48.1.5',
  ekuTimeStamping: '1.3.6.1.5.5.7.3.8',
  ekuOcspSigning: '1.3.6.1.5.5.7.3.9',
} as const;

/** Key usage bits (RFC 5280 §4.2.1.3), as the first octet of the BIT STRING. */
const KU = { digitalSignature: 0x80, nonRepudiation: 0x40, keyCertSign: 0x04, cRLSign: 0x02 } as const;

/** Encodes a positive serial number as the content of a DER INTEGER. */
export function serialNumberBytes(serial: SerialNumber): Uint8Array {
  let bytes: Uint8Array;
  if (typeof serial === 'bigint') {
    if (serial <= 0n) throw new SigningError('INVALID_SERIAL_NUMBER', `A serial number must be positive; got ${serial}.`);
    let hex = serial.toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    bytes = new Uint8Array(Buffer.from(hex, 'hex'));
  } else {
    let start = 0;
    while (start < serial.length - 1 && serial[start] === 0) start++;
    bytes = serial.subarray(start);
    if (bytes.length === 0 || (bytes.length === 1 && bytes[0] === 0)) {
      throw new SigningError('INVALID_SERIAL_NUMBER', 'A serial number must be positive; got zero bytes.');
    }
  }
  if (bytes.length > 20) throw new SigningError('INVALID_SERIAL_NUMBER', `A serial number has at most 20 octets (RFC 5280 §4.1.2.2); got ${bytes.length}.`);
  return (bytes[0] ?? 0) & 0x80 ? Uint8Array.of(0, ...bytes) : Uint8Array.from(bytes);
}

/**
 * A random positive serial number of `length` bytes (default 16) from the handed-in random source, so that issuing
 * stays deterministic under test.
 */
export function randomSerialNumber(random: (length: number) => Uint8Array, length = 16): Uint8Array {
  const bytes = Uint8Array.from(random(length));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes;
}

function toName(dn: DistinguishedName): pkijs.RelativeDistinguishedNames {
  const entries: pkijs.AttributeTypeAndValue[] = [];
  const add = (type: string, value: string | undefined, kind: 'utf8' | 'printable' | 'ia5'): void => {
    if (value === undefined) return;
    const asn =
      kind === 'printable'
        ? new asn1js.PrintableString({ value })
        : kind === 'ia5'
          ? new asn1js.IA5String({ value })
          : new asn1js.Utf8String({ value });
    entries.push(new pkijs.AttributeTypeAndValue({ type, value: asn }));
  };
  add(OID.country, dn.country, 'printable');
  add(OID.organization, dn.organization, 'utf8');
  add(OID.organizationalUnit, dn.organizationalUnit, 'utf8');
  add(OID.organizationIdentifier, dn.organizationIdentifier, 'utf8');
  add(OID.commonName, dn.commonName, 'utf8');
  add(OID.emailAddress, dn.emailAddress, 'ia5');
  if (entries.length === 0) throw new SigningError('EMPTY_SUBJECT', 'A certificate subject needs at least one of commonName, organization, emailAddress.');
  // pkijs would put every attribute into one multi-valued RDN ("C=NL + O=..."); encode one RDN per attribute and
  // parse it back so that pkijs keeps these exact bytes.
  const der = new asn1js.Sequence({ value: entries.map((e) => new asn1js.Set({ value: [e.toSchema()] })) }).toBER(false);
  return pkijs.RelativeDistinguishedNames.fromBER(der);
}

function extension(extnID: string, critical: boolean, value: { toBER(sizeOnly?: boolean): ArrayBuffer }): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
}

function keyUsage(bits: number): asn1js.BitString {
  let unused = 0;
  while (unused < 7 && !(bits & (1 << unused))) unused++;
  return new asn1js.BitString({ valueHex: Uint8Array.of(bits).buffer, unusedBits: unused });
}

async function subjectKeyId(spki: pkijs.PublicKeyInfo): Promise<Uint8Array> {
  const bits = spki.subjectPublicKey.valueBlock.valueHexView;
  return new Uint8Array(await webcrypto.subtle.digest('SHA-1', bits));
}

function parseCertificate(der: Uint8Array): pkijs.Certificate {
  try {
    return pkijs.Certificate.fromBER(der);
  } catch (cause) {
    throw new SigningError('INVALID_CERTIFICATE', `The issuer certificate is not DER X.509: ${(cause as Error).message}`, { cause });
  }
}

async function buildCertificate(options: {
  subject: DistinguishedName;
  issuerName: pkijs.RelativeDistinguishedNames | null;
  issuerKeyId: Uint8Array | null;
  publicKey: CryptoKey;
  signingKey: Pick<SoftwareAuthority, 'privateKey'> | Pick<ExternalKeyAuthority, 'keySigner'>;
  validity: CertificateValidity;
  extensions: pkijs.Extension[];
}): Promise<Uint8Array> {
  const { validity } = options;
  if (!(validity.notBefore.getTime() < validity.notAfter.getTime())) {
    throw new SigningError('INVALID_VALIDITY', `notBefore (${validity.notBefore.toISOString()}) must be before notAfter (${validity.notAfter.toISOString()}).`);
  }
  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = new asn1js.Integer({ valueHex: serialNumberBytes(validity.serialNumber) });
  cert.subject = toName(options.subject);
  cert.issuer = options.issuerName ?? cert.subject;
  cert.notBefore = new pkijs.Time({ type: timeType(validity.notBefore), value: validity.notBefore });
  cert.notAfter = new pkijs.Time({ type: timeType(validity.notAfter), value: validity.notAfter });
  await cert.subjectPublicKeyInfo.importKey(options.publicKey as unknown as PkijsKey);
  const ski = await subjectKeyId(cert.subjectPublicKeyInfo);
  const extensions = [extension(OID.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: ski }))];
  extensions.push(
    extension(
      OID.authorityKeyIdentifier,
      false,
      new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: options.issuerKeyId ?? ski }) }).toSchema(),
    ),
  );
  extensions.push(...options.extensions);
  cert.extensions = extensions;
  try {
    await signWith(cert, () => new Uint8Array(cert.encodeTBS().toBER(false)), options.signingKey, validity.hash ?? 'SHA-256');
  } catch (cause) {
    throw new SigningError('CERTIFICATE_SIGNING_FAILED', `Signing the certificate failed: ${(cause as Error).message}`, { cause, origin: 'internal' });
  }
  return new Uint8Array(cert.toSchema(true).toBER(false));
}

/** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050. */
function timeType(date: Date): pkijs.TimeType {
  return date.getUTCFullYear() < 2050 ? pkijs.TimeType.UTCTime : pkijs.TimeType.GeneralizedTime;
}

/**
 * Creates a self-signed root CA certificate (basicConstraints cA, keyCertSign + cRLSign).
 * @example
 * const keys = await generateKeyPair('rsa-2048');
 * const root = await createRootCertificate({ subject: { commonName: 'My Root' }, keyPair: keys,
 *   serialNumber: 1n, notBefore: new Date('2026-01-01'), notAfter: new Date('2036-01-01') });
 */
export async function createRootCertificate(options: RootCertificateOptions): Promise<Uint8Array> {
  return buildCertificate({
    subject: options.subject,
    issuerName: null,
    issuerKeyId: null,
    publicKey: options.keyPair.publicKey,
    signingKey: { privateKey: options.keyPair.privateKey },
    validity: options,
    extensions: [
      extension(OID.basicConstraints, true, new pkijs.BasicConstraints({ cA: true }).toSchema()),
      extension(OID.keyUsage, true, keyUsage(KU.keyCertSign | KU.cRLSign)),
    ],
  });
}

/**
 * Issues a certificate under `issuer` with the extensions of `profile`:
 * - `intermediate-ca`: cA with pathLenConstraint, keyCertSign + cRLSign;
 * - `signer` (natural person) and `seal` (organization): digitalSignature + nonRepudiation;
 * - `tsa`: digitalSignature + nonRepudiation, critical EKU timeStamping only (RFC 3161 §2.3);
 * - `ocsp-responder`: digitalSignature, EKU OCSPSigning and id-pkix-ocsp-nocheck (RFC 6960 §4.2.2.2.1).
 * The subject should carry commonName + emailAddress for a signer and organization (+ organizationIdentifier)
 * for a seal; the profile checks that.
 */
export async function issueCertificate(options: IssueCertificateOptions): Promise<Uint8Array> {
  const { profile, subject } = options;
  if (profile === 'signer' && subject.commonName === undefined) {
    throw new SigningError('INVALID_SUBJECT', 'A signer certificate needs a commonName (the signer\'s name).');
  }
  if (profile === 'seal' && subject.organization === undefined) {
    throw new SigningError('INVALID_SUBJECT', 'A seal certificate needs an organization name (subject.organization).');
  }
  const issuerCert = parseCertificate(options.issuer.certificate);
  const issuerKeyId = await subjectKeyId(issuerCert.subjectPublicKeyInfo);
  const extensions: pkijs.Extension[] = [];
  switch (profile) {
    case 'intermediate-ca':
      extensions.push(
        extension(OID.basicConstraints, true, new pkijs.BasicConstraints({ cA: true, pathLenConstraint: options.pathLength ?? 0 }).toSchema()),
        extension(OID.keyUsage, true, keyUsage(KU.keyCertSign | KU.cRLSign)),
      );
      break;
    case 'signer':
    case 'seal':
      extensions.push(extension(OID.keyUsage, true, keyUsage(KU.digitalSignature | KU.nonRepudiation)));
      break;
    case 'tsa':
      extensions.push(
        extension(OID.keyUsage, true, keyUsage(KU.digitalSignature | KU.nonRepudiation)),
        extension(OID.extKeyUsage, true, new pkijs.ExtKeyUsage({ keyPurposes: [OID.ekuTimeStamping] }).toSchema()),
      );
      break;
    case 'ocsp-responder':
      extensions.push(
        extension(OID.keyUsage, true, keyUsage(KU.digitalSignature)),
        extension(OID.extKeyUsage, false, new pkijs.ExtKeyUsage({ keyPurposes: [OID.ekuOcspSigning] }).toSchema()),
        extension(OID.ocspNoCheck, false, new asn1js.Null()),
      );
      break;
    default:
      throw new SigningError('UNKNOWN_CERTIFICATE_PROFILE', `Unknown certificate profile "${String(profile)}"; use intermediate-ca, signer, seal, tsa or ocsp-responder.`);
  }
  const access: pkijs.AccessDescription[] = [];
  if (options.ocspUrl !== undefined) access.push(accessDescription(OID.adOcsp, options.ocspUrl));
  if (options.caIssuersUrl !== undefined) access.push(accessDescription(OID.adCaIssuers, options.caIssuersUrl));
  if (access.length > 0) {
    extensions.push(extension(OID.authorityInfoAccess, false, new pkijs.InfoAccess({ accessDescriptions: access }).toSchema()));
  }
  if (options.crlUrl !== undefined) {
    const point = new pkijs.DistributionPoint({ distributionPoint: [new pkijs.GeneralName({ type: 6, value: options.crlUrl })] });
    extensions.push(extension(OID.crlDistributionPoints, false, new pkijs.CRLDistributionPoints({ distributionPoints: [point] }).toSchema()));
  }
  return buildCertificate({
    subject,
    issuerName: issuerCert.subject,
    issuerKeyId,
    publicKey: options.publicKey,
    signingKey: options.issuer,
    validity: options,
    extensions,
  });
}

function accessDescription(method: string, url: string): pkijs.AccessDescription {
  return new pkijs.AccessDescription({ accessMethod: method, accessLocation: new pkijs.GeneralName({ type: 6, value: url }) });
}

/**
 * Creates a version 2 CRL signed by `issuer` (RFC 5280 §5) with cRLNumber and authorityKeyIdentifier, listing
 * the `revoked` entries.
 */
export async function createCrl(options: CrlOptions): Promise<Uint8Array> {
  if (options.crlNumber < 0n) throw new SigningError('INVALID_CRL_NUMBER', `A CRL number is 0 or more; got ${options.crlNumber}.`);
  if (!(options.thisUpdate.getTime() < options.nextUpdate.getTime())) {
    throw new SigningError('INVALID_VALIDITY', `thisUpdate (${options.thisUpdate.toISOString()}) must be before nextUpdate (${options.nextUpdate.toISOString()}).`);
  }
  const issuerCert = parseCertificate(options.issuer.certificate);
  const crl = new pkijs.CertificateRevocationList();
  crl.version = 1;
  crl.issuer = issuerCert.subject;
  crl.thisUpdate = new pkijs.Time({ type: timeType(options.thisUpdate), value: options.thisUpdate });
  crl.nextUpdate = new pkijs.Time({ type: timeType(options.nextUpdate), value: options.nextUpdate });
  const revoked = options.revoked ?? [];
  if (revoked.length > 0) {
    crl.revokedCertificates = revoked.map(
      (entry) =>
        new pkijs.RevokedCertificate({
          userCertificate: new asn1js.Integer({ valueHex: serialNumberBytes(entry.serialNumber) }),
          revocationDate: new pkijs.Time({ type: timeType(entry.revocationDate), value: entry.revocationDate }),
          ...(entry.reason === undefined
            ? {}
            : { crlEntryExtensions: new pkijs.Extensions({ extensions: [extension(OID.crlReason, false, new asn1js.Enumerated({ value: entry.reason }))] }) }),
        }),
    );
  }
  const issuerKeyId = await subjectKeyId(issuerCert.subjectPublicKeyInfo);
  crl.crlExtensions = new pkijs.Extensions({
    extensions: [
      extension(OID.authorityKeyIdentifier, false, new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: issuerKeyId }) }).toSchema()),
      extension(OID.crlNumber, false, new asn1js.Integer({ valueHex: options.crlNumber === 0n ? Uint8Array.of(0) : serialNumberBytes(options.crlNumber) })),
    ],
  });
  try {
    // encodeTBS is protected in pkijs's CRL typings (public on Certificate); it is the part the signature covers.
    const tbs = (): Uint8Array => new Uint8Array((crl as unknown as { encodeTBS(): asn1js.Sequence }).encodeTBS().toBER(false));
    await signWith(crl, tbs, options.issuer, options.hash ?? 'SHA-256');
  } catch (cause) {
    throw new SigningError('CRL_SIGNING_FAILED', `Signing the CRL failed: ${(cause as Error).message}`, { cause, origin: 'internal' });
  }
  return new Uint8Array(crl.toSchema(true).toBER(false));
}

/** DER to PEM with the given label (`CERTIFICATE`, `X509 CRL`, `PRIVATE KEY`). */
export function derToPem(der: Uint8Array, label: string): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
}
