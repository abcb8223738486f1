import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import { derToPem } from '../../src/pades/keys/ca.js';
import { createCertificateAuthority, issueSigningIdentity, loadCertificateAuthority } from '../../src/pades/keys/identity.js';
import { createSoftwareSigner, importPkcs8Key } from '../../src/pades/keys/software.js';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { opensslCmsVerify, pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { TEST_NOW } from '../helpers/test-now.js';

const VALIDITY = { notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2031-01-01T00:00:00Z') };
const NOW = new Date(TEST_NOW);

describe('service identities', () => {
  it('a persisted and restored signing CA issues per-signer certificates whose signatures pdfsig and openssl accept; the seal names the organization', async () => {
    const created = await createCertificateAuthority({ ...VALIDITY, serialNumber: 1n, subject: { organization: 'Acme B.V.', commonName: 'Acme Signing CA' }, kind: 'ecdsa-p384' });
    const ca = await loadCertificateAuthority(created.certificate, created.pkcs8);
    const rootPem = derToPem(created.certificate, 'CERTIFICATE');
    const doc = await PDFDocument.create();
    doc.addPage();
    let pdf = await doc.save();
    const people = [['Zoë Janssen', 'zoe@example.com'], ['Jan de Vries', 'jan@example.com']] as const;
    for (const [i, [name, email]] of people.entries()) {
      const identity = await issueSigningIdentity({ ...VALIDITY, serialNumber: BigInt(100 + i), issuer: ca, subject: { commonName: name, emailAddress: email } });
      expect(identity.signer.certificateChain).toHaveLength(2);
      // What the service persists is enough to sign again later.
      const again = createSoftwareSigner({ privateKey: await importPkcs8Key(identity.pkcs8), certificateChain: identity.signer.certificateChain });
      pdf = (await signPdf(pdf, { signer: i === 0 ? identity.signer : again, signingTime: NOW })).bytes;
    }
    const seal = await issueSigningIdentity({ ...VALIDITY, serialNumber: 200n, issuer: ca, profile: 'seal', kind: 'rsa-2048', subject: { organization: 'Acme B.V.', organizationIdentifier: 'NTRNL-12345678', commonName: 'Acme B.V.' } });
    pdf = (await sealPdf(pdf, { signer: seal.signer, signingTime: NOW })).bytes;
    const sig = await pdfsigCheck(pdf);
    expect(sig.signatures.map((s) => [s.signerCommonName, s.validation])).toEqual([
      ['Zoë Janssen', 'Signature is Valid.'],
      ['Jan de Vries', 'Signature is Valid.'],
      ['Acme B.V.', 'Signature is Valid.'],
    ]);
    for (let i = 0; i < 3; i++) expect((await opensslCmsVerify(pdf, i, rootPem)).ok).toBe(true);
    expect((await qpdfCheck(pdf)).ok).toBe(true);
  });
});
