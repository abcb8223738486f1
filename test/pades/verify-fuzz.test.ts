/**
 * Property tests: verifyPdf never throws on damaged input, and any change to a signed byte makes the signature
 * invalid (whatever else the damage does to the parse).
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { addDocumentTimestamp } from '../../src/pades/doc-timestamp.js';
import { addValidationData } from '../../src/pades/ltv.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { PKI_DIR } from '../../src/testing/test-pki.js';
import { addSignatureFieldUpdate, originalObjects, signLastPlaceholder, writeSection } from './verify-helpers.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const fx = usePadesFixture({ tsaAt: NOW, ocspAt: NOW });
const rootPem = readFileSync(join(PKI_DIR, 'root-ca.pem'));
const identity = (name: string) => ({ certPath: join(PKI_DIR, `${name}.pem`), keyPath: join(PKI_DIR, `${name}.key.pem`), chainPaths: [join(PKI_DIR, 'intermediate-ca.pem')] });
let signed: Buffer;

// pdf-lib's parser reports each damaged object on console.warn; hundreds of damaged files would flood the output.
const quiet = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
afterAll(() => quiet.mockRestore());
let signedRange: [number, number, number, number];

beforeAll(async () => {
  const first = signLastPlaceholder(writeSection(undefined, originalObjects(), 1, 8), identity('signer-rsa'));
  signed = signLastPlaceholder(addSignatureFieldUpdate(first, [5], 'Sig2', 8, 9), identity('signer-p256'));
  const report = await verifyPdf(signed, { trustRoots: [rootPem], now: NOW });
  expect(report.valid).toBe(true);
  signedRange = report.signatures[1]!.byteRange as [number, number, number, number];
});

describe('verifyPdf on a damaged B-LTA document', () => {
  let lta: Uint8Array;
  let cmsRanges: Array<[number, number]>;

  beforeAll(async () => {
    const doc = await PDFDocument.create();
    doc.addPage([300, 300]);
    const signed = (await signPdf(await doc.save(), { signer: fx.pki.signers.p256.signer, signingTime: NOW, timestamper: fx.tsa.timestamper() })).bytes;
    const lt = await addValidationData(signed, { fetcher: fx.ocsp.fetcher, now: NOW, trustRoots: [fx.pki.rootDer] });
    lta = (await addDocumentTimestamp(lt.bytes, { timestamper: fx.tsa.timestamper() })).bytes;
    const report = await verifyPdf(lta, { trustRoots: [rootPem], now: NOW });
    expect(report.signatures.map((s) => s.level)).toEqual(['B-LTA', undefined]);
    // The DER part of each /Contents (its zero padding excluded): where CMS, TSA token and certificates live.
    cmsRanges = report.signatures.map((s) => {
      const start = s.byteRange[1]! + 1;
      const hex = Buffer.from(lta.subarray(start, s.byteRange[2]! - 1)).toString('latin1');
      return [start, start + hex.replace(/(00)+$/, '').length] as [number, number];
    });
  });

  it('never throws when a hex digit inside a CMS or time-stamp token changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), fc.constantFrom(...'0123456789abcdef'), async (which, where, digit) => {
        const [start, end] = cmsRanges[which % cmsRanges.length]!;
        const damaged = Buffer.from(lta);
        damaged[start + (where % (end - start))] = digit.charCodeAt(0);
        const report = await verifyPdf(damaged, { trustRoots: [rootPem], now: NOW });
        expect(report.signatures).toHaveLength(2);
      }),
      { numRuns: 80 },
    );
  });
});

describe('verifyPdf on damaged input', () => {
  it('flags the covering signature as invalid when a signed byte changes, and never throws', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.integer({ min: 1, max: 255 }), async (where, delta) => {
        const [, a, b, c] = signedRange;
        const signedLength = a + c;
        const offset = where % signedLength;
        const position = offset < a ? offset : b + (offset - a);
        const damaged = Buffer.from(signed);
        damaged[position] = (damaged[position]! + delta) & 0xff;
        const report = await verifyPdf(damaged, { trustRoots: [rootPem], now: NOW });
        expect(report.valid).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('returns a report for truncated files and random splices', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), fc.uint8Array({ maxLength: 64 }), async (cut, at, junk) => {
        const end = cut % signed.length;
        const insertAt = at % (end + 1);
        const damaged = Buffer.concat([signed.subarray(0, insertAt), junk, signed.subarray(insertAt, end)]);
        const report = await verifyPdf(damaged, { trustRoots: [rootPem], now: NOW });
        expect(typeof report.valid).toBe('boolean');
        if (junk.length > 0 || end < signed.length) expect(report.valid).toBe(false);
      }),
      { numRuns: 150 },
    );
  });
});
