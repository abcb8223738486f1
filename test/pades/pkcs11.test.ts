/**
 * PKCS#11 signers on a SoftHSM token that the test initializes itself (temporary SOFTHSM2_CONF and token
 * directory): fixture keys imported with softhsm2-util, certificates written with pkcs11-tool, PDFs signed through
 * signPdf and checked with pdfsig, openssl cms -verify and qpdf --check.
 */
import { execFileSync } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCertificate } from '../../src/pades/keys/ca.js';
import { openPkcs11Signer } from '../../src/pades/keys/pkcs11.js';
import { addDocumentTimestamp } from '../../src/pades/doc-timestamp.js';
import { addValidationData } from '../../src/pades/ltv.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { opensslCmsVerify, pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { startFakeOcsp } from '../../src/testing/start-fake-ocsp.js';
import { startFakeTsa } from '../../src/testing/start-fake-tsa.js';
import { testPki, type PkiIdentity, type TestPki } from '../../src/testing/test-pki.js';
import { TEST_NOW } from '../helpers/test-now.js';

const MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const PIN = '1234';
const TOKEN = 'paraph-test';
const SIGNED_AT = new Date(TEST_NOW);

let dir: string;
let pki: TestPki;
let original: Uint8Array;

function importIdentity(id: PkiIdentity, hexId: string, label: string): void {
  execFileSync('softhsm2-util', ['--import', id.keyPath, '--token', TOKEN, '--label', label, '--id', hexId, '--pin', PIN], { stdio: 'pipe' });
  writeCert(id.certDer, hexId, label);
}

function writeCert(der: Uint8Array, hexId: string, label: string): void {
  const path = join(dir, `${label}.der`);
  writeFileSync(path, der);
  execFileSync('pkcs11-tool', ['--module', MODULE, '--token-label', TOKEN, '--login', '--pin', PIN, '--write-object', path, '--type', 'cert', '--id', hexId, '--label', label], { stdio: 'pipe' });
}

beforeAll(async () => {
  pki = await testPki();
  dir = mkdtempSync(join(tmpdir(), 'paraph-softhsm-'));
  const conf = join(dir, 'softhsm2.conf');
  execFileSync('mkdir', ['-p', join(dir, 'tokens')]);
  writeFileSync(conf, `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  // SoftHSM reads its configuration at C_Initialize; vitest runs this file in its own process (pool: forks).
  process.env.SOFTHSM2_CONF = conf;
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', TOKEN, '--pin', PIN, '--so-pin', '5678'], { stdio: 'pipe' });
  importIdentity(pki.signers.rsa, '01', 'alice');
  importIdentity(pki.signers.p256, '03', 'carol');
  importIdentity(pki.signers.p384, '04', 'dave');
  writeCert(pki.intermediate.certDer, '10', 'intermediate');
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('Signed on a token', { x: 50, y: 700, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
  original = await doc.save();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function expectValid(pdf: Uint8Array, signatures: number): Promise<void> {
  const [sig, qpdf] = await Promise.all([pdfsigCheck(pdf), qpdfCheck(pdf)]);
  expect(qpdf.ok, qpdf.stdout + qpdf.stderr).toBe(true);
  expect(sig.signatures.map((s) => s.validation), sig.stdout).toEqual(Array(signatures).fill('Signature is Valid.'));
  for (let i = 0; i < signatures; i++) {
    const result = await opensslCmsVerify(pdf, i, pki.rootPem);
    expect(result.ok, result.stderr).toBe(true);
  }
}

describe('openPkcs11Signer (SoftHSM)', () => {
  it('signs PDFs with RSA (PKCS#1 v1.5 and PSS) and ECDSA P-256/P-384 token keys, chain read from the token', async () => {
    let pdf = original;
    const cases = [
      { keyLabel: 'alice', scheme: undefined, hash: 'SHA-256', cn: 'Alice Example' },
      { keyLabel: 'alice', scheme: 'RSA-PSS', hash: 'SHA-384', cn: 'Alice Example' },
      { keyLabel: 'carol', scheme: undefined, hash: 'SHA-256', cn: 'Carol Example' },
      { keyId: '04', scheme: undefined, hash: 'SHA-512', cn: 'Dave Example' },
    ] as const;
    for (const [i, c] of cases.entries()) {
      const signer = await openPkcs11Signer({ modulePath: MODULE, tokenLabel: TOKEN, pin: PIN, ...c });
      try {
        expect(signer.certificateChain).toHaveLength(2);
        expect(Buffer.from(signer.certificateChain[1]!).equals(Buffer.from(pki.intermediate.certDer))).toBe(true);
        pdf = (await signPdf(pdf, { signer, signingTime: SIGNED_AT, hash: c.hash })).bytes;
      } finally {
        await signer.close();
      }
      const sig = await pdfsigCheck(pdf);
      expect(sig.signatures[i]?.signerCommonName).toBe(c.cn);
    }
    await expectValid(pdf, cases.length);
  });

  it('B-T → B-LT → B-LTA with a token key (local TSA and OCSP)', async () => {
    const tsa = await startFakeTsa({ pki, now: SIGNED_AT });
    const ocsp = await startFakeOcsp({ pki, now: SIGNED_AT });
    const signer = await openPkcs11Signer({ modulePath: MODULE, tokenLabel: TOKEN, pin: PIN, keyLabel: 'dave' });
    try {
      const signed = await signPdf(original, { signer, signingTime: SIGNED_AT, timestamper: tsa.timestamper() });
      const lt = await addValidationData(signed.bytes, { fetcher: ocsp.fetcher, now: SIGNED_AT, trustRoots: [pki.rootDer] });
      const lta = await addDocumentTimestamp(lt.bytes, { timestamper: tsa.timestamper() });
      const sig = await pdfsigCheck(lta.bytes);
      expect(sig.signatures.filter((s) => s.type === 'ETSI.CAdES.detached').map((s) => s.validation)).toEqual(['Signature is Valid.']);
      expect((await opensslCmsVerify(lta.bytes, 0, pki.rootPem)).ok).toBe(true);
      expect((await qpdfCheck(lta.bytes)).ok).toBe(true);
      const report = await verifyPdf(lta.bytes, { trustRoots: [pki.rootDer], now: SIGNED_AT });
      expect(report.signatures.map((s) => [s.kind, s.valid, s.level])).toEqual([['signature', true, 'B-LTA'], ['document-timestamp', true, undefined]]);
    } finally {
      await signer.close();
      await tsa.close();
      await ocsp.close();
    }
  });

  it('signs concurrent requests one after another on one session, and uses a handed-in chain', async () => {
    const signer = await openPkcs11Signer({ modulePath: MODULE, slotIndex: 0, pin: PIN, keyId: Uint8Array.of(3), certificateChain: [pki.signers.p256.certDer, pki.intermediate.certDer, pki.rootDer] });
    try {
      expect(signer.certificateChain).toHaveLength(3);
      const results = await Promise.all([1, 2, 3, 4].map((k) => signPdf(original, { signer, signingTime: new Date(SIGNED_AT.getTime() + k * 1000) })));
      for (const result of results) await expectValid(result.bytes, 1);
    } finally {
      await signer.close();
    }
    await expect(signer.sign(new Uint8Array(10), 'SHA-256')).rejects.toMatchObject({ code: 'PKCS11_CLOSED' });
  });

  it('signs with a key generated on the token that demands the PIN for every signature (CKA_ALWAYS_AUTHENTICATE)', async () => {
    execFileSync('pkcs11-tool', ['--module', MODULE, '--token-label', TOKEN, '--login', '--pin', PIN, '--keypairgen', '--key-type', 'EC:prime256v1',
      '--id', '07', '--label', 'qualified', '--usage-sign', '--always-auth'], { stdio: 'pipe' });
    const spkiPath = join(dir, 'qualified.pub.der');
    execFileSync('pkcs11-tool', ['--module', MODULE, '--token-label', TOKEN, '--read-object', '--type', 'pubkey', '--id', '07', '-o', spkiPath], { stdio: 'pipe' });
    const spki = readFileSync(spkiPath);
    const publicKey = await webcrypto.subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
    const certificate = await issueCertificate({
      profile: 'signer', subject: { commonName: 'Quinn Qualified', emailAddress: 'quinn@example.com' }, publicKey,
      issuer: { certificate: pki.intermediate.certDer, privateKey: pki.intermediate.privateKey },
      serialNumber: 0x2099n, notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2030-01-01T00:00:00Z'),
    });
    writeCert(certificate, '07', 'qualified');
    const signer = await openPkcs11Signer({ modulePath: MODULE, tokenLabel: TOKEN, pin: PIN, keyId: '07' });
    try {
      let pdf = original;
      for (const k of [0, 1]) pdf = (await signPdf(pdf, { signer, signingTime: new Date(SIGNED_AT.getTime() + k * 60_000) })).bytes;
      await expectValid(pdf, 2);
      expect((await pdfsigCheck(pdf)).signatures.map((s) => s.signerCommonName)).toEqual(['Quinn Qualified', 'Quinn Qualified']);
    } finally {
      await signer.close();
    }
  });

  it('fails clearly for a wrong PIN, an unknown token or key, and a key without certificate', async () => {
    await expect(openPkcs11Signer({ modulePath: MODULE, tokenLabel: TOKEN, pin: '0000', keyLabel: 'alice' })).rejects.toMatchObject({ code: 'PKCS11_LOGIN_FAILED', message: expect.stringMatching(/PIN is wrong/) });
    await expect(openPkcs11Signer({ modulePath: MODULE, tokenLabel: 'nope', pin: PIN, keyLabel: 'alice' })).rejects.toMatchObject({ code: 'PKCS11_TOKEN_NOT_FOUND', message: expect.stringMatching(/"paraph-test"/) });
    await expect(openPkcs11Signer({ modulePath: MODULE, tokenLabel: TOKEN, pin: PIN, keyLabel: 'mallory' })).rejects.toMatchObject({ code: 'PKCS11_KEY_NOT_FOUND' });
    await expect(openPkcs11Signer({ modulePath: MODULE, tokenLabel: TOKEN, pin: PIN })).rejects.toMatchObject({ code: 'PKCS11_KEY_AMBIGUOUS' });
    await expect(openPkcs11Signer({ modulePath: '/nonexistent/module.so', tokenLabel: TOKEN, pin: PIN })).rejects.toMatchObject({ code: 'PKCS11_MODULE_NOT_LOADED' });
    execFileSync('softhsm2-util', ['--import', pki.seal.keyPath, '--token', TOKEN, '--label', 'orphan', '--id', '20', '--pin', PIN], { stdio: 'pipe' });
    await expect(openPkcs11Signer({ modulePath: MODULE, tokenLabel: TOKEN, pin: PIN, keyLabel: 'orphan' })).rejects.toMatchObject({ code: 'PKCS11_CERTIFICATE_NOT_FOUND' });
    // After all those failures the module is still usable.
    const signer = await openPkcs11Signer({ modulePath: MODULE, tokenLabel: TOKEN, pin: PIN, keyLabel: 'orphan', certificateChain: [pki.seal.certDer, pki.intermediate.certDer] });
    try {
      await expectValid((await signPdf(original, { signer, signingTime: SIGNED_AT })).bytes, 1);
    } finally {
      await signer.close();
    }
  });
});
