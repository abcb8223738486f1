/**
 * Semantic comparison of PDF values: another product re-serialising what it did not mean to
 * change (a /TU in UTF-16BE instead of PDFDocEncoding, 1.0 for 1, reordered keys) is no change; a different value
 * is. And in verifyPdf: a later signer that re-encodes a field's /TU and bumps the catalog /Version with ISO 32002
 * /Extensions leaves the earlier signature VALID.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFContext, PDFHexString, PDFName, PDFNumber, PDFString } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import { samePdfValue } from '../../src/pades/pdf-value-equality.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { PKI_DIR } from '../../src/testing/test-pki.js';
import { originalObjects, signLastPlaceholder, writeSection } from './verify-helpers.js';
import { TEST_NOW } from '../helpers/test-now.js';

const context = PDFContext.create();

describe('samePdfValue', () => {
  it('equates a text in PDFDocEncoding with the same text in UTF-16BE, and tells different texts apart', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'abcXYZ 019.,-éüß'.split('')), maxLength: 20 }), fc.string({ maxLength: 5 }), (text, other) => {
        const literal = PDFString.of(text.replace(/[()\\]/g, ''));
        const utf16 = PDFHexString.fromText(text.replace(/[()\\]/g, ''));
        expect(samePdfValue(literal, utf16)).toBe(true);
        if (other.length > 0) expect(samePdfValue(literal, PDFHexString.fromText(`${text}${other}`))).toBe(false);
      }),
    );
  });

  it('compares numbers by value, dictionaries without key order, and treats /null as a missing entry', () => {
    expect(samePdfValue(PDFNumber.of(1), PDFNumber.of(1.0))).toBe(true);
    expect(samePdfValue(PDFNumber.of(1), PDFNumber.of(1.5))).toBe(false);
    expect(samePdfValue(context.obj({ A: 1, B: [1, 2] }), context.obj({ B: [1, 2], A: 1 }))).toBe(true);
    expect(samePdfValue(context.obj({ A: 1, C: null }), context.obj({ A: 1 }))).toBe(true);
    expect(samePdfValue(context.obj({ A: 1 }), context.obj({ A: 2 }))).toBe(false);
    expect(samePdfValue(PDFName.of('Sig'), PDFString.of('Sig'))).toBe(false);
  });
});

describe('verifyPdf: harmless re-serialisation by a later signer', () => {
  it('keeps the first signature valid when /TU is re-encoded and /Version and /Extensions are set', async () => {
    const objects = originalObjects();
    const field = '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig1) /TU (Signer one) /Rect [0 0 0 0] /P 3 0 R /F 132 /V 7 0 R >>';
    const signed = signLastPlaceholder(writeSection(undefined, objects.map((o) => (o.num === 5 ? { num: 5, body: field } : o)), 1, 8), {
      certPath: join(PKI_DIR, 'signer-rsa.pem'),
      keyPath: join(PKI_DIR, 'signer-rsa.key.pem'),
      chainPaths: [join(PKI_DIR, 'intermediate-ca.pem')],
    });
    const tuUtf16 = Buffer.from('\ufeffSigner one', 'utf16le').swap16().toString('hex').toUpperCase();
    const update = writeSection(signed, [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] /SigFlags 3.0 >> /Version /2.0 /Extensions << /ISO_ [<< /Type /DeveloperExtensions /BaseVersion /2.0 /ExtensionLevel 32002 >>] >> >>' },
      { num: 5, body: `<< /T (Sig1) /FT /Sig /Type /Annot /Subtype /Widget /TU <${tuUtf16}> /Rect [0.0 0 0 0] /P 3 0 R /F 132 /V 7 0 R >>` },
    ], 1, 8);
    const report = await verifyPdf(update, { trustRoots: [readFileSync(join(PKI_DIR, 'root-ca.pem'))], now: new Date(TEST_NOW) });
    expect(report.signatures[0]!.modifications.disallowed).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.signatures[0]!.modifications.allowed.join('\n')).toMatch(/\/Version set to 2\.0/);

    // A real change of /TU in the same update is still refused.
    const changed = writeSection(signed, [{ num: 5, body: field.replace('Signer one', 'Signer two') }], 1, 8);
    const refused = await verifyPdf(changed, { trustRoots: [readFileSync(join(PKI_DIR, 'root-ca.pem'))], now: new Date(TEST_NOW) });
    expect(refused.signatures[0]!.modifications.disallowed.join('\n')).toMatch(/signed signature field.*5 0 R/);
  });
});
