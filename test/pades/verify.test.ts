/**
 * verifyPdf on hand-written PDFs signed by `openssl cms -sign` (independent of paraph's signer): valid signatures
 * in RSA, RSA-PSS and ECDSA, sequential signatures with allowed changes, and every kind of tampering the verifier
 * must catch. pdfsig and openssl confirm that the valid files are valid.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePdfDate, verifyPdf } from '../../src/pades/verify.js';
import { opensslCmsVerify, pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { PKI_DIR } from '../../src/testing/test-pki.js';
import {
  addSignatureFieldUpdate,
  lastStartxref,
  originalObjects,
  signLastPlaceholder,
  stream,
  writeSection,
  type OpensslIdentity,
} from './verify-helpers.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const pki = (name: string): string => join(PKI_DIR, name);
const rootPem = readFileSync(pki('root-ca.pem'));
const identity = (name: string, extra: Partial<OpensslIdentity> = {}): OpensslIdentity => ({
  certPath: pki(`${name}.pem`),
  keyPath: pki(`${name}.key.pem`),
  chainPaths: [pki('intermediate-ca.pem')],
  ...extra,
});
const RSA = identity('signer-rsa');

function signedOriginal(id: OpensslIdentity = RSA): Buffer {
  return signLastPlaceholder(writeSection(undefined, originalObjects(), 1, 8), id);
}

let otherRootDir: string;
let otherRootPem: Buffer;

beforeAll(() => {
  otherRootDir = mkdtempSync(join(tmpdir(), 'paraph-other-root-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-subj', '/CN=Other Root', '-days', '3650'],
    { cwd: otherRootDir, stdio: 'ignore' },
  );
  otherRootPem = readFileSync(join(otherRootDir, 'c.pem'));
  // A certificate from the real intermediate whose key usage only allows key encipherment.
  const run = (args: string[]): void => void execFileSync('openssl', args, { cwd: otherRootDir, stdio: 'ignore' });
  run(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'enc.key.pem', '-out', 'enc.csr', '-subj', '/CN=Encryption Only']);
  writeFileSync(join(otherRootDir, 'ext.cnf'), 'keyUsage=critical,keyEncipherment\n');
  run(['x509', '-req', '-in', 'enc.csr', '-CA', pki('intermediate-ca.pem'), '-CAkey', pki('intermediate-ca.key.pem'), '-set_serial', '77', '-days', '3650', '-extfile', 'ext.cnf', '-out', 'enc.pem']);
});

afterAll(() => rmSync(otherRootDir, { recursive: true, force: true }));

describe('verifyPdf: valid signatures', () => {
  it.each([
    ['RSA PKCS#1 v1.5', RSA, 'RSASSA-PKCS1-v1_5'],
    ['RSA-PSS', identity('signer-rsa-pss', { pss: true }), 'RSA-PSS'],
    ['ECDSA P-256', identity('signer-p256'), 'ECDSA'],
    ['ECDSA P-384 with SHA-384', identity('signer-p384', { md: 'sha384' }), 'ECDSA'],
  ])('accepts a single %s signature that pdfsig and openssl also accept', async (_label, id, scheme) => {
    const pdf = signedOriginal(id);
    const report = await verifyPdf(pdf, { trustRoots: [rootPem], now: NOW });
    expect(report.problems).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.revisions).toBe(1);
    const [sig] = report.signatures;
    expect(sig).toMatchObject({
      fieldName: 'Sig1',
      kind: 'signature',
      subFilter: 'ETSI.CAdES.detached',
      coveredRevision: 0,
      coversWholeDocument: true,
      digestOk: true,
      signatureOk: true,
      signingCertificateOk: true,
      chainOk: true,
      level: 'B-B',
      signatureAlgorithm: scheme,
      valid: true,
      modifications: { ok: true, laterRevisions: 0 },
    });
    expect(sig?.signer?.issuer).toContain('Intermediate');
    expect(sig?.signingTime?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
    const pdfsig = await pdfsigCheck(pdf);
    expect(pdfsig.signatures.map((s) => s.valid)).toEqual([true]);
    expect((await opensslCmsVerify(pdf, 0, rootPem.toString('latin1'))).ok).toBe(true);
    expect((await qpdfCheck(pdf)).ok).toBe(true);
  });

  it('accepts a signature whose byte range also covers blank lines after %%EOF', async () => {
    const withBlankLines = Buffer.concat([Buffer.from(writeSection(undefined, originalObjects(), 1, 8)), Buffer.from('\r\n\n', 'latin1')]);
    const report = await verifyPdf(signLastPlaceholder(withBlankLines, RSA), { trustRoots: [rootPem], now: NOW });
    expect(report.signatures[0]).toMatchObject({ coveredRevision: 0, coversWholeDocument: true, valid: true });
  });

  it('accepts a second signature in an incremental update and reports the first as partial with allowed changes', async () => {
    const first = signedOriginal();
    const second = signLastPlaceholder(addSignatureFieldUpdate(first, [5], 'Sig2', 8, 9), identity('signer-p256'));
    const report = await verifyPdf(second, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(true);
    expect(report.revisions).toBe(2);
    expect(report.signatures.map((s) => [s.fieldName, s.coveredRevision, s.coversWholeDocument, s.valid])).toEqual([
      ['Sig1', 0, false, true],
      ['Sig2', 1, true, true],
    ]);
    expect(report.signatures[0]?.modifications.ok).toBe(true);
    expect(report.signatures[0]?.modifications.laterRevisions).toBe(1);
    expect(report.signatures[0]?.modifications.allowed.length).toBeGreaterThan(0);
    const pdfsig = await pdfsigCheck(second);
    expect(pdfsig.signatures.map((s) => [s.valid, s.totalDocumentSigned])).toEqual([
      [true, false],
      [true, true],
    ]);
  });
});

describe('verifyPdf: signatures without signed attributes', () => {
  const legacy = (id: OpensslIdentity, subFilter: string): Buffer =>
    signLastPlaceholder(writeSection(undefined, originalObjects({ subFilter }), 1, 8), id);

  it.each([
    ['RSA', identity('signer-rsa', { noattr: true })],
    ['ECDSA', identity('signer-p256', { noattr: true })],
  ])('accepts a legacy adbe.pkcs7.detached %s signature whose signature covers the content directly', async (_label, id) => {
    const pdf = legacy(id, 'adbe.pkcs7.detached');
    const report = await verifyPdf(pdf, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(true);
    expect(report.signatures[0]).toMatchObject({ digestOk: true, signatureOk: true, signingCertificateOk: undefined });
    expect(report.signatures[0]?.warnings.join(' ')).toMatch(/no signed attributes/);
    expect((await pdfsigCheck(pdf)).signatures[0]?.valid).toBe(true);
    const tampered = Buffer.from(pdf);
    tampered[tampered.indexOf(Buffer.from('100 EUR'))] = 0x39;
    expect((await verifyPdf(tampered, { trustRoots: [rootPem], now: NOW })).signatures[0]).toMatchObject({ digestOk: false, valid: false });
  });

  it('warns when a PAdES signature lacks the signing-certificate attribute', async () => {
    const report = await verifyPdf(signedOriginal(identity('signer-rsa', { noCades: true })), { trustRoots: [rootPem], now: NOW });
    expect(report.signatures[0]).toMatchObject({ valid: true, signingCertificateOk: undefined });
    expect(report.signatures[0]?.warnings.join(' ')).toMatch(/no signing-certificate/);
  });

  it('warns about a SHA-1 signature', async () => {
    const report = await verifyPdf(legacy(identity('signer-rsa', { md: 'sha1' }), 'adbe.pkcs7.detached'), { trustRoots: [rootPem], now: NOW });
    expect(report.signatures[0]?.digestOk).toBe(true);
    expect(report.signatures[0]?.warnings.join(' ')).toMatch(/SHA-1/);
  });

  it('refuses an ETSI.CAdES.detached signature without signed attributes', async () => {
    const report = await verifyPdf(legacy(identity('signer-rsa', { noattr: true }), 'ETSI.CAdES.detached'), { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]?.problems.join(' ')).toMatch(/must have signed attributes/);
  });
});

describe('verifyPdf: trust', () => {
  it('reports chainOk false with a reason when the root is not trusted', async () => {
    const report = await verifyPdf(signedOriginal(), { trustRoots: [otherRootPem], now: NOW });
    expect(report.valid).toBe(false);
    const [sig] = report.signatures;
    expect(sig?.digestOk).toBe(true);
    expect(sig?.signatureOk).toBe(true);
    expect(sig?.chainOk).toBe(false);
    expect(sig?.chainReason).toMatch(/no issuer found for .*Intermediate CA/);
  });

  it('refuses a signer certificate whose key usage does not allow signing', async () => {
    const id = { certPath: join(otherRootDir, 'enc.pem'), keyPath: join(otherRootDir, 'enc.key.pem'), chainPaths: [pki('intermediate-ca.pem')] };
    // openssl x509 dates the certificate from the real clock, so validity periods are left out of this judgement.
    const report = await verifyPdf(signedOriginal(id), { trustRoots: [rootPem] });
    expect(report.signatures[0]).toMatchObject({ digestOk: true, signatureOk: true, chainOk: false, valid: false });
    expect(report.signatures[0]?.chainReason).toMatch(/may not sign/);
  });

  it('reports an expired chain when judged after the certificates expired', async () => {
    const report = await verifyPdf(signedOriginal(), { trustRoots: [rootPem], now: new Date('2037-01-01T00:00:00Z') });
    expect(report.signatures[0]?.chainOk).toBe(false);
    expect(report.signatures[0]?.chainReason).toMatch(/expired/);
  });

  it('warns that validity periods were not checked when there is neither a time-stamp nor a `now`', async () => {
    const report = await verifyPdf(signedOriginal(), { trustRoots: [rootPem] });
    expect(report.valid).toBe(true);
    expect(report.signatures[0]?.warnings.join(' ')).toMatch(/validity periods were not checked/);
  });
});

describe('verifyPdf: tampering', () => {
  it('detects a byte flipped inside a signed range', async () => {
    const pdf = signedOriginal();
    const at = pdf.indexOf(Buffer.from('100 EUR'));
    pdf[at] = '9'.charCodeAt(0);
    const report = await verifyPdf(pdf, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]?.digestOk).toBe(false);
    expect(report.signatures[0]?.signatureOk).toBe(true);
    expect(report.signatures[0]?.problems.join(' ')).toMatch(/message digest does not match/);
  });

  it('detects a full rewrite by pdf-lib save()', async () => {
    const doc = await PDFDocument.load(signedOriginal());
    const rewritten = await doc.save({ useObjectStreams: false });
    const report = await verifyPdf(rewritten, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    const sig = report.signatures[0];
    expect(sig).toBeDefined();
    expect(sig?.valid).toBe(false);
    expect(sig?.problems.length).toBeGreaterThan(0);
  });

  it('detects an incremental update that replaces the page content after signing', async () => {
    const signed = signedOriginal();
    const changed = writeSection(signed, [{ num: 4, body: stream('BT /F1 12 Tf 20 150 Td (I agree to pay 900 EUR.) Tj ET') }], 1, 8);
    const report = await verifyPdf(changed, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    const sig = report.signatures[0];
    expect(sig?.digestOk).toBe(true);
    expect(sig?.coversWholeDocument).toBe(false);
    expect(sig?.modifications.ok).toBe(false);
    expect(sig?.modifications.disallowed.join(' ')).toMatch(/page content/);
    // pdfsig only says the signature does not cover the whole file; the content change is ours to catch.
    expect((await pdfsigCheck(changed)).signatures[0]?.valid).toBe(true);
  });

  it('detects an incremental update that points the page at new content', async () => {
    const signed = signedOriginal();
    const changed = writeSection(
      signed,
      [
        { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 8 0 R /Resources << /Font << /F1 6 0 R >> >> /Annots [5 0 R] >>' },
        { num: 8, body: stream('BT /F1 12 Tf 20 150 Td (Something else) Tj ET') },
      ],
      1,
      9,
    );
    const report = await verifyPdf(changed, { trustRoots: [rootPem], now: NOW });
    expect(report.signatures[0]?.modifications.disallowed.join(' ')).toMatch(/\/Contents changed/);
    expect(report.valid).toBe(false);
  });

  it('detects a non-widget annotation added after signing', async () => {
    const signed = signedOriginal();
    const changed = writeSection(
      signed,
      [
        { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> /Annots [5 0 R 8 0 R] >>' },
        { num: 8, body: '<< /Type /Annot /Subtype /FreeText /Rect [0 0 100 100] /Contents (void) /DA (/F1 12 Tf) >>' },
      ],
      1,
      9,
    );
    const report = await verifyPdf(changed, { trustRoots: [rootPem], now: NOW });
    expect(report.signatures[0]?.modifications.disallowed.join(' ')).toMatch(/FreeText annotation/);
  });

  it.each([
    ['a field removed from a direct /AcroForm /Fields', [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [] /SigFlags 3 >> >>' }], /AcroForm \/Fields: entries removed/],
    ['an /OpenAction added to the catalog', [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] /SigFlags 3 >> /OpenAction 8 0 R >>' }, { num: 8, body: '<< /S /JavaScript /JS (app.alert(1)) >>' }], /catalog \/OpenAction changed/],
    [
      'a widget that belongs to no form field',
      [
        { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> /Annots [5 0 R 8 0 R] >>' },
        { num: 8, body: '<< /Type /Annot /Subtype /Widget /Rect [0 0 300 300] >>' },
      ],
      /belongs to no form field/,
    ],
    [
      "a new appearance for the signed field's widget",
      [
        { num: 5, body: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig1) /Rect [0 0 300 300] /P 3 0 R /F 4 /V 7 0 R /AP << /N 8 0 R >> >>' },
        { num: 8, body: stream('BT /F1 24 Tf 20 20 Td (Signed by Mallory) Tj ET', '/Type /XObject /Subtype /Form /BBox [0 0 300 300]') },
      ],
      /signed signature field, its widget or its appearance was changed/,
    ],
    ['a font the page uses replaced', [{ num: 6, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>' }], /page content or resources changed/],
    ['a page added to the page tree', [{ num: 2, body: '<< /Type /Pages /Kids [3 0 R 8 0 R] /Count 2 >>' }, { num: 8, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] >>' }], /page tree was changed/],
  ])('detects %s after signing', async (_label, objects, message) => {
    const changed = writeSection(signedOriginal(), objects, 1, 9);
    const report = await verifyPdf(changed, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]?.digestOk).toBe(true);
    expect(report.signatures[0]?.modifications.disallowed.join('\n')).toMatch(message);
  });

  it('detects a content change even when a second, unchanged definition follows it in the update', async () => {
    const signed = signedOriginal();
    const shown = `4 0 obj\n${stream('BT /F1 12 Tf 20 150 Td (I agree to pay 900 EUR.) Tj ET')}\nendobj\n`;
    const hidden = `4 0 obj\n${stream('BT /F1 12 Tf 20 150 Td (I agree to pay 100 EUR.) Tj ET')}\nendobj\n`;
    const xrefAt = signed.length + shown.length + hidden.length;
    const trailer = `xref\n4 1\n${String(signed.length).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 8 /Root 1 0 R /Prev ${lastStartxref(signed)} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const attacked = Buffer.concat([signed, Buffer.from(shown + hidden + trailer, 'latin1')]);
    const report = await verifyPdf(attacked, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    const disallowed = report.signatures[0]?.modifications.disallowed.join('\n');
    // Readers follow the xref entry to the first definition: the page shows 900 EUR, and that is what is judged.
    expect(disallowed).toMatch(/page content or resources changed: stream 4 0 R/);
  });

  it('detects a broken object header of a later signature dictionary (fuzz finding)', async () => {
    const first = signedOriginal();
    const second = signLastPlaceholder(addSignatureFieldUpdate(first, [5], 'Sig2', 8, 9), identity('signer-p256'));
    const damaged = Buffer.from(second);
    damaged[damaged.indexOf(Buffer.from('\n9 0 obj', 'latin1')) + 1] = ':'.charCodeAt(0);
    const report = await verifyPdf(damaged, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]?.modifications.disallowed.join('\n')).toMatch(/object 9 is not defined/);
    expect(report.problems).toContain('signature field Sig2 has a /V that is not a signature dictionary');
  });

  it('detects an object deleted by a later xref section', async () => {
    const changed = writeSection(signedOriginal(), [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] /SigFlags 3 >> >>' }], 1, 8, '6 1\n0000000000 00001 f \n');
    const report = await verifyPdf(changed, { trustRoots: [rootPem], now: NOW });
    expect(report.signatures[0]?.modifications.disallowed.join('\n')).toMatch(/deleted: \/Font dictionary 6 0 R/);
  });

  it('allows a new signature widget added through an indirect /Annots array and an indirect /Fields array', async () => {
    const objects = originalObjects();
    objects[0] = { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm 11 0 R >>' };
    objects[2] = { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> /Annots 10 0 R >>' };
    objects.push({ num: 10, body: '[5 0 R]' }, { num: 11, body: '<< /Fields 12 0 R /SigFlags 3 >>' }, { num: 12, body: '[5 0 R]' });
    const signed = signLastPlaceholder(writeSection(undefined, objects, 1, 13), RSA);
    const updated = writeSection(
      signed,
      [
        { num: 10, body: '[5 0 R 13 0 R]' },
        { num: 12, body: '[5 0 R 13 0 R]' },
        { num: 13, body: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig2) /Rect [0 0 0 0] /P 3 0 R /F 132 >>' },
      ],
      1,
      14,
    );
    const report = await verifyPdf(updated, { trustRoots: [rootPem], now: NOW });
    expect(report.signatures[0]?.modifications).toMatchObject({ ok: true, disallowed: [] });
    expect(report.signatures[0]?.modifications.allowed.join('\n')).toMatch(/annotations array 10 0 R: added 13 0 R/);
    expect(report.valid).toBe(true);
    // Dropping the signed widget from that array instead is caught.
    const dropped = writeSection(signed, [{ num: 10, body: '[]' }], 1, 13);
    expect((await verifyPdf(dropped, { trustRoots: [rootPem], now: NOW })).signatures[0]?.modifications.disallowed.join('\n')).toMatch(/entries removed/);
  });

  it('allows filling a text field after signing', async () => {
    const objects = originalObjects();
    objects[0] = { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R 8 0 R] /SigFlags 3 >> >>' };
    objects[2] = { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> /Annots [5 0 R 8 0 R] >>' };
    objects.push({ num: 8, body: '<< /Type /Annot /Subtype /Widget /FT /Tx /T (Name) /Rect [10 10 100 30] /P 3 0 R /DA (/F1 10 Tf 0 g) >>' });
    const signed = signLastPlaceholder(writeSection(undefined, objects, 1, 9), RSA);
    const filled = writeSection(
      signed,
      [
        { num: 8, body: '<< /Type /Annot /Subtype /Widget /FT /Tx /T (Name) /Rect [10 10 100 30] /P 3 0 R /DA (/F1 10 Tf 0 g) /V (Alice) /AP << /N 9 0 R >> >>' },
        { num: 9, body: stream('BT /F1 10 Tf 2 5 Td (Alice) Tj ET', '/Type /XObject /Subtype /Form /BBox [0 0 90 20]') },
      ],
      1,
      10,
    );
    const report = await verifyPdf(filled, { trustRoots: [rootPem], now: NOW });
    expect(report.signatures[0]?.modifications).toMatchObject({ ok: true, disallowed: [] });
    expect(report.signatures[0]?.modifications.allowed.join('\n')).toMatch(/form field .*Name.* filled/);
    expect(report.valid).toBe(true);
  });

  it('detects an existing signature value being replaced in a later revision', async () => {
    const signed = signedOriginal();
    const changed = writeSection(signed, [{ num: 7, body: '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [0 1 2 3] /Contents <00> >>' }], 1, 8);
    const report = await verifyPdf(changed, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
  });

  it('rejects a /ByteRange that does not start at 0', async () => {
    const pdf = signedOriginal();
    const text = pdf.toString('latin1');
    const at = text.indexOf('/ByteRange [0 ');
    pdf.write('/ByteRange [1 ', at, 'latin1');
    const report = await verifyPdf(pdf, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]?.problems.join(' ')).toMatch(/does not start at 0/);
  });

  it('rejects a /ByteRange whose gap is larger than the /Contents string', async () => {
    const pdf = signedOriginal();
    const text = pdf.toString('latin1');
    const m = /\/ByteRange \[0 (\d{10}) (\d{10}) (\d{10})\]/.exec(text)!;
    const [a, b, c] = [Number(m[1]) - 5, Number(m[2]), Number(m[3])];
    pdf.write(`/ByteRange [0 ${[a, b, c].map((n) => String(n).padStart(10, '0')).join(' ')}]`, m.index, 'latin1');
    const report = await verifyPdf(pdf, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]?.problems.join(' ')).toMatch(/not exactly the \/Contents hex string/);
  });

  it('rejects overlapping byte ranges', async () => {
    const pdf = signedOriginal();
    const text = pdf.toString('latin1');
    const m = /\/ByteRange \[0 (\d{10}) (\d{10}) (\d{10})\]/.exec(text)!;
    const [a, b, c] = [Number(m[2]) + 10, Number(m[2]), Number(m[3])];
    pdf.write(`/ByteRange [0 ${[a, b, c].map((n) => String(n).padStart(10, '0')).join(' ')}]`, m.index, 'latin1');
    const report = await verifyPdf(pdf, { trustRoots: [rootPem], now: NOW });
    expect(report.signatures[0]?.problems.join(' ')).toMatch(/overlap/);
    expect(report.valid).toBe(false);
  });

  it('reports bytes appended after the last %%EOF as unsigned', async () => {
    const pdf = Buffer.concat([signedOriginal(), Buffer.from('1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1')]);
    const report = await verifyPdf(pdf, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]?.modifications.disallowed.join(' ')).toMatch(/follow the last %%EOF/);
  });
});

describe('parsePdfDate', () => {
  it('reads back any time written as a PDF date with any UTC offset', () => {
    const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1990, 0, 1) / 1000, max: Date.UTC(2090, 0, 1) / 1000 }),
        fc.integer({ min: -12 * 60, max: 14 * 60 }),
        (seconds, offsetMinutes) => {
          const time = new Date(seconds * 1000);
          const local = new Date(time.getTime() + offsetMinutes * 60_000);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const text = `D:${local.getUTCFullYear()}${pad(local.getUTCMonth() + 1)}${pad(local.getUTCDate())}${pad(local.getUTCHours())}${pad(local.getUTCMinutes())}${pad(local.getUTCSeconds())}${sign}${pad(Math.floor(abs / 60))}'${pad(abs % 60)}'`;
          expect(parsePdfDate(text)?.getTime()).toBe(time.getTime());
        },
      ),
      { numRuns: 200 },
    );
  });

  it('accepts Z, missing parts, and rejects what is not a PDF date', () => {
    expect(parsePdfDate('D:20261121100000Z')?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
    expect(parsePdfDate('D:2026')?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(parsePdfDate('21 Nov 2026')).toBeUndefined();
  });
});

describe('verifyPdf: bad input', () => {
  it('returns a report without signatures for bytes that are not a PDF', async () => {
    const report = await verifyPdf(new TextEncoder().encode('hello world'), { trustRoots: [rootPem] });
    expect(report).toMatchObject({ valid: false, signatures: [] });
    expect(report.problems[0]).toMatch(/not a PDF/);
  });

  it('returns a report for an empty file and a truncated PDF', async () => {
    expect((await verifyPdf(new Uint8Array(0), { trustRoots: [] })).problems[0]).toMatch(/empty/);
    const truncated = signedOriginal().subarray(0, 500);
    const report = await verifyPdf(truncated, { trustRoots: [rootPem] });
    expect(report.valid).toBe(false);
    expect(report.problems[0]).toMatch(/truncated or damaged/);
  });

  it('returns a report with zero signatures for an unsigned PDF', async () => {
    const pdf = writeSection(undefined, originalObjects({ signed: false }), 1, 7);
    const report = await verifyPdf(pdf, { trustRoots: [rootPem] });
    expect(report).toMatchObject({ valid: false, signatures: [], problems: ['the document has no signatures'] });
  });

  it('reports garbage in /Contents as a problem, not a crash', async () => {
    const pdf = Buffer.from(writeSection(undefined, originalObjects(), 1, 8));
    const patched = signLastPlaceholder(pdf, RSA);
    const at = patched.indexOf(Buffer.from('/Contents <', 'latin1')) + '/Contents <'.length;
    patched.write('ffff', at, 'latin1');
    const report = await verifyPdf(patched, { trustRoots: [rootPem], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]?.problems.join(' ')).toMatch(/not a CMS SignedData|DER/);
  });

  it('refuses a trust root that is not a certificate, in the report', async () => {
    const report = await verifyPdf(signedOriginal(), { trustRoots: [new TextEncoder().encode('nope')] });
    expect(report.valid).toBe(false);
    expect(report.problems[0]).toMatch(/trust root #1/);
  });
});
