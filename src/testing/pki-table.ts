/**
 * The test PKI, declared once (compare pyHanko's certomancer.yml): names, key kinds, profiles, serial numbers, subjects
 * and revocation pointers of every certificate. `fixtures/generate-pki.ts` writes the key material from this table into
 * `fixtures/pki/`; the build copies it to `dist/testing/test-pki-material/` (the package ships it only there, as test material of
 * `paraph/testing`), and {@link testPki} loads it from whichever of the two sits next to this module.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CertificateProfile, DistinguishedName } from '../pades/keys/ca.js';
import type { KeyKind } from '../pades/keys/software.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Where the PKI files are: `test-pki-material/` beside the built module in the package, else `fixtures/pki/` of the repository. */
export const PKI_DIR = existsSync(join(here, 'test-pki-material')) ? join(here, 'test-pki-material') : join(here, '..', '..', 'fixtures', 'pki');
/** Start of the validity of every certificate and CRL of the test PKI. */
export const NOT_BEFORE = new Date('2026-01-01T00:00:00Z');
/** End of the validity of every certificate and CRL of the test PKI. */
export const NOT_AFTER = new Date('2036-01-01T00:00:00Z');
/** The OCSP URL written into the end-entity certificates (AIA). */
export const OCSP_URL = 'http://ocsp.paraph.test/';
/** The CRL distribution points written into the certificates, per issuing CA. */
export const CRL_URLS = { root: 'http://crl.paraph.test/root.crl', intermediate: 'http://crl.paraph.test/intermediate.crl' } as const;
/** The password of every PKCS#12 file. */
export const P12_PASSWORD = 'paraph';

/** One certificate of the test PKI. */
export interface Entry {
  readonly name: string;
  readonly description: string;
  readonly kind: KeyKind;
  readonly profile: 'root' | CertificateProfile;
  readonly issuer?: string;
  readonly serial: bigint;
  readonly subject: DistinguishedName;
  /** Revocation pointers written into the certificate: OCSP for end entities, the issuer's CRL for all. */
  readonly ocsp?: boolean;
  readonly crl?: keyof typeof CRL_URLS;
  readonly p12?: boolean;
}

const ORG = { country: 'NL', organization: 'paraph test' } as const;

/** THE test PKI. */
export const PKI: readonly Entry[] = [
  { name: 'root-ca', description: 'Self-signed root CA (trust anchor)', kind: 'rsa-2048', profile: 'root', serial: 0x1000n, subject: { ...ORG, commonName: 'paraph Test Root CA' } },
  { name: 'intermediate-ca', description: 'Intermediate CA issuing every end-entity certificate', kind: 'rsa-2048', profile: 'intermediate-ca', issuer: 'root-ca', serial: 0x1001n, subject: { ...ORG, commonName: 'paraph Test Intermediate CA' }, crl: 'root' },
  { name: 'signer-rsa', description: 'Natural-person signer, RSA-2048 (PKCS#1 v1.5)', kind: 'rsa-2048', profile: 'signer', issuer: 'intermediate-ca', serial: 0x2001n, subject: { country: 'NL', commonName: 'Alice Example', emailAddress: 'alice@example.com' }, ocsp: true, crl: 'intermediate', p12: true },
  { name: 'signer-rsa-pss', description: 'Natural-person signer, RSA-2048 key used with RSA-PSS', kind: 'rsa-pss-2048', profile: 'signer', issuer: 'intermediate-ca', serial: 0x2002n, subject: { country: 'NL', commonName: 'Bob Example', emailAddress: 'bob@example.com' }, ocsp: true, crl: 'intermediate' },
  { name: 'signer-p256', description: 'Natural-person signer, ECDSA P-256', kind: 'ecdsa-p256', profile: 'signer', issuer: 'intermediate-ca', serial: 0x2003n, subject: { country: 'NL', commonName: 'Carol Example', emailAddress: 'carol@example.com' }, ocsp: true, crl: 'intermediate', p12: true },
  { name: 'signer-p384', description: 'Natural-person signer, ECDSA P-384', kind: 'ecdsa-p384', profile: 'signer', issuer: 'intermediate-ca', serial: 0x2004n, subject: { country: 'NL', commonName: 'Dave Example', emailAddress: 'dave@example.com' }, ocsp: true, crl: 'intermediate' },
  { name: 'seal', description: 'Organizational seal, RSA-2048, with organizationIdentifier', kind: 'rsa-2048', profile: 'seal', issuer: 'intermediate-ca', serial: 0x3001n, subject: { country: 'NL', organization: 'Example Organization B.V.', organizationIdentifier: 'NTRNL-12345678', commonName: 'Example Organization B.V. seal' }, ocsp: true, crl: 'intermediate', p12: true },
  { name: 'tsa', description: 'Time-stamp authority (critical EKU timeStamping), ECDSA P-256', kind: 'ecdsa-p256', profile: 'tsa', issuer: 'intermediate-ca', serial: 0x4001n, subject: { ...ORG, commonName: 'paraph Test TSA' }, ocsp: true, crl: 'intermediate' },
  { name: 'ocsp', description: 'OCSP responder for the intermediate CA (OCSPSigning, ocsp-nocheck), ECDSA P-256', kind: 'ecdsa-p256', profile: 'ocsp-responder', issuer: 'intermediate-ca', serial: 0x5001n, subject: { ...ORG, commonName: 'paraph Test OCSP Responder' } },
];

