import { execFileSync, spawnSync } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCrl, createRootCertificate, derToPem, issueCertificate, randomSerialNumber, serialNumberBytes } from '../../src/pades/keys/ca.js';
import { createSoftwareSigner, ecdsaRawToDer, generateKeyPair, importPkcs8Key, type KeyKind } from '../../src/pades/keys/software.js';
import type { HashAlgorithm } from '../../src/pades/types.js';
import { SigningError } from '../../src/errors.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { scratchFiles } from '../helpers/scratch-files.js';

const { dir: work, file } = scratchFiles('keys');
const fx = usePadesFixture();

/** Verifies `signature` over `data` with the certificate's public key using openssl (an independent implementation). */
function opensslVerifies(certPem: string, data: Uint8Array, signature: Uint8Array, hash: HashAlgorithm, pss: boolean): boolean {
  const pub = execFileSync('openssl', ['x509', '-in', file(certPem), '-noout', '-pubkey']);
  const args = ['dgst', `-${hash.replace('-', '').toLowerCase()}`, '-verify', file(pub), '-signature', file(signature)];
  if (pss) args.push('-sigopt', 'rsa_padding_mode:pss', '-sigopt', `rsa_pss_saltlen:${{ 'SHA-256': 32, 'SHA-384': 48, 'SHA-512': 64 }[hash]}`);
  try {
    execFileSync('openssl', [...args, file(data)], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

const VALIDITY = { notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2036-01-01T00:00:00Z') };

describe('software signer', () => {
  it('produces signatures openssl verifies, for every fixture key and hash (ECDSA as DER, PSS with salt = hash length)', async () => {
    const { pki } = fx;
    const data = new TextEncoder().encode('signed attributes stand-in');
    for (const id of [pki.signers.rsa, pki.signers.rsaPss, pki.signers.p256, pki.signers.p384, pki.seal]) {
      for (const hash of ['SHA-256', 'SHA-384', 'SHA-512'] as const) {
        const sig = await id.signer.sign(data, hash);
        expect(opensslVerifies(id.certPem, data, sig, hash, id.signer.scheme === 'RSA-PSS'), `${id.name} ${hash}`).toBe(true);
        const tampered = Uint8Array.from(data);
        tampered[0] = (tampered[0] ?? 0) ^ 1;
        expect(opensslVerifies(id.certPem, tampered, sig, hash, id.signer.scheme === 'RSA-PSS')).toBe(false);
      }
    }
    expect(pki.signers.rsaPss.signer.scheme).toBe('RSA-PSS');
    expect(pki.signers.rsaPss.signer.pssParameters('SHA-384')).toEqual({ hash: 'SHA-384', saltLength: 48 });
    expect(pki.signers.p384.signer.scheme).toBe('ECDSA');
    expect(pki.signers.rsa.signer.certificateChain).toHaveLength(2);
  });

  it('generates keys of every kind whose signatures verify with WebCrypto', async () => {
    const kinds: KeyKind[] = ['rsa-2048', 'rsa-pss-2048', 'ecdsa-p256', 'ecdsa-p384'];
    for (const kind of kinds) {
      const keys = await generateKeyPair(kind);
      const signer = createSoftwareSigner({ privateKey: keys.privateKey, certificateChain: [new Uint8Array([0x30, 0])] });
      const data = new Uint8Array([1, 2, 3]);
      const sig = await signer.sign(data, 'SHA-256');
      if (signer.scheme === 'ECDSA') {
        const seq = asn1js.fromBER(sig).result as asn1js.Sequence;
        expect(seq.valueBlock.value).toHaveLength(2);
      } else {
        const alg = signer.scheme === 'RSA-PSS' ? { name: 'RSA-PSS', saltLength: 32 } : { name: 'RSASSA-PKCS1-v1_5' };
        expect(await webcrypto.subtle.verify(alg, keys.publicKey, sig, data)).toBe(true);
      }
    }
  });

  it('imports a PKCS#8 key labelled id-RSASSA-PSS (openssl genpkey -algorithm RSA-PSS) and signs with PSS', async () => {
    const keyPath = join(work, 'pss.key.pem');
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA-PSS', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', keyPath], { stdio: 'pipe' });
    const pem = readFileSync(keyPath, 'latin1');
    const key = await importPkcs8Key(pem);
    expect(key.algorithm.name).toBe('RSA-PSS');
    const signer = createSoftwareSigner({ privateKey: key, certificateChain: [new Uint8Array([0x30, 0])] });
    const data = new Uint8Array([4, 5, 6]);
    const sig = await signer.sign(data, 'SHA-256');
    const pub = execFileSync('openssl', ['pkey', '-in', keyPath, '-pubout']);
    const ok = spawnSync('openssl', ['dgst', '-sha256', '-verify', file(pub), '-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:32', '-signature', file(sig), file(data)]);
    expect(ok.stdout.toString()).toMatch(/Verified OK/);
  });

  it('rejects a signer without certificate and a key that is not PKCS#8', async () => {
    const keys = await generateKeyPair('ecdsa-p256');
    expect(() => createSoftwareSigner({ privateKey: keys.privateKey, certificateChain: [] })).toThrow(/certificate chain is empty/);
    await expect(importPkcs8Key(new Uint8Array([1, 2, 3]))).rejects.toMatchObject({ code: 'INVALID_PRIVATE_KEY' });
    await expect(importPkcs8Key('not pem')).rejects.toBeInstanceOf(SigningError);
  });

  it('DER-encodes any r||s pair as two minimal positive INTEGERs holding the same values', () => {
    fc.assert(
      fc.property(fc.constantFrom(32, 48, 66), fc.infiniteStream(fc.integer({ min: 0, max: 255 })), (size, stream) => {
        const raw = Uint8Array.from(stream.take(size * 2));
        const der = ecdsaRawToDer(raw);
        const parsed = asn1js.fromBER(der);
        expect(parsed.offset).toBe(der.length);
        const [r, s] = (parsed.result as asn1js.Sequence).valueBlock.value as asn1js.Integer[];
        const big = (b: Uint8Array) => BigInt(`0x${Buffer.from(b).toString('hex') || '0'}`);
        expect(r!.toBigInt()).toBe(big(raw.subarray(0, size)));
        expect(s!.toBigInt()).toBe(big(raw.subarray(size)));
        for (const int of [r!, s!]) {
          const v = int.valueBlock.valueHexView;
          expect(v[0]! & 0x80).toBe(0);
          if (v.length > 1) expect(v[0] === 0 && (v[1]! & 0x80) === 0).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('CA toolkit', () => {
  it('issues a chain openssl accepts, with the profile extensions, and a CRL that revokes', async () => {
    const rootKeys = await generateKeyPair('ecdsa-p256');
    const root = await createRootCertificate({ ...VALIDITY, serialNumber: 1n, subject: { commonName: 'Unit Root' }, keyPair: rootKeys });
    const ca = { certificate: root, privateKey: rootKeys.privateKey };
    const issued: Record<string, Uint8Array> = {};
    const profiles = [
      ['signer', { commonName: 'Eve Ëxample', emailAddress: 'eve@example.com' }],
      ['seal', { organization: 'Org B.V.', organizationIdentifier: 'NTRNL-87654321', commonName: 'Org seal' }],
      ['tsa', { commonName: 'TSA' }],
      ['ocsp-responder', { commonName: 'OCSP' }],
      ['intermediate-ca', { commonName: 'Sub CA' }],
    ] as const;
    let serial = 10n;
    for (const [profile, subject] of profiles) {
      const keys = await generateKeyPair('rsa-2048');
      issued[profile] = await issueCertificate({
        ...VALIDITY, serialNumber: serial++, profile, subject, publicKey: keys.publicKey, issuer: ca,
        ocspUrl: 'http://ocsp.example/', crlUrl: 'http://crl.example/root.crl',
      });
    }
    const rootPath = file(derToPem(root, 'CERTIFICATE'));
    const text = (der: Uint8Array) => execFileSync('openssl', ['x509', '-in', file(derToPem(der, 'CERTIFICATE')), '-noout', '-text', '-nameopt', 'utf8,sep_comma_plus_space,space_eq']).toString();
    for (const [profile] of profiles) {
      const out = execFileSync('openssl', ['verify', '-attime', String(Date.UTC(2027, 0, 1) / 1000), '-CAfile', rootPath, file(derToPem(issued[profile]!, 'CERTIFICATE'))]).toString();
      expect(out).toContain(': OK');
    }
    expect(text(issued.signer!)).toMatch(/Subject: CN = Eve Ëxample, emailAddress = eve@example.com/);
    expect(text(issued.signer!)).toMatch(/Key Usage: critical\s+Digital Signature, Non Repudiation/);
    expect(text(issued.seal!)).toMatch(/O = Org B.V., organizationIdentifier = NTRNL-87654321, CN = Org seal/);
    expect(text(issued.tsa!)).toMatch(/Extended Key Usage: critical\s+Time Stamping/);
    expect(text(issued['ocsp-responder']!)).toMatch(/OCSP Signing[\s\S]*OCSP No Check/);
    expect(text(issued['intermediate-ca']!)).toMatch(/CA:TRUE, pathlen:0/);
    expect(text(issued.signer!)).toMatch(/OCSP - URI:http:\/\/ocsp.example\/[\s\S]*URI:http:\/\/crl.example\/root.crl/);
    execFileSync('openssl', ['verify', '-purpose', 'timestampsign', '-attime', String(Date.UTC(2027, 0, 1) / 1000), '-CAfile', rootPath, file(derToPem(issued.tsa!, 'CERTIFICATE'))]);

    const crl = await createCrl({
      issuer: ca, thisUpdate: new Date('2026-06-01T00:00:00Z'), nextUpdate: new Date('2026-06-08T00:00:00Z'), crlNumber: 7n,
      revoked: [{ serialNumber: 10n, revocationDate: new Date('2026-05-01T00:00:00Z'), reason: 1 }],
    });
    const crlPath = file(derToPem(crl, 'X509 CRL'));
    const crlText = execFileSync('openssl', ['crl', '-in', crlPath, '-noout', '-text', '-CAfile', rootPath], { stdio: 'pipe' }).toString();
    expect(crlText).toMatch(/CRL Number:\s+7/);
    expect(crlText).toMatch(/Serial Number: 0A[\s\S]*Key Compromise/);
    const result = (() => {
      try {
        execFileSync('openssl', ['verify', '-crl_check', '-attime', String(Date.UTC(2026, 5, 2) / 1000), '-CAfile', rootPath, '-CRLfile', crlPath, file(derToPem(issued.signer!, 'CERTIFICATE'))], { stdio: 'pipe' });
        return 'ok';
      } catch (e) {
        return String((e as { stdout: Buffer }).stdout) + String((e as { stderr: Buffer }).stderr);
      }
    })();
    expect(result).toMatch(/certificate revoked/);
  });

  it('encodes serial numbers as positive minimal INTEGERs and rejects invalid input', () => {
    expect(Buffer.from(serialNumberBytes(0x80n)).toString('hex')).toBe('0080');
    expect(Buffer.from(serialNumberBytes(new Uint8Array([0, 0, 1]))).toString('hex')).toBe('01');
    expect(() => serialNumberBytes(0n)).toThrow(/positive/);
    expect(() => serialNumberBytes(new Uint8Array(21).fill(1))).toThrow(/20 octets/);
    const serial = randomSerialNumber((len) => new Uint8Array(len).fill(0xff));
    expect(serial[0]).toBe(0x7f);
    expect(serial).toHaveLength(16);
  });

  it('refuses profiles without the identifying subject and inverted validity', async () => {
    const keys = await generateKeyPair('ecdsa-p256');
    const root = await createRootCertificate({ ...VALIDITY, serialNumber: 1n, subject: { commonName: 'R' }, keyPair: keys });
    const issuer = { certificate: root, privateKey: keys.privateKey };
    await expect(issueCertificate({ ...VALIDITY, serialNumber: 2n, profile: 'seal', subject: { commonName: 'x' }, publicKey: keys.publicKey, issuer })).rejects.toMatchObject({ code: 'INVALID_SUBJECT' });
    await expect(createRootCertificate({ notBefore: VALIDITY.notAfter, notAfter: VALIDITY.notBefore, serialNumber: 1n, subject: { commonName: 'R' }, keyPair: keys })).rejects.toMatchObject({ code: 'INVALID_VALIDITY' });
  });
});
