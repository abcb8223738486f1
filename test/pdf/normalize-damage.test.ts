/**
 * Random damage to the end of a generated PDF (startxref, the xref table, bytes shifted before it, truncation): the
 * normalization either gives a file qpdf checks clean and paraph can append to as it is, or refuses it with a typed
 * error; it never crashes, and never hands back a file readers would resolve differently.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ParaphError } from '../../src/errors.js';
import { normalizationNeeded, normalizePdf } from '../../src/pdf/normalize-pdf.js';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { qpdfCheck } from '../helpers/external-tools.js';

let sound: Uint8Array;
beforeAll(async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 3; i++) doc.addPage([400, 300]).drawText(`Page ${i} of a contract`, { x: 40, y: 250, size: 14, font });
  sound = await doc.save({ useObjectStreams: false });
});

const ascii = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');

type Damage =
  | { kind: 'startxref'; value: number }
  | { kind: 'xref-byte'; at: number; byte: number }
  | { kind: 'shift'; at: number; insert: string }
  | { kind: 'truncate'; keep: number };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constant('startxref' as const), value: fc.nat({ max: 20_000 }) }),
  fc.record({ kind: fc.constant('xref-byte' as const), at: fc.nat(), byte: fc.constantFrom(0x20, 0x0a, 0x30, 0x35, 0x39, 0x66, 0x6e, 0x78) }),
  fc.record({ kind: fc.constant('shift' as const), at: fc.nat(), insert: fc.constantFrom(' ', '\n', '%junk\n', '1 0 obj\n') }),
  fc.record({ kind: fc.constant('truncate' as const), keep: fc.double({ min: 0.5, max: 0.999, noNaN: true }).map((x) => Math.round(x * 1000)) }),
);

function apply(pdf: Uint8Array, d: Damage): Uint8Array {
  const text = ascii(pdf);
  const xref = text.lastIndexOf('\nxref') + 1;
  const startxref = text.lastIndexOf('startxref');
  switch (d.kind) {
    case 'startxref':
      return Buffer.from(`${text.slice(0, startxref)}startxref\n${d.value}\n%%EOF\n`, 'latin1');
    case 'xref-byte': {
      const out = new Uint8Array(pdf);
      out[xref + (d.at % (startxref - xref))] = d.byte;
      return out;
    }
    case 'shift': {
      const at = 16 + (d.at % (xref - 16));
      return Buffer.from(text.slice(0, at) + d.insert + text.slice(at), 'latin1');
    }
    case 'truncate':
      return pdf.subarray(0, Math.floor((pdf.length * d.keep) / 1000));
  }
}

describe('normalizePdf on randomly damaged files', () => {
  it('gives a file qpdf checks clean and paraph can use as it is, or a typed refusal', async () => {
    await fc.assert(
      fc.asyncProperty(damage, async (d) => {
        const damaged = apply(sound, d);
        let result;
        try {
          result = await normalizePdf(damaged);
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(ParaphError);
          expect((error as ParaphError).code).toMatch(/^PDF_/);
          return;
        }
        expect(await normalizationNeeded(result.bytes)).toBeUndefined();
        if (result.normalization) expect((await qpdfCheck(result.bytes)).ok).toBe(true);
        else expect((await qpdfCheck(result.bytes)).exitCode).toBe(0);
      }),
      { numRuns: 8, seed: 37 },
    );
    // Each rewrite starts a PDFium thread (~1 s on a loaded machine).
  }, 120_000);
});
