import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPkcs12Signer } from '../../src/pades/keys/pkcs12.js';
import { P12_PASSWORD } from '../../src/testing/test-pki.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { scratchFiles } from '../helpers/scratch-files.js';

const { dir: work, file } = scratchFiles('p12');
const fx = usePadesFixture();

function opensslVerifies(certDer: Uint8Array, data: Uint8Array, signature: Uint8Array, pss: boolean): boolean {
  const pub = execFileSync('openssl', ['x509', '-inform', 'DER', '-in', file(certDer), '-noout', '-pubkey']);
  const args = ['dgst', '-sha256', '-verify', file(pub), '-signature', file(signature)];
  if (pss) args.push('-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:32');
  try {
    execFileSync('openssl', [...args, file(data)], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

describe('loadPkcs12Signer', () => {
  it('opens the RSA, EC and seal fixtures (OpenSSL 3 default: PBES2/AES, SHA-256 MAC) with the original certificate bytes and chain', async () => {
    const { pki } = fx;
    for (const id of [pki.signers.rsa, pki.signers.p256, pki.seal]) {
      const signer = await loadPkcs12Signer(readFileSync(id.p12Path!), P12_PASSWORD);
      expect(Buffer.from(signer.certificateChain[0]!).equals(Buffer.from(id.certDer)), id.name).toBe(true);
      expect(signer.certificateChain.map((c) => Buffer.from(c).toString('base64'))).toEqual(
        [id.certDer, pki.intermediate.certDer, pki.rootDer].map((c) => Buffer.from(c).toString('base64')),
      );
      expect(signer.scheme).toBe(id.signer.scheme);
      const data = new TextEncoder().encode(`to be signed by ${id.name}`);
      expect(opensslVerifies(id.certDer, data, await signer.sign(data, 'SHA-256'), false)).toBe(true);
    }
  });

  it('signs with RSA-PSS when asked', async () => {
    const { pki } = fx;
    const signer = await loadPkcs12Signer(readFileSync(pki.signers.rsa.p12Path!), P12_PASSWORD, { scheme: 'RSA-PSS' });
    expect(signer.scheme).toBe('RSA-PSS');
    const data = new Uint8Array([9, 8, 7]);
    expect(opensslVerifies(pki.signers.rsa.certDer, data, await signer.sign(data, 'SHA-256'), true)).toBe(true);
  });

  it('opens a legacy 3DES/SHA-1 PKCS#12 with the certificate chain in any order', async () => {
    const { pki } = fx;
    const chain = file(pki.rootPem + pki.intermediate.certPem);
    const out = join(work, 'legacy.p12');
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', pki.signers.p384.keyPath, '-in', pki.signers.p384.certPath, '-certfile', chain,
      '-certpbe', 'PBE-SHA1-3DES', '-keypbe', 'PBE-SHA1-3DES', '-macalg', 'sha1', '-passout', 'pass:wörd', '-out', out]);
    const signer = await loadPkcs12Signer(readFileSync(out), 'wörd');
    expect(signer.scheme).toBe('ECDSA');
    expect(signer.certificateChain).toHaveLength(3);
    expect(Buffer.from(signer.certificateChain[1]!).equals(Buffer.from(pki.intermediate.certDer))).toBe(true);
  });

  it('fails with clear codes for a wrong password, garbage, and a file without key', async () => {
    const { pki } = fx;
    const p12 = readFileSync(pki.signers.rsa.p12Path!);
    await expect(loadPkcs12Signer(p12, 'wrong')).rejects.toMatchObject({ code: 'PKCS12_WRONG_PASSWORD', message: expect.stringMatching(/password is wrong/) });
    await expect(loadPkcs12Signer(new Uint8Array([1, 2, 3, 4]), P12_PASSWORD)).rejects.toMatchObject({ code: 'PKCS12_INVALID' });
    const noKey = join(work, 'nokey.p12');
    execFileSync('openssl', ['pkcs12', '-export', '-nokeys', '-in', pki.signers.rsa.certPath, '-passout', `pass:${P12_PASSWORD}`, '-out', noKey]);
    await expect(loadPkcs12Signer(readFileSync(noKey), P12_PASSWORD)).rejects.toMatchObject({ code: 'PKCS12_NO_KEY' });
    const keyOnly = join(work, 'keyonly.p12');
    execFileSync('openssl', ['pkcs12', '-export', '-nocerts', '-inkey', pki.signers.rsa.keyPath, '-passout', `pass:${P12_PASSWORD}`, '-out', keyOnly]);
    await expect(loadPkcs12Signer(readFileSync(keyOnly), P12_PASSWORD)).rejects.toMatchObject({ code: 'PKCS12_NO_CERTIFICATE' });
  });
});
