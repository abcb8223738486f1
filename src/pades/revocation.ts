/**
 * Revocation data for PAdES B-LT (ETSI EN 319 142-1 §5.4): OCSP requests and responses (RFC 6960, CertID with
 * SHA-1 as RFC 5019 profiles it) and CRLs (RFC 5280 §5), fetched through the handed-in `RevocationFetcher` and
 * checked before they are embedded: the answer is about the right certificate, signed by its issuer or by a
 * delegated responder the issuer authorized (RFC 6960 §4.2.2.2), and current at `now`.
 */
import './crypto-engine.js';
import { constants, createHash, verify as cryptoVerify, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { SigningError } from '../errors.js';
import type { RevocationFetcher } from './types.js';

const OID = {
  ocspBasic: '1.3.6.1.5.5.7.48.1.1',
  ocspNonce: '1.3.6.1.5.5.7.48.1.2',
  ekuOcspSigning: '1.3.6.1.5.5.7.3.9',
  extKeyUsage: '2.5.29.37',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  adOcsp: '1.3.6.1.5.5.7.48.1',
  crlDistributionPoints: '2.5.29.31',
  rsaPss: '1.2.840.113549.1.1.10',
  sha1: '1.3.14.3.2.26',
} as const;

const SIGNATURE_HASH: Record<string, [scheme: 'pkcs1' | 'ecdsa', hash: string]> = {
  '1.2.840.113549.1.1.5': ['pkcs1', 'sha1'],
  '1.2.840.113549.1.1.11': ['pkcs1', 'sha256'],
  '1.2.840.113549.1.1.12': ['pkcs1', 'sha384'],
  '1.2.840.113549.1.1.13': ['pkcs1', 'sha512'],
  '1.2.840.10045.4.1': ['ecdsa', 'sha1'],
  '1.2.840.10045.4.3.2': ['ecdsa', 'sha256'],
  '1.2.840.10045.4.3.3': ['ecdsa', 'sha384'],
  '1.2.840.10045.4.3.4': ['ecdsa', 'sha512'],
};
const DIGEST_NAME: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** Revocation status of one certificate. */
export type RevocationStatus = 'good' | 'revoked' | 'unknown';

/** A checked OCSP answer. */
export interface OcspResult {
  readonly status: RevocationStatus;
  readonly producedAt: Date;
  readonly thisUpdate: Date;
  readonly nextUpdate: Date | undefined;
  readonly revocationTime: Date | undefined;
  /** The DER OCSPResponse, as it goes into a DSS /OCSPs stream. */
  readonly response: Uint8Array;
  /** DER certificates the response carries (a delegated responder's certificate). */
  readonly certificates: readonly Uint8Array[];
}

/** A checked CRL and what it says about one certificate. */
export interface CrlResult {
  readonly status: Exclude<RevocationStatus, 'unknown'>;
  readonly thisUpdate: Date;
  readonly nextUpdate: Date | undefined;
  readonly revocationTime: Date | undefined;
  /** The DER CRL, as it goes into a DSS /CRLs stream. */
  readonly crl: Uint8Array;
}

/** What a revocation check is about. */
export interface RevocationSubject {
  /** DER of the certificate whose status is asked. */
  readonly certificate: Uint8Array;
  /** DER of its issuer's certificate. */
  readonly issuer: Uint8Array;
  /** The time the answer must be current at. */
  readonly now: Date;
  /** Tolerated clock difference in ms for thisUpdate in the future (default 5 minutes). */
  readonly skewMs?: number;
}

function fail(code: string, message: string, cause?: unknown): SigningError {
  return new SigningError(code, message, { origin: 'internal', ...(cause === undefined ? {} : { cause }) });
}

function parseCert(der: Uint8Array, what: string): pkijs.Certificate {
  try {
    return pkijs.Certificate.fromBER(der);
  } catch (cause) {
    throw new SigningError('INVALID_CERTIFICATE', `The ${what} is not a DER X.509 certificate.`, { cause });
  }
}

function certDer(cert: pkijs.Certificate): Uint8Array {
  return new Uint8Array(cert.toSchema().toBER(false));
}

function subjectOf(der: Uint8Array): string {
  try {
    return new X509Certificate(der).subject.replace(/\n/g, ', ');
  } catch {
    return '(unparsable certificate)';
  }
}

/** The OCSP responder URLs (AIA id-ad-ocsp) and CRL distribution point URLs a certificate names. */
export function revocationUrls(certificate: Uint8Array): { ocsp: string[]; crl: string[] } {
  const cert = parseCert(certificate, 'certificate');
  const ocsp: string[] = [];
  const crl: string[] = [];
  for (const ext of cert.extensions ?? []) {
    if (ext.extnID === OID.authorityInfoAccess) {
      for (const ad of (ext.parsedValue as pkijs.InfoAccess).accessDescriptions) {
        if (ad.accessMethod === OID.adOcsp && ad.accessLocation.type === 6) ocsp.push(String(ad.accessLocation.value));
      }
    } else if (ext.extnID === OID.crlDistributionPoints) {
      for (const dp of (ext.parsedValue as pkijs.CRLDistributionPoints).distributionPoints) {
        const names = Array.isArray(dp.distributionPoint) ? dp.distributionPoint : [];
        for (const name of names) if (name.type === 6) crl.push(String(name.value));
      }
    }
  }
  return { ocsp, crl };
}

/** Builds a DER OCSPRequest for `certificate` (CertID over SHA-1), with the nonce extension when given. */
export async function buildOcspRequest(certificate: Uint8Array, issuer: Uint8Array, options: { nonce?: Uint8Array } = {}): Promise<Uint8Array> {
  const req = new pkijs.OCSPRequest();
  await req.createForCertificate(parseCert(certificate, 'certificate'), { hashAlgorithm: 'SHA-1', issuerCertificate: parseCert(issuer, 'issuer certificate') });
  if (options.nonce) {
    req.tbsRequest.requestExtensions = [
      new pkijs.Extension({ extnID: OID.ocspNonce, extnValue: new asn1js.OctetString({ valueHex: Uint8Array.from(options.nonce) }).toBER(false) }),
    ];
  }
  return new Uint8Array(req.toSchema(true).toBER(false));
}

/** Verifies a signature made by `signerDer`'s key over `tbs` with the given AlgorithmIdentifier. */
function signatureHolds(tbs: Uint8Array, signature: Uint8Array, algorithm: pkijs.AlgorithmIdentifier, signerDer: Uint8Array): boolean {
  try {
    const key = new X509Certificate(signerDer).publicKey;
    const named = SIGNATURE_HASH[algorithm.algorithmId];
    if (named) {
      return named[0] === 'ecdsa'
        ? cryptoVerify(named[1], tbs, { key, dsaEncoding: 'der' }, signature)
        : cryptoVerify(named[1], tbs, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    }
    if (algorithm.algorithmId === OID.rsaPss) {
      const params = new pkijs.RSASSAPSSParams({ schema: algorithm.algorithmParams });
      const hash = DIGEST_NAME[params.hashAlgorithm.algorithmId] ?? 'sha1';
      return cryptoVerify(hash, tbs, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: params.saltLength }, signature);
    }
    return false;
  } catch {
    return false;
  }
}

/** Whether the DER certificate `certificate` names `issuer` as its issuer and carries a signature of its key. */
export function isIssuedBy(certificate: Uint8Array, issuer: Uint8Array): boolean {
  try {
    return issuedBy(pkijs.Certificate.fromBER(certificate), issuer);
  } catch {
    return false;
  }
}

function issuedBy(cert: pkijs.Certificate, issuerDer: Uint8Array): boolean {
  const issuer = pkijs.Certificate.fromBER(issuerDer);
  if (!cert.issuer.isEqual(issuer.subject)) return false;
  return signatureHolds(
    Uint8Array.from(cert.tbsView),
    cert.signatureValue.valueBlock.valueHexView,
    cert.signatureAlgorithm,
    issuerDer,
  );
}

function hasOcspSigning(cert: pkijs.Certificate): boolean {
  const eku = cert.extensions?.find((e) => e.extnID === OID.extKeyUsage)?.parsedValue as pkijs.ExtKeyUsage | undefined;
  return eku?.keyPurposes.includes(OID.ekuOcspSigning) ?? false;
}

function responderMatches(responderID: unknown, cert: pkijs.Certificate): boolean {
  if (responderID instanceof pkijs.RelativeDistinguishedNames) return responderID.isEqual(cert.subject);
  if (responderID instanceof asn1js.OctetString) {
    const keyHash = createHash('sha1').update(cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
    return Buffer.from(responderID.valueBlock.valueHexView).equals(keyHash);
  }
  return false;
}

function checkCurrent(thisUpdate: Date, nextUpdate: Date | undefined, subject: RevocationSubject, what: string): void {
  const skew = subject.skewMs ?? 5 * 60_000;
  if (thisUpdate.getTime() > subject.now.getTime() + skew) {
    throw fail(`${what}_NOT_YET_VALID`, `The ${what === 'OCSP' ? 'OCSP response' : 'CRL'} is from ${thisUpdate.toISOString()}, after ${subject.now.toISOString()}; check the clocks.`);
  }
  if (nextUpdate && nextUpdate.getTime() < subject.now.getTime()) {
    throw fail(`${what}_EXPIRED`, `The ${what === 'OCSP' ? 'OCSP response' : 'CRL'} expired at ${nextUpdate.toISOString()} (now ${subject.now.toISOString()}); fetch a fresh one.`);
  }
}

/**
 * Checks a DER OCSPResponse about `subject.certificate`: successful, basic, signed by the issuer or a delegated
 * responder (issued by the issuer, EKU OCSPSigning), a SingleResponse for this certificate, current at `now`, and
 * echoing `nonce` when the response carries one.
 */
export async function checkOcspResponse(response: Uint8Array, subject: RevocationSubject & { nonce?: Uint8Array }): Promise<OcspResult> {
  let basic: pkijs.BasicOCSPResponse;
  try {
    const ocsp = pkijs.OCSPResponse.fromBER(response);
    const status = ocsp.responseStatus.valueBlock.valueDec;
    if (status !== 0) throw fail('OCSP_NOT_SUCCESSFUL', `The OCSP responder answered with status ${status} (not successful) for ${subjectOf(subject.certificate)}.`);
    if (!ocsp.responseBytes || ocsp.responseBytes.responseType !== OID.ocspBasic) throw new Error('no basic OCSP response inside');
    basic = pkijs.BasicOCSPResponse.fromBER(ocsp.responseBytes.response.valueBlock.valueHexView);
  } catch (cause) {
    if (cause instanceof SigningError) throw cause;
    throw fail('OCSP_BAD_RESPONSE', `The OCSP answer is not an RFC 6960 OCSPResponse: ${(cause as Error).message}.`, cause);
  }
  const issuerCert = parseCert(subject.issuer, 'issuer certificate');
  const embedded = basic.certs ?? [];
  const candidates: { der: Uint8Array; delegated: boolean; cert: pkijs.Certificate }[] = [
    { der: subject.issuer, delegated: false, cert: issuerCert },
    ...embedded.map((cert) => ({ der: certDer(cert), delegated: true, cert })),
  ];
  const responder = candidates.find((c) => responderMatches(basic.tbsResponseData.responderID, c.cert));
  if (!responder) throw fail('OCSP_RESPONSE_INVALID', 'The OCSP response names a responder whose certificate is neither the issuer nor included in the response.');
  if (responder.delegated && !(issuedBy(responder.cert, subject.issuer) && hasOcspSigning(responder.cert))) {
    throw fail('OCSP_RESPONSE_INVALID', `The OCSP responder ${subjectOf(responder.der)} is not authorized by the issuer (RFC 6960 §4.2.2.2: issued by the CA, EKU OCSPSigning).`);
  }
  const producedAt = basic.tbsResponseData.producedAt.getTime();
  if (responder.delegated && (producedAt < responder.cert.notBefore.value.getTime() || producedAt > responder.cert.notAfter.value.getTime())) {
    throw fail('OCSP_RESPONSE_INVALID', `The OCSP responder certificate ${subjectOf(responder.der)} was not valid when the response was produced.`);
  }
  const tbs = new Uint8Array(basic.tbsResponseData.tbsView);
  if (!signatureHolds(tbs, basic.signature.valueBlock.valueHexView, basic.signatureAlgorithm, responder.der)) {
    throw fail('OCSP_RESPONSE_INVALID', 'The OCSP response signature does not verify with the responder certificate.');
  }
  const certificate = parseCert(subject.certificate, 'certificate');
  const certId = new pkijs.CertID();
  await certId.createForCertificate(certificate, { hashAlgorithm: 'SHA-1', issuerCertificate: issuerCert });
  const single = basic.tbsResponseData.responses.find(
    (r) => r.certID.issuerNameHash.isEqual(certId.issuerNameHash) && r.certID.issuerKeyHash.isEqual(certId.issuerKeyHash) && r.certID.serialNumber.isEqual(certId.serialNumber),
  );
  if (!single) throw fail('OCSP_RESPONSE_INVALID', `The OCSP response is not about ${subjectOf(subject.certificate)} (no matching CertID).`);
  const nonceExt = basic.tbsResponseData.responseExtensions?.find((e) => e.extnID === OID.ocspNonce);
  if (nonceExt && subject.nonce) {
    const value = asn1js.fromBER(nonceExt.extnValue.valueBlock.valueHexView).result;
    const echoed = value instanceof asn1js.OctetString ? value.valueBlock.valueHexView : new Uint8Array(0);
    if (!Buffer.from(echoed).equals(Buffer.from(subject.nonce))) throw fail('OCSP_NONCE_MISMATCH', 'The OCSP response carries another nonce than the request (a replayed answer).');
  }
  checkCurrent(single.thisUpdate, single.nextUpdate, subject, 'OCSP');
  const tag = single.certStatus.idBlock.tagNumber;
  let revocationTime: Date | undefined;
  if (tag === 1) {
    const time = (single.certStatus as asn1js.Constructed).valueBlock.value[0];
    revocationTime = time instanceof asn1js.GeneralizedTime ? time.toDate() : undefined;
  }
  return {
    status: tag === 0 ? 'good' : tag === 1 ? 'revoked' : 'unknown',
    producedAt: basic.tbsResponseData.producedAt,
    thisUpdate: single.thisUpdate,
    nextUpdate: single.nextUpdate,
    revocationTime,
    response: Uint8Array.from(response),
    certificates: embedded.map(certDer),
  };
}

/**
 * Asks the certificate's OCSP responder (its AIA URL, or `url`) through `fetcher` and checks the answer.
 * Throws `OCSP_NO_URL` when the certificate names no responder and `OCSP_UNAVAILABLE` when fetching fails.
 */
export async function fetchOcsp(fetcher: RevocationFetcher, subject: RevocationSubject & { url?: string; nonce?: Uint8Array }): Promise<OcspResult> {
  const url = subject.url ?? revocationUrls(subject.certificate).ocsp[0];
  if (url === undefined) throw fail('OCSP_NO_URL', `The certificate ${subjectOf(subject.certificate)} names no OCSP responder (AIA).`);
  const request = await buildOcspRequest(subject.certificate, subject.issuer, subject.nonce ? { nonce: subject.nonce } : {});
  let response: Uint8Array;
  try {
    response = await fetcher.ocsp(url, request);
  } catch (cause) {
    throw fail('OCSP_UNAVAILABLE', `The OCSP responder ${url} could not be asked about ${subjectOf(subject.certificate)}: ${(cause as Error).message}.`, cause);
  }
  return checkOcspResponse(response, subject);
}

/** Checks a DER CRL: issued and signed by `subject.issuer`, current at `now`; reports whether it lists the certificate. */
export function checkCrl(crlDer: Uint8Array, subject: RevocationSubject): CrlResult {
  let crl: pkijs.CertificateRevocationList;
  try {
    crl = pkijs.CertificateRevocationList.fromBER(crlDer);
  } catch (cause) {
    throw fail('CRL_BAD', `The CRL is not a DER X.509 CRL: ${(cause as Error).message}.`, cause);
  }
  const issuer = parseCert(subject.issuer, 'issuer certificate');
  if (!crl.issuer.isEqual(issuer.subject)) throw fail('CRL_INVALID', `The CRL is not issued by ${subjectOf(subject.issuer)}.`);
  const tbs = Uint8Array.from(crl.tbsView);
  if (!signatureHolds(tbs, crl.signatureValue.valueBlock.valueHexView, crl.signature, subject.issuer)) {
    throw fail('CRL_INVALID', `The CRL signature does not verify with ${subjectOf(subject.issuer)}.`);
  }
  const nextUpdate = crl.nextUpdate?.value;
  checkCurrent(crl.thisUpdate.value, nextUpdate, subject, 'CRL');
  const serial = parseCert(subject.certificate, 'certificate').serialNumber;
  const entry = crl.revokedCertificates?.find((r) => r.userCertificate.isEqual(serial));
  return {
    status: entry ? 'revoked' : 'good',
    thisUpdate: crl.thisUpdate.value,
    nextUpdate,
    revocationTime: entry?.revocationDate.value,
    crl: Uint8Array.from(crlDer),
  };
}

/** Fetches the certificate's CRL (its first distribution point, or `url`) through `fetcher` and checks it. */
export async function fetchCrl(fetcher: RevocationFetcher, subject: RevocationSubject & { url?: string }): Promise<CrlResult> {
  const url = subject.url ?? revocationUrls(subject.certificate).crl[0];
  if (url === undefined) throw fail('CRL_NO_URL', `The certificate ${subjectOf(subject.certificate)} names no CRL distribution point.`);
  let der: Uint8Array;
  try {
    der = await fetcher.crl(url);
  } catch (cause) {
    throw fail('CRL_UNAVAILABLE', `The CRL at ${url} could not be fetched for ${subjectOf(subject.certificate)}: ${(cause as Error).message}.`, cause);
  }
  return checkCrl(der, subject);
}

/**
 * A `RevocationFetcher` over HTTP (OCSP by POST, RFC 6960 Appendix A.1; CRL by GET) with the given `fetch`.
 * Handed to the core by the application; tests bind theirs to 127.0.0.1.
 */
export function createHttpRevocationFetcher(options: { fetch?: typeof globalThis.fetch; timeoutMs?: number } = {}): RevocationFetcher {
  const doFetch = options.fetch ?? globalThis.fetch;
  const get = async (url: string, init: RequestInit): Promise<Uint8Array> => {
    const res = await doFetch(url, { ...init, signal: AbortSignal.timeout(options.timeoutMs ?? 30_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  return {
    ocsp: (url, request) => get(url, { method: 'POST', headers: { 'Content-Type': 'application/ocsp-request', Accept: 'application/ocsp-response' }, body: request }),
    crl: (url) => get(url, { method: 'GET' }),
  };
}
