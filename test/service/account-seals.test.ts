/**
 * Seals per account over real HTTP: an account's advanced seal names its organisation (the bootstrap account keeps
 * the environment's) and its receipt names it too; two accounts with qualified seals on two SoftHSM tokens seal at
 * the same time, each document with its own account's key, as pdfsig, openssl, qpdf and our verifier see it; a seal
 * that cannot seal is refused when set, with its code, and every change is audited without its secret; each
 * account's seal chain is downloadable with its own credentials.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derToPem } from '../../src/pades/keys/ca.js';
import { createCertificateAuthority, issueSigningIdentity, type CreatedAuthority } from '../../src/pades/keys/identity.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { call, makePdf, startTestService, TestClock, type ApiResponse, type TestService } from '../helpers/service-harness.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { SCRIBBLE_DATA_URL } from './signer/signer-fixture.js';

const MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const ADMIN_TOKEN = 'admin-token-0123456789-0123456789-abcdef';
const PINS = { 'seal-a': '1111', 'seal-b': '2222', 'seal-c': '3333' } as const;
const clock = new TestClock('2026-11-21T10:00:00.000Z');
const validity = { notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2030-01-01T00:00:00Z') };

let dir: string;
let qtsp: CreatedAuthority;
let qtspPem: string;
let service: TestService;

function writeFile(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** A token `label` holding a seal key for `organization` and its certificate, with the issuing CA's certificate. */
async function sealToken(label: keyof typeof PINS, organization: string): Promise<void> {
  const pin = PINS[label];
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', '8765'], { stdio: 'pipe' });
  const seal = await issueSigningIdentity({ issuer: qtsp, subject: { organization, commonName: `${organization} Qualified Seal` }, profile: 'seal', serialNumber: BigInt(11 + Object.keys(PINS).indexOf(label)), ...validity });
  const keyPath = writeFile(`${label}.key.pem`, derToPem(seal.pkcs8, 'PRIVATE KEY'));
  execFileSync('softhsm2-util', ['--import', keyPath, '--token', label, '--label', 'qseal', '--id', 'c1', '--pin', pin], { stdio: 'pipe' });
  const certificate = (der: Uint8Array, id: string, objectLabel: string): void => {
    const path = writeFile(`${label}-${objectLabel}.der`, der);
    execFileSync('pkcs11-tool', ['--module', MODULE, '--token-label', label, '--login', '--pin', pin, '--write-object', path, '--type', 'cert', '--id', id, '--label', objectLabel], { stdio: 'pipe' });
  };
  certificate(seal.certificate, 'c1', 'qseal');
  certificate(qtsp.certificate, 'c2', 'qtsp-ca');
}

/** A PKCS#12 file (base64) of `pkcs8` and `certificate`. */
function pkcs12(name: string, pkcs8: Uint8Array, certificate: Uint8Array, password: string): string {
  const out = join(dir, `${name}.p12`);
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', writeFile(`${name}.key.pem`, derToPem(pkcs8, 'PRIVATE KEY')), '-in', writeFile(`${name}.crt`, derToPem(certificate, 'CERTIFICATE')), '-passout', `pass:${password}`, '-out', out]);
  return readFileSync(out).toString('base64');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paraph-account-seals-'));
  const conf = writeFile('softhsm2.conf', `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  execFileSync('mkdir', ['-p', join(dir, 'tokens')]);
  // SoftHSM reads its configuration at C_Initialize; vitest runs this file in its own process (pool: forks).
  process.env.SOFTHSM2_CONF = conf;
  qtsp = await createCertificateAuthority({ subject: { organization: 'Test QTSP', commonName: 'Test QTSP Seal CA' }, kind: 'ecdsa-p256', serialNumber: 1n, ...validity });
  qtspPem = derToPem(qtsp.certificate, 'CERTIFICATE');
  await sealToken('seal-a', 'Alpha BV');
  await sealToken('seal-b', 'Beta GmbH');
  await sealToken('seal-c', 'Delta SA');
  service = await startTestService({ clock, env: { PARAPH_ADMIN_TOKEN: ADMIN_TOKEN, PARAPH_PKCS11_MODULES: MODULE } });
}, 60_000);

afterAll(async () => {
  await service?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function admin(method: string, path: string, json?: unknown): Promise<ApiResponse> {
  return call(service.url, method, `/api/admin${path}`, { auth: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(json !== undefined ? { json } : {}) });
}

interface TestAccount {
  readonly id: string;
  readonly headers: Record<string, string>;
}

async function newAccount(name: string): Promise<TestAccount> {
  const created = await admin('POST', '/accounts', { Name: name });
  expect(created.status, created.text).toBe(201);
  const id = created.json.Id as string;
  const user = await admin('POST', `/accounts/${id}/credentials`, { Kind: 'UserToken' });
  const app = await admin('POST', `/accounts/${id}/credentials`, { Kind: 'AppKey' });
  return { id, headers: { authorization: `APIKey ${user.json.Secret as string}`, application: `APPKey ${app.json.Secret as string}` } };
}

/** Creates, uploads and starts a seal-only transaction as `account`; returns the sealed PDF and the receipt. */
async function sealAs(account: TestAccount | undefined, text: string): Promise<{ pdf: Uint8Array; receipt: Uint8Array }> {
  const as = account === undefined ? {} : { auth: false, headers: account.headers };
  const created = await call(service.url, 'POST', '/api/transaction', { ...as, json: { Seal: true } });
  expect(created.status, created.text).toBe(200);
  const id = created.json.Id as string;
  const put = await call(service.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, {
    auth: account === undefined,
    body: await makePdf([[text]]),
    headers: { ...(account?.headers ?? {}), 'content-type': 'application/pdf' },
  });
  expect(put.status, put.text).toBe(201);
  const started = await call(service.url, 'PUT', `/api/transaction/${id}/start`, as);
  expect(started.status, started.text).toBe(204);
  const pdf = (await call(service.url, 'GET', `/api/transaction/${id}/file/doc.pdf`, as)).bytes;
  const receipt = (await call(service.url, 'GET', `/api/file/receipt/${id}`, as)).bytes;
  return { pdf, receipt };
}

function pdfText(pdf: Uint8Array): string {
  const path = writeFile(`text-${Math.random().toString(36).slice(2)}.pdf`, pdf);
  return execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });
}

function pemCount(pem: string): number {
  return pem.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0;
}

describe('seals per account', () => {
  it("seals with an advanced seal naming the account's organisation; the bootstrap account keeps the environment's", async () => {
    const gamma = await newAccount('Gamma Org');
    const sealCaPem = (await call(service.url, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    const [own, bootstrap] = await Promise.all([sealAs(gamma, 'Gamma contract'), sealAs(undefined, 'Bootstrap contract')]);
    for (const [sealed, name] of [[own, 'Gamma Org'], [bootstrap, 'Paraph Test Org']] as const) {
      const tools = await checkSignedPdf(sealed.pdf, sealCaPem);
      expect(tools.pdfsig.map((s) => [s.signerCommonName, s.valid]), tools.details).toEqual([[name, true]]);
      expect(tools.openssl, tools.details).toEqual([true]);
      expect(tools.qpdf, tools.details).toBe(true);
      const report = await verifyPdf(sealed.pdf, { trustRoots: [sealCaPem], now: clock.now() });
      expect(report.valid, report.problems.join('\n')).toBe(true);
      // The receipt names the organisation and is sealed by the same seal.
      expect(pdfText(sealed.receipt)).toMatch(new RegExp(`Organisat\\w+\\s+${name}`));
      expect((await checkSignedPdf(sealed.receipt, sealCaPem)).pdfsig.map((s) => s.signerCommonName)).toEqual([name]);
    }
    // Its chain, with its own credentials: its seal certificate, then the service's seal CA.
    const chain = await call(service.url, 'GET', '/api/account/seal-chain.pem', { auth: false, headers: gamma.headers });
    expect(chain.status).toBe(200);
    expect(chain.headers.get('content-type')).toContain('application/x-pem-file');
    expect(pemCount(chain.text)).toBe(2);
    expect(chain.text.trim().endsWith(sealCaPem.trim())).toBe(true);
    expect((await call(service.url, 'GET', '/api/account/seal-chain.pem', { auth: false })).status).toBe(401);
    // One certificate per account, issued once: a second seal uses the same.
    const again = await sealAs(gamma, 'Gamma again');
    expect((await checkSignedPdf(again.pdf, sealCaPem)).pdfsig.map((s) => s.signerCommonName)).toEqual(['Gamma Org']);
    expect((await call(service.url, 'GET', '/api/account/seal-chain.pem', { auth: false, headers: gamma.headers })).text).toBe(chain.text);
  }, 120_000);

  it('seals two accounts concurrently, each with the qualified seal on its own SoftHSM token', async () => {
    const alpha = await newAccount('Alpha BV');
    const beta = await newAccount('Beta GmbH');
    for (const [account, token] of [[alpha, 'seal-a'], [beta, 'seal-b']] as const) {
      const set = await admin('PUT', `/accounts/${account.id}/qualified-seal`, { Kind: 'Pkcs11', Module: MODULE, TokenLabel: token, KeyLabel: 'qseal', Pin: PINS[token] });
      expect(set.status, set.text).toBe(200);
      expect(set.json.QualifiedSeal).toMatchObject({ Kind: 'Pkcs11', Module: MODULE, TokenLabel: token, KeyLabel: 'qseal', Certificate: { Issuer: expect.stringContaining('Test QTSP') } });
      expect(set.text).not.toContain(PINS[token]);
    }
    const [a, b] = await Promise.all([sealAs(alpha, 'Alpha contract'), sealAs(beta, 'Beta contract')]);
    for (const [sealed, name] of [[a, 'Alpha BV Qualified Seal'], [b, 'Beta GmbH Qualified Seal']] as const) {
      const tools = await checkSignedPdf(sealed.pdf, qtspPem);
      expect(tools.pdfsig.map((s) => [s.signerCommonName, s.valid]), tools.details).toEqual([[name, true]]);
      expect(tools.openssl, tools.details).toEqual([true]);
      expect(tools.qpdf, tools.details).toBe(true);
      const report = await verifyPdf(sealed.pdf, { trustRoots: [qtspPem], now: clock.now() });
      expect(report.valid, report.problems.join('\n')).toBe(true);
      expect((await checkSignedPdf(sealed.receipt, qtspPem)).pdfsig.map((s) => s.signerCommonName)).toEqual([name]);
    }
    // The chain of each: its token's seal certificate, then the QTSP CA; the admin reads the same.
    const chain = await call(service.url, 'GET', '/api/account/seal-chain.pem', { auth: false, headers: alpha.headers });
    expect(pemCount(chain.text)).toBe(2);
    expect(chain.text.trim().endsWith(qtspPem.trim())).toBe(true);
    expect((await admin('GET', `/accounts/${alpha.id}/seal-chain.pem`)).text).toBe(chain.text);
    // A signed transaction of Alpha: the last signature's job seals with Alpha's token key too.
    const created = await call(service.url, 'POST', '/api/transaction', { auth: false, headers: alpha.headers, json: { Seal: true, Signers: [{ SendSignRequest: false, Email: 'alice@example.com' }] } });
    const id = created.json.Id as string;
    const put = await call(service.url, 'PUT', `/api/transaction/${id}/file/c.pdf`, { auth: false, body: await makePdf([['Contract', '{{Signer1}}']]), headers: { ...alpha.headers, 'content-type': 'application/pdf' } });
    expect(put.status, put.text).toBe(201);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`, { auth: false, headers: alpha.headers })).status).toBe(204);
    const token = (created.json.Signers[0].SignUrl as string).split('/sign/')[1] as string;
    const signer = (path: string, json: unknown) => call(service.url, 'POST', `/api/signer/${token}${path}`, { auth: false, json });
    expect((await signer('/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Alice' })).status).toBe(200);
    expect((await signer('/sign', { Fields: {} })).status).toBe(200);
    const signed = (await call(service.url, 'GET', `/api/transaction/${id}/file/c.pdf`, { auth: false, headers: alpha.headers })).bytes;
    const signingCaPem = (await call(service.url, 'GET', '/api/ca/signing.pem', { auth: false })).text;
    const both = await checkSignedPdf(signed, `${signingCaPem}\n${qtspPem}`);
    expect(both.pdfsig.map((s) => [s.signerCommonName, s.valid]), both.details).toEqual([['Alice', true], ['Alpha BV Qualified Seal', true]]);
    expect(both.openssl, both.details).toEqual([true, true]);

    // Removing it: the account seals with its advanced seal again.
    expect((await admin('DELETE', `/accounts/${beta.id}/qualified-seal`)).status).toBe(200);
    const sealCaPem = (await call(service.url, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    expect((await checkSignedPdf((await sealAs(beta, 'Beta later')).pdf, sealCaPem)).pdfsig.map((s) => s.signerCommonName)).toEqual(['Beta GmbH']);
  }, 120_000);

  it('refuses a seal that cannot seal, with its code, changes nothing, and audits every attempt without a secret', async () => {
    const delta = await newAccount('Delta SA');
    const path = `/accounts/${delta.id}/qualified-seal`;
    // The answer says what is wrong; its code is in the audit entry of the attempt (checked below).
    const refused = async (body: unknown, message: RegExp): Promise<void> => {
      const r = await admin('PUT', path, body);
      expect(r.status, r.text).toBe(400);
      expect(r.json.Message).toMatch(message);
    };
    // (A token no seal of this process is logged in to: PKCS#11 keeps one login per token and process.)
    await refused({ Kind: 'Pkcs11', Module: MODULE, TokenLabel: 'seal-c', Pin: '9999' }, /PIN is wrong/);
    await refused({ Kind: 'Pkcs11', Module: MODULE, TokenLabel: 'no-such-token', Pin: '3333' }, /no-such-token/);
    await refused({ Kind: 'Pkcs11', Module: '/usr/lib/x86_64-linux-gnu/libc.so.6', Pin: '1111' }, /PARAPH_PKCS11_MODULES/);
    const expired = await issueSigningIdentity({ issuer: qtsp, subject: { organization: 'Delta SA', commonName: 'Delta old' }, profile: 'seal', serialNumber: 21n, notBefore: new Date('2024-01-01T00:00:00Z'), notAfter: new Date('2025-01-01T00:00:00Z') });
    await refused({ Kind: 'Pkcs12', Pkcs12: pkcs12('expired', expired.pkcs8, expired.certificate, 'pw-expired'), Password: 'pw-expired' }, /expired/);
    await refused({ Kind: 'Pkcs12', Pkcs12: pkcs12('wrong', expired.pkcs8, expired.certificate, 'pw-right'), Password: 'pw-wrong' }, /password is wrong/);
    // A CA certificate allows certificate signing only.
    const ca = await createCertificateAuthority({ subject: { organization: 'Delta SA', commonName: 'Delta CA' }, kind: 'ecdsa-p256', serialNumber: 22n, ...validity });
    await refused({ Kind: 'Pkcs12', Pkcs12: pkcs12('ca', ca.pkcs8, ca.certificate, 'pw-ca'), Password: 'pw-ca' }, /digitalSignature nor nonRepudiation/);
    expect((await admin('GET', `/accounts/${delta.id}`)).json.QualifiedSeal).toBeUndefined();

    // A good PKCS#12: accepted, and the account seals with it.
    const good = await issueSigningIdentity({ issuer: qtsp, subject: { organization: 'Delta SA', commonName: 'Delta Qualified Seal' }, profile: 'seal', serialNumber: 23n, ...validity });
    const set = await admin('PUT', path, { Kind: 'Pkcs12', Pkcs12: pkcs12('good', good.pkcs8, good.certificate, 'pw-good-123'), Password: 'pw-good-123' });
    expect(set.status, set.text).toBe(200);
    expect(set.json.QualifiedSeal).toMatchObject({ Kind: 'Pkcs12', Certificate: { Subject: expect.stringContaining('Delta Qualified Seal') } });
    const sealed = await sealAs(delta, 'Delta contract');
    expect((await checkSignedPdf(sealed.pdf, qtspPem)).pdfsig.map((s) => [s.signerCommonName, s.valid])).toEqual([['Delta Qualified Seal', true]]);

    // Stored sealed: neither the password nor the PIN is in the account's stored data or in the audit.
    const stored = JSON.stringify(await service.server.store.getAccount(delta.id));
    expect(stored).not.toContain('pw-good-123');
    const audit = await admin('GET', `/audit?accountId=${delta.id}`);
    expect(audit.json.map((e: { Action: string }) => e.Action)).toEqual([
      'account.created',
      'credential.issued',
      'credential.issued',
      ...Array(5).fill('account.qualified-seal-refused'),
      'account.qualified-seal-set',
    ]);
    expect(audit.json.slice(3, 8).map((e: { Data: { code: string } }) => e.Data.code)).toEqual([
      'PKCS11_LOGIN_FAILED', 'PKCS11_TOKEN_NOT_FOUND', 'QUALIFIED_SEAL_EXPIRED', 'PKCS12_WRONG_PASSWORD', 'QUALIFIED_SEAL_KEY_USAGE',
    ]);
    for (const secret of ['pw-good-123', 'pw-expired', 'pw-wrong', '9999', '3333']) expect(audit.text).not.toContain(secret);
  }, 120_000);
});
