/**
 * The long-term flow: three signers each at B-LT (sign with a signature time-stamp, then /DSS), a seal
 * at B-LT, then two B-LTA renewals (/DSS round + document time-stamp, twice). Every signature stays VALID with only
 * allowed changes after it, and every /DSS update only adds: each /VRI entry, once written, is the same object with
 * the same bytes in every later revision, and the /Certs, /OCSPs and /CRLs arrays keep every earlier entry.
 */
import { readFileSync } from 'node:fs';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import { addDocumentTimestamp } from '../../src/pades/doc-timestamp.js';
import { loadPkcs12Signer } from '../../src/pades/keys/pkcs12.js';
import { addValidationData } from '../../src/pades/ltv.js';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { opensslCmsVerify, pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { P12_PASSWORD } from '../../src/testing/test-pki.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const SIGNED_AT = new Date(TEST_NOW);
const LTV_AT = new Date('2026-11-21T10:05:00Z');
const fx = usePadesFixture({ tsaAt: SIGNED_AT, ocspAt: LTV_AT });

/** The /DSS as stored: each VRI key's object number and bytes, and the references of the three arrays. */
interface DssSnapshot {
  readonly vri: Map<string, { ref: string; text: string }>;
  readonly arrays: Map<string, string[]>;
}

async function snapshot(pdf: Uint8Array): Promise<DssSnapshot> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const dss = doc.catalog.lookupMaybe(PDFName.of('DSS'), PDFDict);
  const vri = new Map<string, { ref: string; text: string }>();
  for (const [key, value] of dss?.lookupMaybe(PDFName.of('VRI'), PDFDict)?.entries() ?? []) {
    expect(value).toBeInstanceOf(PDFRef);
    vri.set(key.decodeText(), { ref: value.toString(), text: doc.context.lookup(value)!.toString() });
  }
  const arrays = new Map<string, string[]>();
  for (const key of ['Certs', 'OCSPs', 'CRLs']) arrays.set(key, (dss?.lookupMaybe(PDFName.of(key), PDFArray)?.asArray() ?? []).map(String));
  return { vri, arrays };
}

function expectAddOnly(before: DssSnapshot, after: DssSnapshot): void {
  for (const [key, entry] of before.vri) expect(after.vri.get(key), `VRI ${key}`).toEqual(entry);
  for (const [key, refs] of before.arrays) expect(after.arrays.get(key)!.slice(0, refs.length), `/DSS /${key}`).toEqual(refs);
}

describe('long-term flow: three B-LT signers, a B-LT seal, two B-LTA renewals', () => {
  it('keeps every signature valid with only allowed changes, and the /DSS add-only', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([595, 842]).drawText('Three signers and a seal', { x: 50, y: 700, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
    let pdf: Uint8Array = await doc.save();
    const ltv = { fetcher: fx.ocsp.fetcher, now: LTV_AT, trustRoots: [fx.pki.rootDer] };
    const outputs: Uint8Array[] = [];
    for (const signer of [fx.pki.signers.rsa.signer, fx.pki.signers.p256.signer, fx.pki.signers.rsaPss.signer]) {
      pdf = (await signPdf(pdf, { signer, signingTime: SIGNED_AT, timestamper: fx.tsa.timestamper() })).bytes;
      pdf = (await addValidationData(pdf, ltv)).bytes;
      outputs.push(pdf);
    }
    const seal = await loadPkcs12Signer(readFileSync(fx.pki.seal.p12Path!), P12_PASSWORD);
    pdf = (await sealPdf(pdf, { signer: seal, signingTime: SIGNED_AT, timestamper: fx.tsa.timestamper() })).bytes;
    pdf = (await addValidationData(pdf, ltv)).bytes;
    outputs.push(pdf);
    for (let renewal = 0; renewal < 2; renewal++) {
      pdf = (await addValidationData(pdf, ltv)).bytes;
      outputs.push(pdf);
      pdf = (await addDocumentTimestamp(pdf, { timestamper: fx.tsa.timestamper() })).bytes;
      outputs.push(pdf);
    }

    const snapshots = await Promise.all(outputs.map(snapshot));
    for (let i = 1; i < snapshots.length; i++) expectAddOnly(snapshots[i - 1]!, snapshots[i]!);
    // Three signers, the seal and the first document time-stamp each got a VRI entry.
    expect(snapshots.at(-1)!.vri.size).toBe(5);

    const report = await verifyPdf(pdf, { trustRoots: [fx.pki.rootDer], now: LTV_AT });
    expect(report.problems).toEqual([]);
    expect(report.signatures.map((s) => [s.kind, s.valid, s.level])).toEqual([
      ['signature', true, 'B-LTA'],
      ['signature', true, 'B-LTA'],
      ['signature', true, 'B-LTA'],
      ['signature', true, 'B-LTA'],
      ['document-timestamp', true, undefined],
      ['document-timestamp', true, undefined],
    ]);
    for (const s of report.signatures) {
      expect(s.modifications.disallowed).toEqual([]);
      expect(s.modifications.ok).toBe(true);
    }
    // The changes after the first signature include /DSS additions only as additions.
    expect(report.signatures[0]!.modifications.allowed.some((a) => /VRI.*entry .* added/.test(a))).toBe(true);

    const [sig, qpdf] = await Promise.all([pdfsigCheck(pdf), qpdfCheck(pdf)]);
    expect(qpdf.ok, qpdf.stdout + qpdf.stderr).toBe(true);
    const cades = sig.signatures.filter((s) => s.type === 'ETSI.CAdES.detached');
    expect(cades).toHaveLength(4);
    for (const s of cades) expect(s.validation).toBe('Signature is Valid.');
    for (let i = 0; i < 4; i++) expect((await opensslCmsVerify(pdf, i, fx.pki.rootPem)).ok).toBe(true);
  });
});
