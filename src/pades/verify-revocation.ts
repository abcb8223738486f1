/**
 * Reads the validation data of a /DSS (ETSI EN 319 142-1 §5.4.2: /Certs, /OCSPs, /CRLs) and tells whether it
 * covers a certificate path with revocation information (the B-LT condition), and whether that information says
 * a certificate was revoked. CRL signatures are checked against the issuer; OCSP responses are matched by
 * CertID (issuer name hash and serial number) and count only when signed by the issuer or by a responder the issuer
 * delegated (RFC 6960 §4.2.2.2: issued by it, with the OCSPSigning extended key usage). Freshness (thisUpdate,
 * nextUpdate) is not judged.
 */
import './crypto-engine.js';
import { createHash, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFStream, decodePDFRawStream, type PDFObject } from '../pdf/pdf-lib.js';
import { resolveIn, type ObjectState } from './modification-check.js';
import type { CertificateParser } from './verify-chain.js';
import { digestNameOf, verifySignatureValue } from './verify-cms.js';

/** The DER items a /DSS holds. */
export interface DssData {
  readonly certs: readonly Uint8Array[];
  readonly ocsps: readonly Uint8Array[];
  readonly crls: readonly Uint8Array[];
}

/** Whether revocation data covers a path, and what it says. */
export interface RevocationCoverage {
  /** Every certificate of the path except the trust root has an OCSP response or a CRL from its issuer. */
  readonly covered: boolean;
  /** Subjects of certificates without revocation data. */
  readonly missing: readonly string[];
  /** Subjects of certificates the data reports as revoked. */
  readonly revoked: readonly string[];
  readonly warnings: readonly string[];
}

function subjectOf(cert: pkijs.Certificate): string {
  return cert.subject.typesAndValues.map((tv) => `${tv.type === '2.5.4.3' ? 'CN' : tv.type}=${tv.value.valueBlock.value}`).join(', ');
}

interface OcspEntry {
  readonly serial: Uint8Array;
  readonly nameHash: Uint8Array;
  readonly hashName: string;
  readonly status: 'good' | 'revoked' | 'unknown';
  readonly response: pkijs.BasicOCSPResponse;
}

const EKU_OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';

/** Whether `response` is signed by `issuer` (DER) itself or by a responder certificate it delegated. */
function ocspSignedFor(response: pkijs.BasicOCSPResponse, issuer: Uint8Array): boolean {
  const tbs = response.tbsResponseData.tbsView;
  const signature = response.signature.valueBlock.valueHexView;
  if (verifySignatureValue(response.signatureAlgorithm, issuer, tbs, signature)) return true;
  try {
    const issuerCert = new X509Certificate(issuer);
    for (const cert of response.certs ?? []) {
      const der = new Uint8Array(cert.toSchema().toBER(false));
      const responder = new X509Certificate(der);
      const delegated = responder.checkIssued(issuerCert) && responder.verify(issuerCert.publicKey) && (responder.keyUsage ?? []).includes(EKU_OCSP_SIGNING);
      if (delegated && verifySignatureValue(response.signatureAlgorithm, der, tbs, signature)) return true;
    }
  } catch {
    // An unparsable responder certificate cannot vouch for the response.
  }
  return false;
}

function readOcspEntries(ocsps: readonly Uint8Array[], warnings: string[]): OcspEntry[] {
  const entries: OcspEntry[] = [];
  for (const der of ocsps) {
    try {
      const response = pkijs.OCSPResponse.fromBER(der);
      const bytes = response.responseBytes?.response.valueBlock.valueHexView;
      if (!bytes) continue;
      const basic = pkijs.BasicOCSPResponse.fromBER(bytes);
      for (const single of basic.tbsResponseData.responses) {
        const hashName = digestNameOf(single.certID.hashAlgorithm.algorithmId);
        if (!hashName) continue;
        const tag = (single.certStatus as asn1js.BaseBlock).idBlock.tagNumber;
        entries.push({
          serial: single.certID.serialNumber.valueBlock.valueHexView,
          nameHash: single.certID.issuerNameHash.valueBlock.valueHexView,
          hashName,
          status: tag === 0 ? 'good' : tag === 1 ? 'revoked' : 'unknown',
          response: basic,
        });
      }
    } catch (error) {
      warnings.push(`an OCSP response in the /DSS cannot be read (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  return entries;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}

/**
 * Checks that `path` (DER, leaf first; its last element may be a trust root, which needs no revocation data) is
 * covered by the OCSP responses and CRLs of `dss`.
 */
export async function checkRevocationCoverage(
  path: readonly Uint8Array[],
  trustRoots: readonly Uint8Array[],
  dss: DssData,
): Promise<RevocationCoverage> {
  const warnings: string[] = [];
  const missing: string[] = [];
  const revoked: string[] = [];
  const certs = path.map((der) => pkijs.Certificate.fromBER(der));
  const ocsp = readOcspEntries(dss.ocsps, warnings);
  const crls: pkijs.CertificateRevocationList[] = [];
  for (const der of dss.crls) {
    try {
      crls.push(pkijs.CertificateRevocationList.fromBER(der));
    } catch {
      warnings.push('a CRL in the /DSS cannot be read');
    }
  }
  for (let i = 0; i < certs.length; i++) {
    const cert = certs[i]!;
    if (trustRoots.some((root) => equalBytes(root, path[i]!))) continue;
    const issuer = certs[i + 1];
    const serial = cert.serialNumber.valueBlock.valueHexView;
    const issuerName = new Uint8Array(cert.issuer.toSchema().toBER(false));
    const matching = ocsp.filter((e) => equalBytes(e.serial, serial) && equalBytes(e.nameHash, createHash(e.hashName).update(issuerName).digest()));
    const byOcsp = matching.find((e) => path[i + 1] !== undefined && ocspSignedFor(e.response, path[i + 1]!));
    if (matching.length > 0 && !byOcsp) warnings.push(`an OCSP response for ${subjectOf(cert)} is not signed by its issuer or a delegated responder`);
    let found = false;
    if (byOcsp) {
      found = byOcsp.status !== 'unknown';
      if (byOcsp.status === 'revoked') revoked.push(subjectOf(cert));
    }
    for (const crl of crls) {
      if (!crl.issuer.isEqual(cert.issuer)) continue;
      if (issuer) {
        const ok = await crl.verify({ issuerCertificate: issuer }).catch(() => false);
        if (!ok) {
          warnings.push(`a CRL for ${subjectOf(cert)} does not verify with its issuer's key`);
          continue;
        }
      }
      found = true;
      if (crl.revokedCertificates?.some((r) => r.userCertificate.isEqual(cert.serialNumber))) revoked.push(subjectOf(cert));
    }
    if (!found) missing.push(subjectOf(cert));
  }
  return { covered: missing.length === 0, missing, revoked, warnings };
}

function streamBytes(state: ObjectState, value: PDFObject | undefined): Uint8Array | undefined {
  const resolved = resolveIn(state, value);
  if (resolved instanceof PDFRawStream) return decodePDFRawStream(resolved).decode();
  if (resolved instanceof PDFStream) return resolved.getContents();
  return undefined;
}

/** Reads /DSS /Certs, /OCSPs and /CRLs of the final document; undefined when it has no /DSS. */
export function readDss(state: ObjectState, warnings: string[], parse: CertificateParser): DssData | undefined {
  const catalog = resolveIn(state, state.root);
  const dss = catalog instanceof PDFDict ? resolveIn(state, catalog.get(PDFName.of('DSS'))) : undefined;
  if (!(dss instanceof PDFDict)) return undefined;
  const list = (key: string): Uint8Array[] => {
    const array = resolveIn(state, dss.get(PDFName.of(key)));
    if (!(array instanceof PDFArray)) return [];
    const out: Uint8Array[] = [];
    for (const item of array.asArray()) {
      try {
        const bytes = streamBytes(state, item);
        if (bytes) out.push(bytes);
      } catch {
        warnings.push(`a /DSS /${key} stream cannot be decoded`);
      }
    }
    return out;
  };
  const certs = list('Certs').filter((der) => {
    try {
      parse(der);
      return true;
    } catch {
      warnings.push('a /DSS /Certs entry is not an X.509 certificate and is ignored');
      return false;
    }
  });
  return { certs, ocsps: list('OCSPs'), crls: list('CRLs') };
}
