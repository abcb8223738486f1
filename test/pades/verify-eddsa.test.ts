/**
 * EdDSA in CMS (RFC 8419): an Ed25519 signer certificate issued by the fixture intermediate (openssl). OpenSSL 3.0
 * cannot sign CMS with EdDSA, so the SignedData `openssl cms -sign` makes (SHA-512, no ESS attribute) is re-signed
 * here with node:crypto's Ed25519 and the Ed25519 certificate as signer. verifyPdf accepts it, refuses it after a
 * signed byte changes, and refuses Ed25519 with another digest than SHA-512; qpdf --check passes the file.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, sign as cryptoSign } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPdf } from '../../src/pades/verify.js';
import { qpdfCheck } from '../helpers/external-tools.js';
import { PKI_DIR } from '../../src/testing/test-pki.js';
import { embedContents, originalObjects, signLastPlaceholder, writeSection } from './verify-helpers.js';

// The Ed25519 certificate is issued when the test runs: judge it an hour later.
const NOW = new Date(Date.now() + 3_600_000);
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paraph-eddsa-'));
  const ext = join(dir, 'ext.cnf');
  writeFileSync(ext, 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n');
  const run = (args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(['genpkey', '-algorithm', 'ed25519', '-out', 'ed.key']);
  run(['req', '-new', '-key', 'ed.key', '-subj', '/C=NL/O=paraph tests/CN=Ed25519 Signer', '-out', 'ed.csr']);
  run(['x509', '-req', '-in', 'ed.csr', '-CA', join(PKI_DIR, 'intermediate-ca.pem'), '-CAkey', join(PKI_DIR, 'intermediate-ca.key.pem'),
    '-set_serial', '7001', '-days', '3650', '-extfile', ext, '-out', 'ed.pem']);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Signs the hand-written document with RSA through openssl, then re-signs its SignerInfo with Ed25519. */
function ed25519Signed(md: 'sha256' | 'sha512'): Buffer {
  const rsaSigned = signLastPlaceholder(writeSection(undefined, originalObjects(), 1, 8), {
    certPath: join(PKI_DIR, 'signer-rsa.pem'),
    keyPath: join(PKI_DIR, 'signer-rsa.key.pem'),
    chainPaths: [join(PKI_DIR, 'intermediate-ca.pem')],
    md,
    noCades: true,
  });
  const contentsStart = rsaSigned.lastIndexOf('/Contents <') + '/Contents '.length;
  const contentsEnd = rsaSigned.indexOf('>', contentsStart) + 1;
  const hex = rsaSigned.toString('latin1', contentsStart + 1, contentsEnd - 1);
  // The placeholder is padded with zeros after the DER; fromBER reads exactly one element and ignores them (stripping
  // trailing "00" pairs would also cut a signature value that happens to end in a zero byte).
  const info = new pkijs.ContentInfo({ schema: asn1js.fromBER(Buffer.from(hex, 'hex')).result });
  const signedData = new pkijs.SignedData({ schema: info.content });
  const pem = (path: string): Uint8Array => new Uint8Array(Buffer.from(readFileSync(path, 'latin1').replace(/-----[^-]+-----|\s/g, ''), 'base64'));
  const edCert = pkijs.Certificate.fromBER(pem(join(dir, 'ed.pem')));
  signedData.certificates = [edCert, pkijs.Certificate.fromBER(pem(join(PKI_DIR, 'intermediate-ca.pem')))];
  const signerInfo = signedData.signerInfos[0]!;
  signerInfo.sid = new pkijs.IssuerAndSerialNumber({ issuer: edCert.issuer, serialNumber: edCert.serialNumber });
  signerInfo.signatureAlgorithm = new pkijs.AlgorithmIdentifier({ algorithmId: '1.3.101.112' });
  const toBeSigned = new Uint8Array(signerInfo.signedAttrs!.toSchema().toBER());
  toBeSigned[0] = 0x31;
  const key = createPrivateKey(readFileSync(join(dir, 'ed.key')));
  signerInfo.signature = new asn1js.OctetString({ valueHex: cryptoSign(null, toBeSigned, key) });
  const der = new Uint8Array(new pkijs.ContentInfo({ contentType: info.contentType, content: signedData.toSchema(true) }).toSchema().toBER());
  const out = Buffer.from(rsaSigned);
  out.fill(0x30, contentsStart + 1, contentsEnd - 1);
  return embedContents(out, contentsStart, der);
}

describe('verifyPdf: Ed25519 (RFC 8419)', () => {
  it('accepts an Ed25519 signature, and refuses it after a byte flip', async () => {
    const pdf = ed25519Signed('sha512');
    const rootPem = readFileSync(join(PKI_DIR, 'root-ca.pem'));
    const report = await verifyPdf(pdf, { trustRoots: [rootPem], now: NOW });
    expect(report.signatures[0]!.problems).toEqual([]);
    expect(report.signatures[0]).toMatchObject({ valid: true, digestOk: true, signatureOk: true, signatureAlgorithm: 'Ed25519', digestAlgorithm: 'sha512' });
    expect((await qpdfCheck(pdf)).ok).toBe(true);

    const flipped = Buffer.from(pdf);
    flipped[flipped.indexOf('100 EUR') + 1] = '9'.charCodeAt(0);
    const bad = await verifyPdf(flipped, { trustRoots: [rootPem], now: NOW });
    expect(bad.valid).toBe(false);
    expect(bad.signatures[0]!.digestOk).toBe(false);
  });

  it('refuses Ed25519 over a SHA-256 digest of the signed attributes (RFC 8419 asks for SHA-512)', async () => {
    const report = await verifyPdf(ed25519Signed('sha256'), { trustRoots: [readFileSync(join(PKI_DIR, 'root-ca.pem'))], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]!.problems.join('\n')).toMatch(/Ed25519 signatures must digest with SHA512/);
  });
});
