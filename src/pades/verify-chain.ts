/**
 * Builds and checks a certificate path (RFC 5280 §6, simplified) from a signer or time-stamp certificate, through
 * the certificates a signature carries (CMS certificates, /DSS certificates), to one of the caller's trust roots:
 * each certificate's signature verifies with its issuer's key, issuers are CAs allowed to sign certificates, the
 * leaf's key usage allows signing, and every certificate is valid at the validation time. Revocation, path length
 * and name constraints and certificate policies are not judged here.
 */
import './crypto-engine.js';
import { X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/** The verdict on one certificate path. */
export interface ChainCheck {
  /** A path to a trust root was found and every certificate on it is acceptable. */
  readonly chainOk: boolean;
  /** Why the chain is not ok, or `trusted` when it is. */
  readonly reason: string;
  /** DER of the path found, leaf first, trust root last (as far as it could be built). */
  readonly path: readonly Uint8Array[];
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/**
 * Turns trust-root inputs (DER bytes, or PEM text — as bytes or a string — with one or more certificates) into DER certificates. Throws an Error
 * naming the input index when one cannot be read as a certificate.
 */
export function parseCertificates(inputs: readonly (Uint8Array | string)[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  inputs.forEach((input, index) => {
    const text = typeof input === 'string' ? input : Buffer.from(input).toString('latin1');
    const blocks = [...text.matchAll(PEM_BLOCK)];
    const ders = blocks.length > 0 ? blocks.map((m) => new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'))) : [typeof input === 'string' ? Buffer.from(input, 'latin1') : input];
    for (const der of ders) {
      try {
        new X509Certificate(der);
      } catch {
        throw new Error(`trust root #${index + 1} is not an X.509 certificate in DER or PEM form`);
      }
      out.push(der);
    }
  });
  return out;
}

/** Parses DER certificates, reusing the parse of bytes seen before (one cache per verification run). */
export type CertificateParser = (der: Uint8Array) => X509Certificate;

/** A {@link CertificateParser} with its own cache; drop it after one verification run. */
export function createCertificateParser(): CertificateParser {
  const cache = new Map<string, X509Certificate>();
  return (der) => {
    const key = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('base64');
    let cert = cache.get(key);
    if (!cert) cache.set(key, (cert = new X509Certificate(der)));
    return cert;
  };
}

/** The subject of a certificate as one line, e.g. `CN=Alice, O=Example`. */
export function describeName(name: string): string {
  return name.split('\n').filter(Boolean).join(', ');
}

function same(a: X509Certificate, b: X509Certificate): boolean {
  return a.raw.equals(b.raw);
}

function issues(issuer: X509Certificate, subject: X509Certificate): boolean {
  try {
    return subject.checkIssued(issuer) && subject.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

const KU = { digitalSignature: 0x80, nonRepudiation: 0x40, keyCertSign: 0x04 } as const;

// Parsed key usage per certificate object; the objects live as long as one verification's certificate parser.
const keyUsages = new WeakMap<X509Certificate, number | undefined>();

/** The first octet of the key usage extension (RFC 5280 §4.2.1.3), or undefined when the certificate has none. */
function keyUsageOf(cert: X509Certificate): number | undefined {
  if (keyUsages.has(cert)) return keyUsages.get(cert);
  const usage = readKeyUsage(cert);
  keyUsages.set(cert, usage);
  return usage;
}

function readKeyUsage(cert: X509Certificate): number | undefined {
  try {
    const parsed = pkijs.Certificate.fromBER(cert.raw);
    const ext = parsed.extensions?.find((e) => e.extnID === '2.5.29.15');
    if (!ext) return undefined;
    const bits = asn1js.fromBER(ext.extnValue.valueBlock.valueHexView).result;
    return bits instanceof asn1js.BitString ? (bits.valueBlock.valueHexView[0] ?? 0) : 0;
  } catch {
    return 0;
  }
}

/** Why `cert` may not be used in its place on the path (leaf: signing; above: issuing certificates), if so. */
function keyUsageProblem(cert: X509Certificate, asIssuer: boolean): string | undefined {
  const usage = keyUsageOf(cert);
  if (usage === undefined) return undefined;
  if (asIssuer && (usage & KU.keyCertSign) === 0) return `issuer ${describeName(cert.subject)} may not sign certificates (key usage lacks keyCertSign)`;
  if (!asIssuer && (usage & (KU.digitalSignature | KU.nonRepudiation)) === 0) {
    return `certificate ${describeName(cert.subject)} may not sign (key usage lacks digitalSignature and nonRepudiation)`;
  }
  return undefined;
}

function validityProblem(cert: X509Certificate, at: Date | undefined): string | undefined {
  if (!at) return undefined;
  const from = new Date(cert.validFrom);
  const to = new Date(cert.validTo);
  if (at < from) return `certificate ${describeName(cert.subject)} is not yet valid at ${at.toISOString()}`;
  if (at > to) return `certificate ${describeName(cert.subject)} expired on ${to.toISOString()}`;
  return undefined;
}

/**
 * Checks the path from `leaf` to one of `trustRoots`, using `pool` for intermediates. Certificates are judged at
 * `at`; without it validity periods are not checked (the caller says so in its warnings). `parse` lets a caller
 * that checks many chains share certificate parses.
 */
export function checkChain(
  leaf: Uint8Array,
  pool: readonly Uint8Array[],
  trustRoots: readonly Uint8Array[],
  at: Date | undefined,
  parse: CertificateParser = (der) => new X509Certificate(der),
): ChainCheck {
  const roots = trustRoots.map(parse);
  const candidates = pool.flatMap((der) => {
    try {
      return [parse(der)];
    } catch {
      return [];
    }
  });
  let current: X509Certificate;
  try {
    current = parse(leaf);
  } catch {
    return { chainOk: false, reason: 'the certificate cannot be parsed', path: [leaf] };
  }
  const path: X509Certificate[] = [current];
  const result = (chainOk: boolean, reason: string): ChainCheck => ({
    chainOk,
    reason,
    path: path.map((c) => new Uint8Array(c.raw)),
  });
  for (let depth = 0; depth < 12; depth++) {
    const expired = validityProblem(current, at);
    if (expired) return result(false, expired);
    if (depth > 0 && !current.ca) return result(false, `issuer ${describeName(current.subject)} is not a CA certificate`);
    const usage = keyUsageProblem(current, depth > 0);
    if (usage) return result(false, usage);
    if (roots.some((r) => same(r, current))) return result(true, 'trusted');
    const root = roots.find((r) => issues(r, current));
    if (root) {
      path.push(root);
      const rootExpired = validityProblem(root, at);
      if (rootExpired) return result(false, rootExpired);
      if (!root.ca) return result(false, `trust root ${describeName(root.subject)} is not a CA certificate`);
      const rootUsage = keyUsageProblem(root, true);
      if (rootUsage) return result(false, rootUsage);
      return result(true, 'trusted');
    }
    const next = candidates.find((c) => !path.some((p) => same(p, c)) && issues(c, current));
    if (!next) {
      const selfSigned = current.checkIssued(current);
      return result(
        false,
        selfSigned
          ? `the chain ends at ${describeName(current.subject)}, which is not one of the trust roots`
          : `no issuer found for ${describeName(current.subject)} (issuer ${describeName(current.issuer)}) among the signature's certificates and the trust roots`,
      );
    }
    path.push(next);
    current = next;
  }
  return result(false, 'the certificate chain is longer than 12 certificates');
}
