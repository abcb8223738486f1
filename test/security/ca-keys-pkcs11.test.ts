/**
 * The signing CA and the advanced seal keys live in a PKCS#11 token (SoftHSM,
 * initialized by this test in a temporary directory) instead of the store. A whole flow signs with a signer
 * certificate the token's CA issued and seals with the token's seal key; the CA certificates the service publishes
 * are the token's; the store holds none of those keys. Every signed PDF is checked with pdfsig, openssl and qpdf.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derToPem } from '../../src/pades/keys/ca.js';
import { createCertificateAuthority, issueSigningIdentity } from '../../src/pades/keys/identity.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { KEY_SETTINGS } from '../../src/service/keys/service-keys.js';
import { call, makePdf, startTestService, TestClock } from '../helpers/service-harness.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { SCRIBBLE_DATA_URL } from '../service/signer/signer-fixture.js';

const MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const PIN = '4321';
const TOKEN = 'paraph-ca';
const clock = new TestClock('2026-11-21T10:00:00.000Z');
const validity = { notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2030-01-01T00:00:00Z') };

let dir: string;
let signingCaPem: string;
let sealCaPem: string;

/** Imports a PKCS#8 key and its certificate under one id and label. */
function importKey(pkcs8: Uint8Array, certificate: Uint8Array, hexId: string, label: string): void {
  const keyPath = join(dir, `${label}.key.pem`);
  writeFileSync(keyPath, derToPem(pkcs8, 'PRIVATE KEY'));
  execFileSync('softhsm2-util', ['--import', keyPath, '--token', TOKEN, '--label', label, '--id', hexId, '--pin', PIN], { stdio: 'pipe' });
  rmSync(keyPath);
  writeCertificate(certificate, hexId, label);
}

function writeCertificate(der: Uint8Array, hexId: string, label: string): void {
  const path = join(dir, `${label}.der`);
  writeFileSync(path, der);
  execFileSync('pkcs11-tool', ['--module', MODULE, '--token-label', TOKEN, '--login', '--pin', PIN, '--write-object', path, '--type', 'cert', '--id', hexId, '--label', label], { stdio: 'pipe' });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paraph-ca-token-'));
  const conf = join(dir, 'softhsm2.conf');
  execFileSync('mkdir', ['-p', join(dir, 'tokens')]);
  writeFileSync(conf, `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  // SoftHSM reads its configuration at C_Initialize; vitest runs this file in its own process (pool: forks).
  process.env.SOFTHSM2_CONF = conf;
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', TOKEN, '--pin', PIN, '--so-pin', '8765'], { stdio: 'pipe' });
  // An RSA signing CA (PKCS#1 v1.5 through the token) and an EC seal under its own seal CA (ECDSA through the token).
  const signingCa = await createCertificateAuthority({ subject: { organization: 'Token Org', commonName: 'Token Org Signing CA' }, kind: 'rsa-2048', serialNumber: 1n, ...validity });
  const sealCa = await createCertificateAuthority({ subject: { organization: 'Token Org', commonName: 'Token Org Seal CA' }, kind: 'ecdsa-p256', serialNumber: 2n, ...validity });
  const seal = await issueSigningIdentity({ issuer: sealCa, subject: { organization: 'Token Org', commonName: 'Token Org' }, profile: 'seal', serialNumber: 3n, ...validity });
  importKey(signingCa.pkcs8, signingCa.certificate, 'a1', 'paraph-signing-ca');
  importKey(seal.pkcs8, seal.certificate, 'b1', 'paraph-seal');
  writeCertificate(sealCa.certificate, 'b2', 'seal-ca');
  signingCaPem = derToPem(signingCa.certificate, 'CERTIFICATE');
  sealCaPem = derToPem(sealCa.certificate, 'CERTIFICATE');
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('CA and seal keys in a PKCS#11 token', () => {
  it('signs and seals a whole flow with the token keys, publishes their CA certificates and stores no CA key', async () => {
    const env = { PARAPH_CA_PKCS11_MODULE: MODULE, PARAPH_CA_PKCS11_PIN: PIN, PARAPH_CA_PKCS11_TOKEN: TOKEN };
    const service = await startTestService({ clock, env });
    try {
      expect((await call(service.url, 'GET', '/api/ca/signing.pem', { auth: false })).text.trim()).toBe(signingCaPem.trim());
      expect((await call(service.url, 'GET', '/api/ca/seal.pem', { auth: false })).text.trim()).toBe(sealCaPem.trim());
      const created = await call(service.url, 'POST', '/api/transaction', { json: { Seal: true, Signers: [{ SendSignRequest: false, Email: 'alice@example.com' }] } });
      expect(created.status, created.text).toBe(200);
      const id = created.json.Id as string;
      const put = await call(service.url, 'PUT', `/api/transaction/${id}/file/c.pdf`, { body: await makePdf([['Contract', '{{Signer1}}']]), headers: { 'content-type': 'application/pdf' } });
      expect(put.status, put.text).toBe(201);
      expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
      const token = (created.json.Signers[0].SignUrl as string).split('/sign/')[1] as string;
      const signer = (path: string, json: unknown) => call(service.url, 'POST', `/api/signer/${token}${path}`, { auth: false, json });
      expect((await signer('/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Alice' })).status).toBe(200);
      const signed = await signer('/sign', { Fields: {} });
      expect(signed.status, signed.text).toBe(200);
      const pdf = (await call(service.url, 'GET', `/api/transaction/${id}/file/c.pdf`)).bytes;
      const tools = await checkSignedPdf(pdf, `${signingCaPem}\n${sealCaPem}`);
      expect(tools.pdfsig.map((s) => s.valid), tools.details).toEqual([true, true]);
      expect(tools.openssl, tools.details).toEqual([true, true]);
      expect(tools.qpdf, tools.details).toBe(true);
      const report = await verifyPdf(pdf, { trustRoots: [signingCaPem, sealCaPem], now: clock.now() });
      expect(report.valid, report.problems.join('\n')).toBe(true);
      expect(report.signatures.map((s) => s.signer?.subject)).toEqual([expect.stringContaining('alice@example.com'), expect.stringContaining('Token Org')]);
    } finally {
      await service.stop();
    }
    const store = await openSqliteStore({ dataDir: service.dataDir });
    try {
      for (const key of [KEY_SETTINGS.signingCa, KEY_SETTINGS.sealCa, KEY_SETTINGS.seal]) expect(await store.getSetting(key)).toBeUndefined();
    } finally {
      await store.close();
      await service.dispose();
    }
  }, 120_000);
});
