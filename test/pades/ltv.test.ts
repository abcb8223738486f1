/**
 * B-T → B-LT → B-LTA round trips: signPdf with the fake TSA, addValidationData with the fake OCSP/CRL server,
 * addDocumentTimestamp; every result checked by pdfsig, openssl (cms -verify, ts -verify, ocsp) and qpdf --check,
 * and the /DSS contents asserted against the fixture PKI.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFStream, StandardFonts, decodePDFRawStream } from '../../src/pdf/pdf-lib.js';
import * as pkijs from 'pkijs';
import { beforeAll, describe, expect, it } from 'vitest';
import '../../src/pades/crypto-engine.js';
import { addDocumentTimestamp } from '../../src/pades/doc-timestamp.js';
import { addValidationData } from '../../src/pades/ltv.js';
import { loadPkcs12Signer } from '../../src/pades/keys/pkcs12.js';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { embedSignature, prepareSignature } from '../../src/pades/prepare-signature.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import type { RevocationFetcher } from '../../src/pades/types.js';
import { extractSignatures, opensslCmsVerify, pdfsigCheck, qpdfCheck, signedBytes } from '../helpers/external-tools.js';
import { startFakeOcsp } from '../../src/testing/start-fake-ocsp.js';
import { P12_PASSWORD } from '../../src/testing/test-pki.js';
import { scratchFiles } from '../helpers/scratch-files.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { opensslOcspTimeArgs, TEST_NOW } from '../helpers/test-now.js';

const SIGNED_AT = new Date(TEST_NOW);
const LTV_AT = new Date('2026-11-21T10:05:00Z');
const { dir: work, file } = scratchFiles('ltv');

const fx = usePadesFixture({ tsaAt: SIGNED_AT, ocspAt: LTV_AT });
let original: Uint8Array;

beforeAll(async () => {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('Long-term contract', { x: 50, y: 700, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
  doc.addPage([595, 842]);
  original = await doc.save();
});

interface DssView {
  certs: Uint8Array[];
  ocsps: Uint8Array[];
  crls: Uint8Array[];
  vri: Map<string, { certs: number; ocsps: number; crls: number }>;
}

async function readDss(pdf: Uint8Array): Promise<DssView | undefined> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const dss = doc.catalog.lookupMaybe(PDFName.of('DSS'), PDFDict);
  if (!dss) return undefined;
  const streams = (key: string): Uint8Array[] =>
    (dss.lookupMaybe(PDFName.of(key), PDFArray)?.asArray() ?? []).map((ref) => decodePDFRawStream(doc.context.lookup(ref, PDFStream) as PDFRawStream).decode());
  const vri = new Map<string, { certs: number; ocsps: number; crls: number }>();
  const vriDict = dss.lookupMaybe(PDFName.of('VRI'), PDFDict);
  for (const [key, value] of vriDict?.entries() ?? []) {
    const entry = doc.context.lookup(value, PDFDict);
    const count = (k: string) => entry.lookupMaybe(PDFName.of(k), PDFArray)?.size() ?? 0;
    vri.set(key.decodeText(), { certs: count('Cert'), ocsps: count('OCSP'), crls: count('CRL') });
  }
  return { certs: streams('Certs'), ocsps: streams('OCSPs'), crls: streams('CRLs'), vri };
}

/** Serial numbers (hex) an OCSP response answers for, read with pkijs. */
function ocspSerials(der: Uint8Array): string[] {
  const response = pkijs.OCSPResponse.fromBER(der);
  const basic = pkijs.BasicOCSPResponse.fromBER(response.responseBytes!.response.valueBlock.valueHexView);
  return basic.tbsResponseData.responses.map((r) => Buffer.from(r.certID.serialNumber.valueBlock.valueHexView).toString('hex'));
}

function hasCert(list: Uint8Array[], der: Uint8Array): boolean {
  return list.some((c) => Buffer.from(c).equals(Buffer.from(der)));
}

async function vriKeysOf(pdf: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const keys: string[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || !object.has(PDFName.of('ByteRange'))) continue;
    const contents = object.get(PDFName.of('Contents')) as unknown as { asBytes(): Uint8Array };
    keys.push(createHash('sha1').update(contents.asBytes()).digest('hex').toUpperCase());
  }
  return keys;
}

/**
 * pdfsig says "Signature is Valid." for every CAdES signature; openssl cms -verify accepts each of them against the
 * fixture root; every document time-stamp passes `openssl ts -verify` over the bytes it covers (Debian 12's pdfsig
 * cannot check ETSI.RFC3161 time-stamps: it prints "Signature has not yet been verified" for them); qpdf --check.
 * Returns the number of document time-stamps.
 */
async function expectIndependentToolsAccept(pdf: Uint8Array, expectedSignatures: number): Promise<number> {
  const [sig, qpdf, signatures] = await Promise.all([pdfsigCheck(pdf), qpdfCheck(pdf), extractSignatures(pdf)]);
  const details = `${sig.stdout}${sig.stderr}${qpdf.stdout}${qpdf.stderr}`;
  expect(qpdf.ok, details).toBe(true);
  expect(signatures).toHaveLength(expectedSignatures);
  expect(sig.signatures, details).toHaveLength(expectedSignatures);
  let stamps = 0;
  for (const [i, signature] of signatures.entries()) {
    if (signature.subFilter === 'ETSI.RFC3161') {
      stamps++;
      const out = execFileSync('openssl', ['ts', '-verify', '-data', file(signedBytes(pdf, signature.byteRange)), '-in', file(signature.cms), '-token_in',
        '-CAfile', fx.pki.rootPath, '-untrusted', file(fx.pki.tsa.certPem + fx.pki.intermediate.certPem)], { stdio: 'pipe' }).toString();
      expect(out).toMatch(/Verification: OK/);
    } else {
      const result = await opensslCmsVerify(pdf, i, fx.pki.rootPem);
      expect(result.ok, result.stderr).toBe(true);
    }
  }
  const cades = sig.signatures.filter((s) => s.type === 'ETSI.CAdES.detached');
  expect(cades, details).toHaveLength(expectedSignatures - stamps);
  for (const s of cades) expect(s.validation, details).toBe('Signature is Valid.');
  return stamps;
}

describe('B-T → B-LT → B-LTA', () => {
  it('ECDSA signer: adds a /DSS with OCSP for the signer and TSA and the root CRL for the intermediate, then a document time-stamp', async () => {
    const signed = await signPdf(original, { signer: fx.pki.signers.p256.signer, signingTime: SIGNED_AT, timestamper: fx.tsa.timestamper() });
    await expectIndependentToolsAccept(signed.bytes, 1);

    const lt = await addValidationData(signed.bytes, { fetcher: fx.ocsp.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootDer] });
    expect(Buffer.from(lt.bytes.subarray(0, signed.bytes.length)).equals(Buffer.from(signed.bytes))).toBe(true);
    expect(lt.warnings).toEqual([]);
    const dss = (await readDss(lt.bytes))!;
    for (const id of [fx.pki.signers.p256, fx.pki.intermediate, fx.pki.root, fx.pki.tsa, fx.pki.ocsp]) expect(hasCert(dss.certs, id.certDer), id.name).toBe(true);
    expect(dss.certs).toHaveLength(5);
    expect(dss.ocsps.map(ocspSerials).flat().sort()).toEqual(['2003', '4001']);
    for (const response of dss.ocsps) {
      const serial = ocspSerials(response)[0];
      const certPath = serial === '2003' ? fx.pki.signers.p256.certPath : fx.pki.tsa.certPath;
      const out = execFileSync('openssl', ['ocsp', '-no_nonce', '-respin', file(response), '-issuer', fx.pki.intermediate.certPath, '-cert', certPath,
        '-CAfile', fx.pki.rootPath, '-verify_other', fx.pki.intermediate.certPath, ...opensslOcspTimeArgs(LTV_AT)], { stdio: 'pipe' }).toString();
      expect(out).toContain(`${certPath}: good`);
    }
    expect(dss.crls).toHaveLength(1);
    expect(pkijs.CertificateRevocationList.fromBER(dss.crls[0]!).issuer.isEqual(pkijs.Certificate.fromBER(fx.pki.root.certDer).subject)).toBe(true);
    const [vriKey] = await vriKeysOf(signed.bytes);
    expect(lt.vriKeys).toEqual([vriKey]);
    expect(dss.vri.get(vriKey!)).toEqual({ certs: 5, ocsps: 2, crls: 1 });
    expect(lt.certificates.map((c) => [c.subject, c.source, c.status])).toEqual(expect.arrayContaining([
      ['C=NL, CN=Carol Example, E=carol@example.com', 'ocsp', 'good'],
      ['C=NL, O=paraph test, CN=paraph Test Intermediate CA', 'crl', 'good'],
      ['C=NL, O=paraph test, CN=paraph Test TSA', 'ocsp', 'good'],
      ['C=NL, O=paraph test, CN=paraph Test Root CA', 'none', 'not-checked'],
      ['C=NL, O=paraph test, CN=paraph Test OCSP Responder', 'none', 'not-checked'],
    ]));
    await expectIndependentToolsAccept(lt.bytes, 1);

    const lta = await addDocumentTimestamp(lt.bytes, { timestamper: fx.tsa.timestamper() });
    expect(lta.time.toISOString()).toBe(SIGNED_AT.toISOString());
    expect(Buffer.from(lta.bytes.subarray(0, lt.bytes.length)).equals(Buffer.from(lt.bytes))).toBe(true);
    expect(await expectIndependentToolsAccept(lta.bytes, 2)).toBe(1);

    const report = await verifyPdf(lta.bytes, { trustRoots: [fx.pki.rootDer], now: LTV_AT });
    expect(report.signatures.map((s) => [s.kind, s.valid, s.level])).toEqual([['signature', true, 'B-LTA'], ['document-timestamp', true, undefined]]);
  });

  it('RSA and RSA-PSS signers one after another: one VRI per signature; a second DSS round after the document time-stamp keeps the first DSS and adds a VRI for the time-stamp', async () => {
    const first = await signPdf(original, { signer: fx.pki.signers.rsa.signer, signingTime: SIGNED_AT, timestamper: fx.tsa.timestamper() });
    const second = await signPdf(first.bytes, { signer: fx.pki.signers.rsaPss.signer, signingTime: SIGNED_AT, timestamper: fx.tsa.timestamper(), hash: 'SHA-384' });
    const lt = await addValidationData(second.bytes, { fetcher: fx.ocsp.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootDer] });
    const dss = (await readDss(lt.bytes))!;
    expect(dss.vri.size).toBe(2);
    expect(dss.ocsps.map(ocspSerials).flat().sort()).toEqual(['2001', '2002', '4001']);
    const lta = await addDocumentTimestamp(lt.bytes, { timestamper: fx.tsa.timestamper(), hash: 'SHA-512' });
    const again = await addValidationData(lta.bytes, { fetcher: fx.ocsp.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootDer] });
    const merged = (await readDss(again.bytes))!;
    expect(merged.vri.size).toBe(3);
    expect(new Set(merged.vri.keys())).toEqual(new Set(await vriKeysOf(lta.bytes)));
    // Identical certificates and CRLs are stored once; the fresh OCSP responses (new signatures) are added to the old ones.
    expect(merged.certs).toHaveLength(dss.certs.length);
    expect(merged.crls).toHaveLength(dss.crls.length);
    for (const old of dss.ocsps) expect(hasCert(merged.ocsps, old)).toBe(true);
    expect(merged.ocsps).toHaveLength(dss.ocsps.length + 3);
    expect(await expectIndependentToolsAccept(again.bytes, 3)).toBe(1);
    const report = await verifyPdf(again.bytes, { trustRoots: [fx.pki.rootDer], now: LTV_AT });
    expect(report.signatures.filter((s) => s.kind === 'signature').map((s) => [s.valid, s.level])).toEqual([[true, 'B-LTA'], [true, 'B-LTA']]);
  });

  it('PKCS#12 seal: sealPdf B-T, then B-LT and B-LTA', async () => {
    const seal = await loadPkcs12Signer(readFileSync(fx.pki.seal.p12Path!), P12_PASSWORD);
    const signed = await signPdf(original, { signer: fx.pki.signers.p256.signer, signingTime: SIGNED_AT, timestamper: fx.tsa.timestamper() });
    const sealed = await sealPdf(signed.bytes, { signer: seal, signingTime: SIGNED_AT, timestamper: fx.tsa.timestamper() });
    const lt = await addValidationData(sealed.bytes, { fetcher: fx.ocsp.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootDer] });
    expect((await readDss(lt.bytes))!.ocsps.map(ocspSerials).flat().sort()).toEqual(['2003', '3001', '4001']);
    const lta = await addDocumentTimestamp(lt.bytes, { timestamper: fx.tsa.timestamper() });
    expect(await expectIndependentToolsAccept(lta.bytes, 3)).toBe(1);
    const report = await verifyPdf(lta.bytes, { trustRoots: [fx.pki.rootDer], now: LTV_AT });
    expect(report.signatures.map((s) => [s.kind, s.valid, s.level])).toEqual([
      ['signature', true, 'B-LTA'],
      ['signature', true, 'B-LTA'],
      ['document-timestamp', true, undefined],
    ]);
  });

  it('falls back to CRLs when the OCSP responder fails, and reports a revoked signer', async () => {
    const signed = await signPdf(original, { signer: fx.pki.signers.p384.signer, signingTime: SIGNED_AT, timestamper: fx.tsa.timestamper() });
    const down = await startFakeOcsp({ pki: fx.pki, now: LTV_AT, behaviour: 'try-later', revoked: new Map([[fx.pki.signers.p384.serial, new Date('2026-11-01T00:00:00Z')]]) });
    try {
      const lt = await addValidationData(signed.bytes, { fetcher: down.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootDer] });
      const dss = (await readDss(lt.bytes))!;
      expect(dss.ocsps).toHaveLength(0);
      expect(dss.crls).toHaveLength(2);
      expect(lt.certificates.find((c) => c.subject.includes('Dave Example'))).toMatchObject({ source: 'crl', status: 'revoked' });
      expect(lt.certificates.find((c) => c.subject.includes('paraph Test TSA'))).toMatchObject({ source: 'crl', status: 'good' });
      await expectIndependentToolsAccept(lt.bytes, 1);
    } finally {
      await down.close();
    }
  });

  it('uses the CRL when the OCSP responder answers "unknown"', async () => {
    const signed = await signPdf(original, { signer: fx.pki.signers.p256.signer, signingTime: SIGNED_AT });
    const unknowing = await startFakeOcsp({ pki: fx.pki, now: LTV_AT, behaviour: 'unknown' });
    try {
      const lt = await addValidationData(signed.bytes, { fetcher: unknowing.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootDer] });
      expect(lt.certificates.find((c) => c.subject.includes('Carol Example'))).toMatchObject({ source: 'crl', status: 'good' });
      const dss = (await readDss(lt.bytes))!;
      expect(dss.ocsps).toHaveLength(0);
      expect(dss.crls).toHaveLength(2);
    } finally {
      await unknowing.close();
    }
  });

  it('refuses to write incomplete validation data unless asked, and refuses an unsigned document', async () => {
    const signed = await signPdf(original, { signer: fx.pki.signers.p256.signer, signingTime: SIGNED_AT });
    const offline: RevocationFetcher = {
      ocsp: () => Promise.reject(new Error('offline')),
      crl: () => Promise.reject(new Error('offline')),
    };
    await expect(addValidationData(signed.bytes, { fetcher: offline, now: LTV_AT, trustRoots: [fx.pki.rootDer] })).rejects.toMatchObject({
      code: 'VALIDATION_DATA_INCOMPLETE',
      message: expect.stringMatching(/Carol Example.*offline/),
    });
    const partial = await addValidationData(signed.bytes, { fetcher: offline, now: LTV_AT, trustRoots: [fx.pki.rootDer], allowIncomplete: true });
    expect(partial.warnings.join('\n')).toMatch(/no revocation data for .*Carol Example/);
    const dss = (await readDss(partial.bytes))!;
    expect(dss.certs).toHaveLength(3);
    expect(dss.ocsps).toHaveLength(0);
    await expectIndependentToolsAccept(partial.bytes, 1);
    await expect(addValidationData(original, { fetcher: fx.ocsp.fetcher, now: LTV_AT })).rejects.toMatchObject({ code: 'NO_SIGNATURES' });
  });

  it('works on a file with object and xref streams (qpdf --object-streams=generate)', async () => {
    const input = file(original);
    const output = join(work, 'objstm.pdf');
    execFileSync('qpdf', ['--object-streams=generate', input, output]);
    const objstm = new Uint8Array(readFileSync(output));
    expect(Buffer.from(objstm).toString('latin1')).toMatch(/\/Type\s*\/ObjStm/);
    const signed = await signPdf(objstm, { signer: fx.pki.signers.rsa.signer, signingTime: SIGNED_AT, timestamper: fx.tsa.timestamper() });
    const lt = await addValidationData(signed.bytes, { fetcher: fx.ocsp.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootDer] });
    const lta = await addDocumentTimestamp(lt.bytes, { timestamper: fx.tsa.timestamper() });
    expect(Buffer.from(lta.bytes.subarray(lt.bytes.length)).toString('latin1')).toMatch(/\/Type\s*\/XRef/);
    expect(await expectIndependentToolsAccept(lta.bytes, 2)).toBe(1);
    expect((await readDss(lta.bytes))?.vri.size).toBe(1);
    const report = await verifyPdf(lta.bytes, { trustRoots: [fx.pki.rootDer], now: LTV_AT });
    expect(report.signatures.map((s) => [s.kind, s.valid, s.level])).toEqual([['signature', true, 'B-LTA'], ['document-timestamp', true, undefined]]);
  });

  it('skips a signature whose /Contents is not CMS, with a warning, and still covers the others', async () => {
    const good = await signPdf(original, { signer: fx.pki.signers.p256.signer, signingTime: SIGNED_AT });
    const prepared = await prepareSignature(good.bytes, { type: 'signature', signingTime: SIGNED_AT });
    const broken = embedSignature(prepared, Uint8Array.of(0x04, 0x03, 1, 2, 3));
    const lt = await addValidationData(broken, { fetcher: fx.ocsp.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootDer] });
    expect(lt.warnings.join('\n')).toMatch(/is not a CMS SignedData.*skipped/);
    const dss = (await readDss(lt.bytes))!;
    expect(dss.ocsps.map(ocspSerials).flat()).toEqual(['2003']);
    expect(dss.vri.size).toBe(2);
  });

  it('completes a chain the CMS leaves incomplete from extraCertificates, and says so when it cannot', async () => {
    const leafOnly = { ...fx.pki.signers.p256.signer, certificateChain: [fx.pki.signers.p256.certDer] };
    const signed = await signPdf(original, { signer: leafOnly, signingTime: SIGNED_AT });
    await expect(addValidationData(signed.bytes, { fetcher: fx.ocsp.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootDer] })).rejects.toMatchObject({
      code: 'VALIDATION_DATA_INCOMPLETE',
      message: expect.stringMatching(/Carol Example.*its issuer certificate is not available/),
    });
    const lt = await addValidationData(signed.bytes, { fetcher: fx.ocsp.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootPem], extraCertificates: [fx.pki.intermediate.certDer] });
    const dss = (await readDss(lt.bytes))!;
    for (const id of [fx.pki.signers.p256, fx.pki.intermediate, fx.pki.root, fx.pki.ocsp]) expect(hasCert(dss.certs, id.certDer), id.name).toBe(true);
    expect(dss.ocsps.map(ocspSerials).flat()).toEqual(['2003']);
    expect(lt.warnings).toEqual([]);
    // The CMS lacks the intermediate, so openssl needs it handed in; the /DSS now carries it for validators.
    expect((await pdfsigCheck(lt.bytes)).signatures.map((s) => s.validation)).toEqual(['Signature is Valid.']);
    expect((await opensslCmsVerify(lt.bytes, 0, fx.pki.rootPem + fx.pki.intermediate.certPem)).ok).toBe(true);
    expect((await qpdfCheck(lt.bytes)).ok).toBe(true);
    const report = await verifyPdf(lt.bytes, { trustRoots: [fx.pki.rootDer], now: LTV_AT });
    expect(report.signatures.map((s) => [s.valid, s.chainOk])).toEqual([[true, true]]);
  });
});
