/**
 * Cross-reference reading (src/pdf/xref.ts): PNG and TIFF predictors undone exactly (property test against a
 * reference encoder), and the final revision's xref chain of every corpus file (tables, xref streams with
 * predictors, hybrid /XRefStm, object streams, Acrobat-updated files, hide-and-replace updates) resolved to the
 * same entries as qpdf's `--show-xref`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { PDFContext, PDFName } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import { findRevisions } from '../../src/pdf/revisions.js';
import { ObjectStreamCache, XrefView, undoPredictor, type XrefSection } from '../../src/pdf/xref.js';

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** PNG-encodes `rows` (each `rowLength` bytes) with the given per-row filter types. */
function pngEncode(rows: Uint8Array[], types: number[], bpp: number): Uint8Array {
  const out: number[] = [];
  rows.forEach((row, r) => {
    const type = types[r]!;
    out.push(type);
    for (let i = 0; i < row.length; i++) {
      const left = i >= bpp ? row[i - bpp]! : 0;
      const up = r > 0 ? rows[r - 1]![i]! : 0;
      const upLeft = r > 0 && i >= bpp ? rows[r - 1]![i - bpp]! : 0;
      const predicted = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][type]!;
      out.push((row[i]! - predicted) & 0xff);
    }
  });
  return Uint8Array.from(out);
}

function params(entries: Record<string, number>) {
  const context = PDFContext.create();
  return context.obj(entries);
}

describe('undoPredictor', () => {
  it('undoes every PNG filter type, row by row, for any colours and columns', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 8 }), fc.nat(), (colors, columns, rowCount, seed) => {
        const rowLength = colors * columns;
        const rows = Array.from({ length: rowCount }, (_, r) => Uint8Array.from({ length: rowLength }, (_, i) => (seed * 31 + r * 17 + i * 13 + ((seed >> i % 16) & 0xff)) & 0xff));
        const types = rows.map((_, r) => (seed + r * 3) % 5);
        const encoded = pngEncode(rows, types, colors);
        const decoded = undoPredictor(encoded, params({ Predictor: 10 + (seed % 5), Colors: colors, Columns: columns, BitsPerComponent: 8 }));
        expect(Buffer.from(decoded).equals(Buffer.concat(rows))).toBe(true);
      }),
    );
  });

  it('undoes the TIFF predictor 2 and leaves data alone without a predictor', () => {
    const rows = [Uint8Array.from([1, 2, 3, 250, 5, 6]), Uint8Array.from([9, 9, 9, 9, 9, 9])];
    const encoded = rows.flatMap((row) => [...row].map((v, i) => (i >= 2 ? (v - row[i - 2]!) & 0xff : v)));
    expect([...undoPredictor(Uint8Array.from(encoded), params({ Predictor: 2, Colors: 2, Columns: 3 }))]).toEqual([...rows[0]!, ...rows[1]!]);
    expect([...undoPredictor(Uint8Array.from([1, 2]), undefined)]).toEqual([1, 2]);
  });
});

/** qpdf's view of the cross-reference data: `N/G: uncompressed; offset = X` or `compressed; stream = S, index = I`. */
function qpdfXref(path: string): Map<number, string> {
  const out = execFileSync('qpdf', ['--show-xref', path], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  const entries = new Map<number, string>();
  for (const line of out.split('\n')) {
    const m = /^(\d+)\/\d+: (?:uncompressed; offset = (\d+)|compressed; stream = (\d+), index = (\d+))/.exec(line);
    if (m) entries.set(Number(m[1]), m[2] !== undefined ? `offset ${m[2]}` : `stream ${m[3]} index ${m[4]}`);
  }
  return entries;
}

const CORPUS = join(import.meta.dirname, '..', '..', 'fixtures', 'conformance');
const files = ['pyhanko', 'attacks'].flatMap((d) => readdirSync(join(CORPUS, d)).filter((f) => f.endsWith('.pdf')).map((f) => join(d, f)));

describe('XrefView', () => {
  it.each(files)('reads the same cross-reference entries as qpdf: %s', (file) => {
    const pdf = new Uint8Array(readFileSync(join(CORPUS, file)));
    const revisions = findRevisions(pdf);
    const view = new XrefView(pdf, revisions.at(-1)!.startxref, new ObjectStreamCache(pdf), new Map<number, XrefSection>());
    const ours = new Map<number, string>();
    for (const [n, entry] of view.entries) {
      if (entry.kind === 'offset') ours.set(n, `offset ${entry.offset}`);
      else if (entry.kind === 'compressed') ours.set(n, `stream ${entry.stream} index ${entry.index}`);
    }
    expect(ours).toEqual(qpdfXref(join(CORPUS, file)));
    // Every entry resolves to an object (qpdf --check passes these files).
    for (const n of ours.keys()) expect(view.get(n), `object ${n}`).toBeDefined();
    expect(view.trailer.get(PDFName.of('Root'))).toBeDefined();
  });
});
