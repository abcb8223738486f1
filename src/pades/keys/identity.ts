/**
 * Ready-made identities for the service's own CAs (docs/design/signatures.md#signing-ca: an advanced signing CA issuing
 * one certificate per signature, a seal CA and seal certificate, created on first start and persisted by the caller):
 * generate a key, issue its certificate with ca.ts, and hand back the certificate, the PKCS#8 key to persist and a
 * `Signer`. Pure apart from key generation: serial numbers and validity are handed in.
 */
import { webcrypto } from 'node:crypto';
import { createRootCertificate, issueCertificate, type CertificateAuthority, type CertificateProfile, type SoftwareAuthority, type DistinguishedName, type SerialNumber } from './ca.js';
import { createSoftwareSigner, generateKeyPair, importPkcs8Key, type KeyKind, type SoftwareSigner } from './software.js';

/** Validity and serial of a certificate to create. */
export interface IdentityValidity {
  readonly serialNumber: SerialNumber;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** A CA the caller persists (`certificate` and `pkcs8`) and restores with `loadCertificateAuthority`. */
export interface CreatedAuthority extends SoftwareAuthority {
  /** DER PKCS#8 of the private key: store it encrypted. */
  readonly pkcs8: Uint8Array;
}

/** An end-entity identity: its signer plus what to persist. */
export interface CreatedIdentity {
  readonly certificate: Uint8Array;
  readonly pkcs8: Uint8Array;
  /** Chain: the new certificate, then the issuing CA's certificate (and its issuers when given). */
  readonly signer: SoftwareSigner;
}

/**
 * Creates a self-signed CA (RSA-3072 by default).
 * @example
 * import { randomBytes } from 'node:crypto';
 * const ca = await createCertificateAuthority({ subject: { organization: 'Acme', commonName: 'Acme Signing CA' },
 *   serialNumber: BigInt(`0x${randomBytes(16).toString('hex')}`) + 1n, notBefore: now, notAfter: tenYearsLater });
 */
export async function createCertificateAuthority(options: IdentityValidity & { subject: DistinguishedName; kind?: KeyKind }): Promise<CreatedAuthority> {
  const keys = await generateKeyPair(options.kind ?? 'rsa-3072');
  const certificate = await createRootCertificate({ ...options, keyPair: keys });
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { certificate, privateKey: keys.privateKey, pkcs8 };
}

/** Restores a persisted CA from its DER certificate and DER/PEM PKCS#8 key. */
export async function loadCertificateAuthority(certificate: Uint8Array, pkcs8: Uint8Array | string): Promise<CertificateAuthority> {
  return { certificate: Uint8Array.from(certificate), privateKey: await importPkcs8Key(pkcs8) };
}

/**
 * Generates a key (ECDSA P-256 by default) and issues it a `signer` or `seal` certificate under `issuer`.
 * `issuerChain` are the DER certificates above the issuer (if the issuer is not itself the root).
 */
export async function issueSigningIdentity(
  options: IdentityValidity & {
    issuer: CertificateAuthority;
    subject: DistinguishedName;
    profile?: Extract<CertificateProfile, 'signer' | 'seal'>;
    kind?: KeyKind;
    issuerChain?: readonly Uint8Array[];
    ocspUrl?: string;
    crlUrl?: string;
  },
): Promise<CreatedIdentity> {
  const keys = await generateKeyPair(options.kind ?? 'ecdsa-p256');
  const certificate = await issueCertificate({
    profile: options.profile ?? 'signer',
    subject: options.subject,
    publicKey: keys.publicKey,
    issuer: options.issuer,
    serialNumber: options.serialNumber,
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    ...(options.ocspUrl === undefined ? {} : { ocspUrl: options.ocspUrl }),
    ...(options.crlUrl === undefined ? {} : { crlUrl: options.crlUrl }),
  });
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const signer = createSoftwareSigner({ privateKey: keys.privateKey, certificateChain: [certificate, options.issuer.certificate, ...(options.issuerChain ?? [])] });
  return { certificate, pkcs8, signer };
}
