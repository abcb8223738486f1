import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { derToPem } from '../../src/pades/keys/ca.js';
import { buildOcspRequest, checkCrl, checkOcspResponse, fetchCrl, fetchOcsp, revocationUrls } from '../../src/pades/revocation.js';
import { startFakeOcsp } from '../../src/testing/start-fake-ocsp.js';
import { CRL_URLS, OCSP_URL } from '../../src/testing/test-pki.js';
import { scratchFiles } from '../helpers/scratch-files.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { opensslOcspTimeArgs, TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const { file } = scratchFiles('ocsp');

const fx = usePadesFixture({ ocspAt: NOW });

/** openssl's own reading of an OCSP response (signature, fx.ocsp authorization, status). */
function opensslOcsp(response: Uint8Array, certPath: string): string {
  const out = execFileSync('openssl', ['ocsp', '-no_nonce', '-respin', file(response), '-issuer', fx.pki.intermediate.certPath, '-cert', certPath,
    '-CAfile', fx.pki.rootPath, '-verify_other', fx.pki.intermediate.certPath, ...opensslOcspTimeArgs(NOW)], { stdio: 'pipe' });
  return out.toString();
}

describe('OCSP', () => {
  it('fetches a good status for every fixture end entity, and openssl verifies each response', async () => {
    for (const id of [fx.pki.signers.rsa, fx.pki.signers.rsaPss, fx.pki.signers.p256, fx.pki.signers.p384, fx.pki.seal, fx.pki.tsa]) {
      const result = await fetchOcsp(fx.ocsp.fetcher, { certificate: id.certDer, issuer: fx.pki.intermediate.certDer, now: NOW, nonce: Uint8Array.of(1, 2, 3, 4) });
      expect(result.status, id.name).toBe('good');
      expect(result.producedAt.toISOString()).toBe(NOW.toISOString());
      expect(opensslOcsp(result.response, id.certPath)).toMatch(new RegExp(`${id.certPath}: good`));
    }
    expect(fx.ocsp.requests.filter((r) => r.kind === 'ocsp').map((r) => r.subject)).toContain('2001');
  });

  it('reports a revoked certificate with its revocation time (openssl agrees)', async () => {
    const revokedAt = new Date('2026-10-01T12:00:00Z');
    const server = await startFakeOcsp({ pki: fx.pki, now: NOW, revoked: new Map([[fx.pki.signers.rsa.serial, revokedAt]]) });
    try {
      const result = await fetchOcsp(server.fetcher, { certificate: fx.pki.signers.rsa.certDer, issuer: fx.pki.intermediate.certDer, now: NOW });
      expect(result.status).toBe('revoked');
      expect(result.revocationTime?.toISOString()).toBe(revokedAt.toISOString());
      expect(opensslOcsp(result.response, fx.pki.signers.rsa.certPath)).toMatch(/: revoked/);
    } finally {
      await server.close();
    }
  });

  it('accepts a response signed by the issuing CA itself, its fx.ocsp named by key hash', async () => {
    const server = await startFakeOcsp({ pki: fx.pki, now: NOW, behaviour: 'issuer-signed' });
    try {
      const result = await fetchOcsp(server.fetcher, { certificate: fx.pki.seal.certDer, issuer: fx.pki.intermediate.certDer, now: NOW });
      expect(result).toMatchObject({ status: 'good', certificates: [] });
      expect(opensslOcsp(result.response, fx.pki.seal.certPath)).toContain(`${fx.pki.seal.certPath}: good`);
    } finally {
      await server.close();
    }
  });

  it.each([
    ['unauthorized-responder', 'OCSP_RESPONSE_INVALID', /not authorized by the issuer/],
    ['try-later', 'OCSP_NOT_SUCCESSFUL', /status 3/],
    ['expired', 'OCSP_EXPIRED', /expired/],
  ] as const)('refuses an OCSP answer with behaviour %s', async (behaviour, code, message) => {
    const server = await startFakeOcsp({ pki: fx.pki, now: NOW, behaviour });
    try {
      await expect(fetchOcsp(server.fetcher, { certificate: fx.pki.signers.p256.certDer, issuer: fx.pki.intermediate.certDer, now: NOW })).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    } finally {
      await server.close();
    }
  });

  it('refuses a response about another certificate, a tampered response and a foreign nonce', async () => {
    const request = await buildOcspRequest(fx.pki.signers.rsa.certDer, fx.pki.intermediate.certDer, { nonce: Uint8Array.of(9, 9) });
    const response = await fx.ocsp.fetcher.ocsp(OCSP_URL, request);
    await expect(checkOcspResponse(response, { certificate: fx.pki.signers.p384.certDer, issuer: fx.pki.intermediate.certDer, now: NOW })).rejects.toMatchObject({ message: expect.stringMatching(/no matching CertID/) });
    await expect(checkOcspResponse(response, { certificate: fx.pki.signers.rsa.certDer, issuer: fx.pki.intermediate.certDer, now: NOW, nonce: Uint8Array.of(1) })).rejects.toMatchObject({ code: 'OCSP_NONCE_MISMATCH' });
    const tampered = Uint8Array.from(response);
    const at = Buffer.from(tampered).indexOf(Buffer.from(NOW.toISOString().slice(0, 4)));
    tampered[at + 3] = 0x37; // producedAt year 2026 → 2027 inside the signed data
    await expect(checkOcspResponse(tampered, { certificate: fx.pki.signers.rsa.certDer, issuer: fx.pki.intermediate.certDer, now: NOW })).rejects.toMatchObject({ code: 'OCSP_RESPONSE_INVALID' });
    await expect(checkOcspResponse(new Uint8Array([1, 2, 3]), { certificate: fx.pki.signers.rsa.certDer, issuer: fx.pki.intermediate.certDer, now: NOW })).rejects.toMatchObject({ code: 'OCSP_BAD_RESPONSE' });
  });
});

describe('CRL', () => {
  it('fetches and checks the CRLs named by the fixture certificates; openssl verifies them', async () => {
    expect(revocationUrls(fx.pki.signers.rsa.certDer)).toEqual({ ocsp: [OCSP_URL], crl: [CRL_URLS.intermediate] });
    expect(revocationUrls(fx.pki.intermediate.certDer)).toEqual({ ocsp: [], crl: [CRL_URLS.root] });
    const leaf = await fetchCrl(fx.ocsp.fetcher, { certificate: fx.pki.signers.rsa.certDer, issuer: fx.pki.intermediate.certDer, now: NOW });
    expect(leaf.status).toBe('good');
    const mid = await fetchCrl(fx.ocsp.fetcher, { certificate: fx.pki.intermediate.certDer, issuer: fx.pki.root.certDer, now: NOW });
    expect(mid.status).toBe('good');
    for (const [crl, issuer] of [[mid.crl, fx.pki.rootPath], [leaf.crl, fx.pki.intermediate.certPath]] as const) {
      const checked = spawnSync('openssl', ['crl', '-in', file(derToPem(crl, 'X509 CRL')), '-noout', '-verify', '-CAfile', issuer]);
      expect(checked.status).toBe(0);
      expect(checked.stderr.toString()).toMatch(/verify OK/);
    }
  });

  it('lists a revoked serial, and rejects a CRL of another issuer or past its nextUpdate', async () => {
    const revokedAt = new Date('2026-09-01T00:00:00Z');
    const server = await startFakeOcsp({ pki: fx.pki, now: NOW, revoked: new Map([[fx.pki.signers.p256.serial, revokedAt]]) });
    try {
      const result = await fetchCrl(server.fetcher, { certificate: fx.pki.signers.p256.certDer, issuer: fx.pki.intermediate.certDer, now: NOW });
      expect(result).toMatchObject({ status: 'revoked', revocationTime: revokedAt });
      const other = await fetchCrl(server.fetcher, { certificate: fx.pki.signers.p384.certDer, issuer: fx.pki.intermediate.certDer, now: NOW });
      expect(other.status).toBe('good');
      expect(() => checkCrl(result.crl, { certificate: fx.pki.intermediate.certDer, issuer: fx.pki.root.certDer, now: NOW })).toThrow(expect.objectContaining({ code: 'CRL_INVALID' }));
      expect(() => checkCrl(result.crl, { certificate: fx.pki.signers.p256.certDer, issuer: fx.pki.intermediate.certDer, now: new Date('2027-01-01T00:00:00Z') })).toThrow(expect.objectContaining({ code: 'CRL_EXPIRED' }));
    } finally {
      await server.close();
    }
  });
});
