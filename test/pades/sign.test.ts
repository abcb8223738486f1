import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import fc from 'fast-check';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';
import * as pkijs from 'pkijs';
import { describe, expect, it } from 'vitest';
import { digestBytes } from '../../src/pades/cms.js';
import { certificateSubjectName, signPdf } from '../../src/pades/sign-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import type { HashAlgorithm, Signer } from '../../src/pades/types.js';
import { placeFields } from '../../src/pdf/place-fields.js';
import type { FieldPlacement } from '../../src/pdf/resolve-locations.js';
import { checkSignedPdf, extractSignatures, type SignedPdfReport } from '../helpers/external-tools.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import type { TestPki } from '../../src/testing/test-pki.js';
import { TEST_NOW } from '../helpers/test-now.js';

const T0 = new Date(TEST_NOW);
const fx = usePadesFixture({ tsaAt: T0 });

async function contract(options: { pages?: number; objectStreams?: boolean; rotate?: number } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < (options.pages ?? 2); i++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Contract page ${i + 1}`, { x: 50, y: 780, size: 14, font });
    if (options.rotate) page.setRotation({ type: 'degrees', angle: options.rotate } as Parameters<typeof page.setRotation>[0]);
  }
  return doc.save({ useObjectStreams: options.objectStreams ?? false });
}

function expectAllValid(report: SignedPdfReport, count: number): void {
  expect(report.pdfsig.length, report.details).toBe(count);
  for (const s of report.pdfsig) expect(s.validation, report.details).toBe('Signature is Valid.');
  expect(report.openssl, report.details).toEqual(Array(count).fill(true));
  expect(report.qpdf, report.details).toBe(true);
}

function isPrefix(prefix: Uint8Array, whole: Uint8Array): boolean {
  return prefix.length <= whole.length && Buffer.from(whole.subarray(0, prefix.length)).equals(Buffer.from(prefix));
}

/** The signed attributes of the first SignerInfo of a DER CMS, by OID. */
function signedAttributes(cms: Uint8Array): Map<string, asn1js.AsnType[]> {
  const info = pkijs.ContentInfo.fromBER(cms);
  const signed = new pkijs.SignedData({ schema: info.content });
  const attrs = signed.signerInfos[0]?.signedAttrs?.attributes ?? [];
  return new Map(attrs.map((a) => [a.type, a.values as asn1js.AsnType[]]));
}

/** Renders page `n` at 72 dpi in grey: one pixel per point, in reader coordinates. */
function renderGray(pdf: Uint8Array, page: number): { width: number; height: number; at(x: number, y: number): number } {
  const dir = mkdtempSync(join(tmpdir(), 'paraph-render-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', ['-gray', '-r', '72', '-f', String(page), '-l', String(page), '-singlefile', join(dir, 'in.pdf'), join(dir, 'out')]);
    const pgm = readFileSync(join(dir, 'out.pgm'));
    const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'));
    if (!header) throw new Error('unexpected pdftoppm output');
    const width = Number(header[1]);
    const height = Number(header[2]);
    const offset = header[0].length;
    return { width, height, at: (x, y) => pgm[offset + y * width + x] ?? 255 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Bounding box of the dark pixels inside a reader-coordinate box. */
function inkBox(image: ReturnType<typeof renderGray>, box: { left: number; top: number; width: number; height: number }) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity, count = 0;
  for (let y = Math.ceil(box.top); y < box.top + box.height; y++) {
    for (let x = Math.ceil(box.left); x < box.left + box.width; x++) {
      if (image.at(x, y) < 128) {
        count++;
        minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
      }
    }
  }
  return { count, width: maxX - minX + 1, height: maxY - minY + 1 };
}

describe('signPdf', () => {
  const kinds: Array<[string, () => Signer, HashAlgorithm]> = [
    ['ECDSA P-256', () => fx.pki.signers.p256.signer, 'SHA-256'],
    ['ECDSA P-384', () => fx.pki.signers.p384.signer, 'SHA-384'],
    ['RSA PKCS#1 v1.5', () => fx.pki.signers.rsa.signer, 'SHA-256'],
    ['RSA PKCS#1 v1.5 with SHA-512', () => fx.pki.signers.rsa.signer, 'SHA-512'],
    ['RSA-PSS', () => fx.pki.signers.rsaPss.signer, 'SHA-256'],
    ['RSA-PSS with SHA-384', () => fx.pki.signers.rsaPss.signer, 'SHA-384'],
  ];
  for (const [label, signer, hash] of kinds) {
    it(`produces a signature pdfsig, openssl and qpdf accept (${label})`, async () => {
      const pdf = await contract();
      const { bytes, fieldName } = await signPdf(pdf, { signer: signer(), signingTime: T0, hash, reason: 'I agree' });
      expect(fieldName).toBe('Signature1');
      expect(isPrefix(pdf, bytes)).toBe(true);
      const report = await checkSignedPdf(bytes, fx.pki.rootPem);
      expectAllValid(report, 1);
      expect(report.pdfsig[0]?.type).toBe('ETSI.CAdES.detached');
      expect(report.pdfsig[0]?.hashAlgorithm).toBe(hash);
      expect(report.pdfsig[0]?.totalDocumentSigned).toBe(true);
    });
  }

  it('builds the CMS PAdES asks for: content-type, message-digest, signing-certificate-v2 with issuerSerial, no signingTime, chain embedded', async () => {
    const pdf = await contract();
    const signer = fx.pki.signers.p256;
    const { bytes } = await signPdf(pdf, { signer: signer.signer, signingTime: T0 });
    const [sig] = await extractSignatures(bytes);
    const attrs = signedAttributes(sig!.cms);
    expect([...attrs.keys()].sort()).toEqual(['1.2.840.113549.1.9.16.2.47', '1.2.840.113549.1.9.3', '1.2.840.113549.1.9.4'].sort());
    expect(attrs.has('1.2.840.113549.1.9.5')).toBe(false); // signingTime
    const essCertIds = (attrs.get('1.2.840.113549.1.9.16.2.47')![0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence;
    const first = essCertIds.valueBlock.value[0] as asn1js.Sequence;
    const [certHash, issuerSerial] = first.valueBlock.value as [asn1js.OctetString, asn1js.Sequence];
    expect(Buffer.from(certHash.valueBlock.valueHexView).equals(Buffer.from(digestBytes(signer.certDer, 'SHA-256')))).toBe(true);
    const serial = issuerSerial.valueBlock.value[1] as asn1js.Integer;
    expect(serial.toBigInt()).toBe(signer.serial);
    const signed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(sig!.cms).content });
    expect(signed.certificates?.length).toBe(signer.signer.certificateChain.length);
    expect(signed.encapContentInfo.eContent).toBeUndefined();
    expectAllValid(await checkSignedPdf(bytes, fx.pki.rootPem), 1);
  });

  it('writes /M from the injected signing time', async () => {
    const { bytes } = await signPdf(await contract(), { signer: fx.pki.signers.p256.signer, signingTime: T0 });
    const text = Buffer.from(bytes).toString('latin1');
    expect(text).toContain("/M (D:20261121100000+00'00')");
    expectAllValid(await checkSignedPdf(bytes, fx.pki.rootPem), 1);
  });

  it('does not change its input', async () => {
    const pdf = await contract();
    const copy = pdf.slice();
    const { bytes } = await signPdf(pdf, { signer: fx.pki.signers.p256.signer, signingTime: T0, placement: { pageNumber: 1, left: 50, top: 50, width: 150, height: 60 } });
    expect(Buffer.from(pdf).equals(Buffer.from(copy))).toBe(true);
    expectAllValid(await checkSignedPdf(bytes, fx.pki.rootPem), 1);
  });

  it('three signers into placed fields, then a seal: four valid signatures, each revision a prefix of the next', async () => {
    const { sealPdf } = await import('../../src/pades/seal-pdf.js');
    const base = await contract({ pages: 2 });
    const field = (name: string, type: 'Signature' | 'Seal', top: number, signerIds: string[]): FieldPlacement => ({
      field: `sig.${name}`, formSet: 'sig', fieldKey: name, type, signerIds, pageNumber: 2, left: 60, top, width: 180, height: 70,
    });
    const placed = await placeFields(base, [
      field('Signer1', 'Signature', 100, ['Signer1']),
      field('Signer2', 'Signature', 200, ['Signer2']),
      field('Signer3', 'Signature', 300, ['Signer3']),
      field('Seal', 'Seal', 400, []),
    ]);
    const revisions = [placed.bytes];
    const signers = [fx.pki.signers.p256, fx.pki.signers.rsa, fx.pki.signers.rsaPss];
    for (const [i, s] of signers.entries()) {
      const result = await signPdf(revisions[revisions.length - 1]!, {
        signer: s.signer, signingTime: new Date(T0.getTime() + i * 60_000), field: `sig.Signer${i + 1}`,
      });
      expect(result.fieldName).toBe(`sig.Signer${i + 1}`);
      revisions.push(result.bytes);
    }
    const sealed = await sealPdf(revisions[revisions.length - 1]!, {
      signer: fx.pki.seal.signer, signingTime: new Date(T0.getTime() + 5 * 60_000), organizationName: 'Paraph Test B.V.',
    });
    expect(sealed.fieldName).toBe('sig.Seal');
    revisions.push(sealed.bytes);
    for (let i = 1; i < revisions.length; i++) expect(isPrefix(revisions[i - 1]!, revisions[i]!)).toBe(true);

    const report = await checkSignedPdf(sealed.bytes, fx.pki.rootPem);
    expectAllValid(report, 4);
    expect(report.pdfsig.map((s) => s.totalDocumentSigned)).toEqual([false, false, false, true]);
    expect(report.pdfsig.map((s) => s.signerCommonName)).toEqual([...signers, fx.pki.seal].map((s) => certificateSubjectName(s.certDer)));
    // Each signature's appearance shows ink inside its box.
    const image = renderGray(sealed.bytes, 2);
    for (const top of [100, 200, 300, 400]) expect(inkBox(image, { left: 62, top: top + 2, width: 176, height: 66 }).count).toBeGreaterThan(50);
  }, 60_000);

  it('draws the appearance in every widget of a field placed at several matches', async () => {
    const base = await contract({ pages: 2 });
    const widget = (pageNumber: number): FieldPlacement => ({
      field: 'sig.Signer1', formSet: 'sig', fieldKey: 'Signer1', type: 'Signature', signerIds: ['Signer1'], pageNumber, left: 300, top: 500, width: 180, height: 70,
    });
    const placed = await placeFields(base, [widget(1), widget(2)]);
    const { bytes, fieldName } = await signPdf(placed.bytes, { signer: fx.pki.signers.p384.signer, signingTime: T0, field: 'sig.Signer1', appearance: { name: 'Dave Example' } });
    expect(fieldName).toBe('sig.Signer1');
    // A field with several widgets keeps its widgets as /Kids, so /V sits on the field, not on a widget. Debian 12's
    // poppler (pdfsig) looks for /V on the widget and reports such fields as unsigned (known poppler limitation, see
    // pyHanko issue #678); openssl, qpdf and verifyPdf check this case instead.
    const report = await checkSignedPdf(bytes, fx.pki.rootPem);
    expect(report.openssl, report.details).toEqual([true]);
    expect(report.qpdf).toBe(true);
    const verified = await verifyPdf(bytes, { trustRoots: [fx.pki.rootDer], now: T0 });
    expect(verified.signatures.map((s) => [s.fieldName, s.valid, s.coversWholeDocument])).toEqual([['sig.Signer1', true, true]]);
    for (const page of [1, 2]) {
      const before = inkBox(renderGray(placed.bytes, page), { left: 302, top: 502, width: 176, height: 66 }).count;
      const after = inkBox(renderGray(bytes, page), { left: 302, top: 502, width: 176, height: 66 }).count;
      expect(after, `page ${page}`).toBeGreaterThan(before);
    }
  });

  it('draws the signature upright on pages with /Rotate', async () => {
    for (const rotate of [90, 180, 270]) {
      const pdf = await contract({ pages: 1, rotate });
      const box = { pageNumber: 1, left: 100, top: 100, width: 220, height: 60 };
      const { bytes } = await signPdf(pdf, { signer: fx.pki.signers.p256.signer, signingTime: T0, placement: box, appearance: { name: 'Zoë Łukasiewicz-Ōta' } });
      expectAllValid(await checkSignedPdf(bytes, fx.pki.rootPem), 1);
      const ink = inkBox(renderGray(bytes, 1), box);
      expect(ink.count, `rotate ${rotate}`).toBeGreaterThan(100);
      // Upright text lines are wider than tall; a sideways appearance would be taller than wide.
      expect(ink.width, `rotate ${rotate}`).toBeGreaterThan(ink.height * 1.5);

      // The same for a field placed beforehand on the rotated page: the widget's page tells the rotation.
      const placed = await placeFields(pdf, [
        { field: 'sig.Signer1', formSet: 'sig', fieldKey: 'Signer1', type: 'Signature', signerIds: ['Signer1'], ...box },
      ]);
      const signed = await signPdf(placed.bytes, { signer: fx.pki.signers.p256.signer, signingTime: T0, field: 'sig.Signer1', appearance: { name: 'Zoë Łukasiewicz-Ōta' } });
      expectAllValid(await checkSignedPdf(signed.bytes, fx.pki.rootPem), 1);
      const fieldInk = inkBox(renderGray(signed.bytes, 1), { ...box, left: box.left + 2, top: box.top + 2, width: box.width - 4, height: box.height - 4 });
      expect(fieldInk.width, `placed field, rotate ${rotate}`).toBeGreaterThan(fieldInk.height * 1.5);
    }
  }, 60_000);

  it('shows the scribble image in the widget', async () => {
    const png = await scribblePng();
    const box = { pageNumber: 1, left: 50, top: 50, width: 200, height: 100 };
    const { bytes } = await signPdf(await contract({ pages: 1 }), { signer: fx.pki.signers.rsa.signer, signingTime: T0, placement: box, appearance: { image: png } });
    expectAllValid(await checkSignedPdf(bytes, fx.pki.rootPem), 1);
    // The scribble is a black bar across the upper part of the box.
    const ink = inkBox(renderGray(bytes, 1), { left: 52, top: 52, width: 196, height: 50 });
    expect(ink.count).toBeGreaterThan(500);
  });

  it('signs documents with xref streams and object streams', async () => {
    const pdf = await contract({ objectStreams: true });
    const first = await signPdf(pdf, { signer: fx.pki.signers.p384.signer, signingTime: T0, placement: { pageNumber: 1, left: 40, top: 40, width: 150, height: 60 } });
    const second = await signPdf(first.bytes, { signer: fx.pki.signers.rsa.signer, signingTime: T0 });
    const report = await checkSignedPdf(second.bytes, fx.pki.rootPem);
    expectAllValid(report, 2);
    expect(report.pdfsig.map((s) => s.totalDocumentSigned)).toEqual([false, true]);
  });

  it('adds a signature time-stamp over the signature value (B-T) with a TSA on 127.0.0.1', async () => {
    const before = fx.tsa.requests.length;
    const { bytes } = await signPdf(await contract(), { signer: fx.pki.signers.p256.signer, signingTime: T0, timestamper: fx.tsa.timestamper() });
    expectAllValid(await checkSignedPdf(bytes, fx.pki.rootPem), 1);
    const [sig] = await extractSignatures(bytes);
    const signed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(sig!.cms).content });
    const signerInfo = signed.signerInfos[0]!;
    const tokenAttr = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === '1.2.840.113549.1.9.16.2.14');
    expect(tokenAttr).toBeDefined();
    expect(fx.tsa.requests).toHaveLength(before + 1);
    const signatureValue = signerInfo.signature.valueBlock.valueHexView;
    expect(fx.tsa.requests[before]!.imprintHex).toBe(Buffer.from(digestBytes(signatureValue, 'SHA-256')).toString('hex'));
    // openssl ts -verify checks the token against the signature value it stamps.
    const dir = mkdtempSync(join(tmpdir(), 'paraph-ts-'));
    try {
      writeFileSync(join(dir, 'token.der'), new Uint8Array(tokenAttr!.values[0]!.toBER()));
      writeFileSync(join(dir, 'data.bin'), signatureValue);
      writeFileSync(join(dir, 'root.pem'), fx.pki.rootPem);
      writeFileSync(join(dir, 'chain.pem'), fx.pki.intermediate.certPem);
      const out = execFileSync('openssl', ['ts', '-verify', '-token_in', '-in', join(dir, 'token.der'), '-data', join(dir, 'data.bin'), '-CAfile', join(dir, 'root.pem'), '-untrusted', join(dir, 'chain.pem')], { encoding: 'utf8' });
      expect(out).toContain('Verification: OK');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds for random sequences of signers, hashes and placements (property)', async () => {
    const base = await contract({ pages: 3 });
    const signerArb = fc.constantFrom('p256', 'p384', 'rsa', 'rsaPss') as fc.Arbitrary<keyof TestPki['signers']>;
    const stepArb = fc.record({
      signer: signerArb,
      hash: fc.constantFrom<HashAlgorithm>('SHA-256', 'SHA-384', 'SHA-512'),
      visible: fc.option(fc.record({ pageNumber: fc.integer({ min: 1, max: 3 }), left: fc.integer({ min: 0, max: 400 }), top: fc.integer({ min: 0, max: 700 }) }), { nil: undefined }),
      reason: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 3 }), async (steps) => {
        const revisions = [base];
        for (const step of steps) {
          const { bytes } = await signPdf(revisions[revisions.length - 1]!, {
            signer: fx.pki.signers[step.signer].signer,
            signingTime: T0,
            hash: step.hash,
            reason: step.reason,
            placement: step.visible && { ...step.visible, width: 150, height: 60 },
          });
          revisions.push(bytes);
        }
        const final = revisions[revisions.length - 1]!;
        for (const r of revisions) expect(isPrefix(r, final)).toBe(true);
        const report = await checkSignedPdf(final, fx.pki.rootPem);
        expectAllValid(report, steps.length);
        expect(report.pdfsig.map((s) => s.hashAlgorithm)).toEqual(steps.map((s) => s.hash));
      }),
      { numRuns: 6 },
    );
  }, 120_000);
});

/** A 120×40 PNG: white with a thick black bar, standing in for a scribble. */
async function scribblePng(): Promise<Uint8Array> {
  const { deflateSync } = await import('node:zlib');
  const width = 120;
  const height = 40;
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0;
    for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = y > 10 && y < 30 ? 0 : 255;
  }
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer): number => {
    let c = 0xffffffff;
    for (const b of buf) c = (crcTable[(c ^ b) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return new Uint8Array(Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0)),
  ]));
}
