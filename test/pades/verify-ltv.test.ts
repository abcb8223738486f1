/**
 * verifyPdf's long-term levels: document time-stamps (one made by `openssl ts -reply`, one by the fake TSA through
 * the staged signing API), /DSS revocation coverage (B-LT), a document time-stamp after the /DSS (B-LTA), and a
 * CRL in the /DSS that revokes the signer. The /DSS is written here with the incremental writer, independently of
 * the library's own LTV code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPdfForUpdate, writeIncrementalUpdate } from '../../src/pdf/incremental.js';
import { addDocumentTimestamp as addDocumentTimestampWithTsa } from '../../src/pades/doc-timestamp.js';
import { createCrl } from '../../src/pades/keys/ca.js';
import { addValidationData } from '../../src/pades/ltv.js';
import { buildOcspRequest } from '../../src/pades/revocation.js';
import { digestPreparedSignature, embedSignature, prepareSignature } from '../../src/pades/prepare-signature.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { startFakeOcsp } from '../../src/testing/start-fake-ocsp.js';
import { PKI_DIR } from '../../src/testing/test-pki.js';
import { addSignatureFieldUpdate, originalObjects, signLastPlaceholder, timestampLastPlaceholder, writeSection, writeTsaConfig } from './verify-helpers.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const fx = usePadesFixture({ tsaAt: NOW });
let original: Uint8Array;
let tsaDir: string;

beforeAll(async () => {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('Long-term contract', { x: 50, y: 700, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
  original = await doc.save();
  tsaDir = mkdtempSync(join(tmpdir(), 'paraph-verify-tsa-'));
});

afterAll(async () => {
  rmSync(tsaDir, { recursive: true, force: true });
});

/** Adds a /DSS with the given certificates, CRLs and OCSP responses in a new incremental update. */
async function addDss(pdf: Uint8Array, certs: readonly Uint8Array[], crls: readonly Uint8Array[], ocsps: readonly Uint8Array[] = []): Promise<Uint8Array> {
  const session = await openPdfForUpdate(pdf);
  const { context, catalog } = session.doc;
  const streams = (items: readonly Uint8Array[]) => context.obj(items.map((der) => context.register(context.flateStream(der))));
  const dss = context.register(context.obj({ Certs: streams(certs), CRLs: streams(crls), OCSPs: streams(ocsps) }));
  catalog.set(context.obj('DSS') as never, dss);
  session.markModified(context.trailerInfo.Root as never);
  return writeIncrementalUpdate(session).bytes;
}

async function addDocumentTimestamp(pdf: Uint8Array): Promise<Uint8Array> {
  const prepared = await prepareSignature(pdf, { type: 'doc-timestamp' });
  const token = await fx.tsa.timestamper()(digestPreparedSignature(prepared, 'SHA-256'), 'SHA-256');
  return embedSignature(prepared, token);
}

async function signedWithTimestamp(): Promise<Uint8Array> {
  return (await signPdf(original, { signer: fx.pki.signers.rsa.signer, signingTime: NOW, timestamper: fx.tsa.timestamper() })).bytes;
}

describe('verifyPdf: document time-stamps and LTV levels', () => {
  it('verifies a document time-stamp made by openssl ts over a hand-written PDF', async () => {
    const signed = signLastPlaceholder(writeSection(undefined, originalObjects(), 1, 8), {
      certPath: fx.pki.signers.p256.certPath,
      keyPath: fx.pki.signers.p256.keyPath,
      chainPaths: [fx.pki.intermediate.certPath],
    });
    const config = writeTsaConfig(tsaDir, { certPath: fx.pki.tsa.certPath, keyPath: fx.pki.tsa.keyPath, chainPath: join(PKI_DIR, 'intermediate-ca.pem') });
    const withField = addSignatureFieldUpdate(signed, [5], 'DocTS', 8, 9, { type: 'DocTimeStamp', subFilter: 'ETSI.RFC3161' });
    const stamped = timestampLastPlaceholder(withField, config);
    const report = await verifyPdf(stamped, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.problems).toEqual([]);
    expect(report.valid).toBe(true);
    const [signature, docTs] = report.signatures;
    expect(signature).toMatchObject({ kind: 'signature', level: 'B-B', coversWholeDocument: false, modifications: { ok: true } });
    expect(docTs).toMatchObject({ kind: 'document-timestamp', fieldName: 'DocTS', subFilter: 'ETSI.RFC3161', digestOk: true, signatureOk: true, chainOk: true, level: undefined });
    expect(docTs?.timestamp?.valid).toBe(true);
    expect(docTs?.signer?.subject).toMatch(/TSA|Time/i);
    expect((await pdfsigCheck(stamped)).signatures[0]?.valid).toBe(true);
  });

  it('reports B-LT when a /DSS holds CRLs for the whole signer chain, and B-LTA once a document time-stamp follows', async () => {
    const signed = await signedWithTimestamp();
    const lt = await addDss(signed, [fx.pki.intermediate.certDer, fx.pki.rootDer], [fx.pki.crls.root, fx.pki.crls.intermediate]);
    const ltReport = await verifyPdf(lt, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(ltReport.valid).toBe(true);
    expect(ltReport.signatures[0]?.level).toBe('B-LT');
    expect(ltReport.signatures[0]?.modifications.allowed.join(' ')).toMatch(/DSS/);

    const lta = await addDocumentTimestamp(lt);
    const report = await verifyPdf(lta, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.problems).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.signatures.map((s) => [s.kind, s.level, s.valid, s.coveredRevision])).toEqual([
      ['signature', 'B-LTA', true, 1],
      ['document-timestamp', undefined, true, 3],
    ]);
    expect((await pdfsigCheck(lta)).signatures[0]?.valid).toBe(true);
    expect((await qpdfCheck(lta)).ok).toBe(true);
  });

  it('reads OCSP responses written by addValidationData: B-LT, then B-LTA after addDocumentTimestamp, with no warnings', async () => {
    const ocsp = await startFakeOcsp({ pki: fx.pki, now: NOW });
    try {
      const lt = await addValidationData(await signedWithTimestamp(), { fetcher: ocsp.fetcher, now: NOW, trustRoots: [fx.pki.rootDer] });
      const lta = (await addDocumentTimestampWithTsa(lt.bytes, { timestamper: fx.tsa.timestamper() })).bytes;
      const report = await verifyPdf(lta, { trustRoots: [fx.pki.rootPem], now: NOW });
      expect(report.valid).toBe(true);
      expect(report.signatures[0]).toMatchObject({ level: 'B-LTA', warnings: [] });
      expect(report.warnings).toEqual([]);
    } finally {
      await ocsp.close();
    }
  });

  it('reports a signer an OCSP response in the /DSS says is revoked', async () => {
    const ocsp = await startFakeOcsp({ pki: fx.pki, now: NOW, revoked: new Map([[fx.pki.signers.rsa.serial, new Date('2026-11-01T00:00:00Z')]]) });
    try {
      const lt = await addValidationData(await signedWithTimestamp(), { fetcher: ocsp.fetcher, now: NOW, trustRoots: [fx.pki.rootDer], allowIncomplete: true });
      const report = await verifyPdf(lt.bytes, { trustRoots: [fx.pki.rootPem], now: NOW });
      expect(report.valid).toBe(false);
      expect(report.signatures[0]?.problems.join(' ')).toMatch(/revoked/);
    } finally {
      await ocsp.close();
    }
  });

  it('ignores an OCSP response whose signature does not verify (stays at B-T, with a warning)', async () => {
    const ocsp = await startFakeOcsp({ pki: fx.pki, now: NOW });
    try {
      const request = await buildOcspRequest(fx.pki.signers.rsa.certDer, fx.pki.intermediate.certDer);
      const genuine = await ocsp.fetcher.ocsp('http://ocsp.paraph.test/', request);
      const signed = await signedWithTimestamp();
      const good = await verifyPdf(await addDss(signed, [fx.pki.intermediate.certDer], [fx.pki.crls.root], [genuine]), { trustRoots: [fx.pki.rootPem], now: NOW });
      expect(good.signatures[0]?.level).toBe('B-LT');
      // Change one digit of the first GeneralizedTime inside the signed response data.
      const forged = Buffer.from(genuine);
      const at = forged.indexOf(Buffer.from('2026', 'latin1'));
      forged[at + 3] = '7'.charCodeAt(0);
      const report = await verifyPdf(await addDss(signed, [fx.pki.intermediate.certDer], [fx.pki.crls.root], [forged]), { trustRoots: [fx.pki.rootPem], now: NOW });
      expect(report.signatures[0]?.level).toBe('B-T');
      expect(report.signatures[0]?.warnings.join(' ')).toMatch(/not signed by its issuer/);
    } finally {
      await ocsp.close();
    }
  });

  it('does not crash on a /DSS whose /Certs, /OCSPs and /CRLs hold garbage', async () => {
    const garbage = new TextEncoder().encode('not DER at all');
    const pdf = await addDss(await signedWithTimestamp(), [garbage], [garbage], [garbage]);
    const report = await verifyPdf(pdf, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.valid).toBe(true);
    expect(report.signatures[0]?.level).toBe('B-T');
    expect(report.warnings.join(' ')).toMatch(/not an X.509 certificate/);
  });

  it('stays at B-T when the /DSS lacks revocation data for the intermediate CA', async () => {
    const signed = await signedWithTimestamp();
    const partial = await addDss(signed, [fx.pki.intermediate.certDer], [fx.pki.crls.intermediate]);
    const report = await verifyPdf(partial, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.valid).toBe(true);
    expect(report.signatures[0]?.level).toBe('B-T');
  });

  it('reports a signer the /DSS CRL lists as revoked', async () => {
    const signed = await signedWithTimestamp();
    const revokingCrl = await createCrl({
      issuer: { certificate: fx.pki.intermediate.certDer, privateKey: fx.pki.intermediate.privateKey },
      thisUpdate: NOW,
      nextUpdate: new Date('2027-01-01T00:00:00Z'),
      crlNumber: 7n,
      revoked: [{ serialNumber: fx.pki.signers.rsa.serial, revocationDate: NOW, reason: 1 }],
    });
    const revoked = await addDss(signed, [fx.pki.intermediate.certDer], [fx.pki.crls.root, revokingCrl]);
    const report = await verifyPdf(revoked, { trustRoots: [fx.pki.rootPem], now: NOW });
    expect(report.valid).toBe(false);
    expect(report.signatures[0]?.problems.join(' ')).toMatch(/revoked/);
  });
});
