/**
 * findRevisions / readRevisionSections: revision boundaries and the objects each update defines, for classic xref
 * tables (hand-written, property-tested over random update sequences) and xref streams (pdf-lib's object-stream
 * output plus paraph's incremental writer).
 */
import fc from 'fast-check';
import { PDFDict, PDFDocument, PDFName, PDFNumber, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import { openPdfForUpdate, writeIncrementalUpdate } from '../../src/pdf/incremental.js';
import { findRevisions, readRevisionSections } from '../../src/pdf/revisions.js';
import { diffRevisions } from '../../src/pades/modification-check.js';
import { stream, writeSection, type ObjectSpec } from '../pades/verify-helpers.js';

const BASE: ObjectSpec[] = [
  { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
  { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
  { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>' },
];

function revOf(value: unknown): number | undefined {
  if (!(value instanceof PDFDict)) return undefined;
  const rev = value.get(PDFName.of('Rev'));
  return rev instanceof PDFNumber ? rev.asNumber() : undefined;
}

describe('findRevisions and readRevisionSections on classic xref tables', () => {
  it('finds every revision end and exactly the objects each update defines', async () => {
    const update = fc.uniqueArray(fc.integer({ min: 4, max: 12 }), { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(fc.array(update, { maxLength: 5 }), async (updates) => {
        let pdf = writeSection(undefined, BASE, 1, 4);
        const ends = [pdf.length];
        const expected = new Map<number, number>();
        updates.forEach((numbers, i) => {
          const objects = numbers.map((num) => ({ num, body: `<< /Rev ${i + 1} /N ${num} >>` }));
          pdf = writeSection(pdf, objects, 1, 13);
          ends.push(pdf.length);
          for (const n of numbers) expected.set(n, i + 1);
        });
        const revisions = findRevisions(pdf);
        expect(revisions.map((r) => r.end)).toEqual(ends);
        expect(revisions.every((r) => r.xrefKind === 'table')).toBe(true);
        const sections = readRevisionSections(pdf, revisions);
        sections.slice(1).forEach((section, i) => {
          expect([...section.objects.keys()].sort((a, b) => a - b)).toEqual([...updates[i]!].sort((a, b) => a - b));
          for (const object of section.objects.values()) expect(revOf(object)).toBe(i + 1);
        });
        const { changes, final } = diffRevisions(sections);
        expect(changes).toHaveLength(updates.length);
        for (const [n, rev] of expected) expect(revOf(final.objects.get(n))).toBe(rev);
      }),
      { numRuns: 60 },
    );
  });

  it('ignores a %%EOF inside a stream (an embedded PDF) and accepts CRLF and a missing final EOL', async () => {
    const embedded = 'xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 >>\nstartxref\n9\n%%EOF\n';
    const original = writeSection(undefined, [...BASE, { num: 4, body: stream(embedded, '/Type /EmbeddedFile') }], 1, 5);
    const withCrlf = Buffer.concat([Buffer.from(original).subarray(0, original.length - 1), Buffer.from('\r\n')]);
    const updated = writeSection(withCrlf, [{ num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>' }], 1, 5);
    const noFinalEol = updated.subarray(0, updated.length - 1);
    const revisions = findRevisions(noFinalEol);
    expect(revisions.map((r) => [r.start, r.end])).toEqual([
      [0, withCrlf.length],
      [withCrlf.length, noFinalEol.length],
    ]);
    expect(revisions[1]!.eofEnd).toBe(noFinalEol.length);
  });

  it('lists objects an update marks free', async () => {
    const original = writeSection(undefined, [...BASE, { num: 4, body: '<< /Old true >>' }], 1, 5);
    const updated = writeSection(original, [{ num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>' }], 1, 5, '4 1\n0000000000 00001 f \n');
    const revisions = findRevisions(updated);
    const section = readRevisionSections(updated, revisions)[1]!;
    expect(section.freed).toEqual([4]);
  });

  it('follows the xref offsets like a reader, and reports dangling entries', async () => {
    const original = writeSection(undefined, BASE, 1, 4);
    const shown = '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 999 999] >>\nendobj\n';
    const hidden = '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>\nendobj\n';
    const xrefAt = original.length + shown.length + hidden.length;
    const tail = `xref\n3 1\n${String(original.length).padStart(10, '0')} 00000 n \n7 1\n0000000001 00000 n \ntrailer\n<< /Size 8 /Root 1 0 R /Prev ${/startxref\s+(\d+)/.exec(Buffer.from(original).toString('latin1'))![1]} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const updated = Buffer.concat([Buffer.from(original), Buffer.from(shown + hidden + tail, 'latin1')]);
    const revisions = findRevisions(updated);
    const section = readRevisionSections(updated, revisions)[1]!;
    expect(section.objects.get(3)?.toString()).toContain('999');
    // The second definition of object 3 is invisible to readers (its xref entry points at the first): not a change.
    expect(section.inconsistencies).toEqual([
      'the cross-reference entry of object 7 points at offset 1, where object 7 is not defined',
    ]);
  });

  it('finds nothing in bytes without a startxref trailer', () => {
    expect(findRevisions(new TextEncoder().encode('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n'))).toEqual([]);
  });
});

/** An update section with an uncompressed xref stream (/W [1 4 2]) that rewrites object 3 and frees object 4. */
function xrefStreamUpdate(prefix: Uint8Array, prevXref: number): Uint8Array {
  const obj3 = Buffer.from('3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 50 50] >>\nendobj\n', 'latin1');
  const obj3At = prefix.length;
  const xrefAt = obj3At + obj3.length;
  const entry = (type: number, field2: number, gen: number): Buffer => {
    const b = Buffer.alloc(7);
    b.writeUInt8(type, 0);
    b.writeUInt32BE(field2, 1);
    b.writeUInt16BE(gen, 5);
    return b;
  };
  const data = Buffer.concat([entry(1, obj3At, 0), entry(0, 0, 1), entry(1, xrefAt, 0)]);
  const head = Buffer.from(`9 0 obj\n<< /Type /XRef /Size 10 /W [1 4 2] /Index [3 2 9 1] /Root 1 0 R /Prev ${prevXref} /Length ${data.length} >>\nstream\n`, 'latin1');
  const tail = Buffer.from(`\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`, 'latin1');
  return Buffer.concat([Buffer.from(prefix), obj3, head, data, tail]);
}

describe('findRevisions and readRevisionSections on xref streams', () => {
  it('lists objects an xref stream update marks free', async () => {
    const original = writeSection(undefined, [...BASE, { num: 4, body: '<< /Old true >>' }], 1, 5);
    const updated = xrefStreamUpdate(original, Number(/startxref\s+(\d+)/.exec(Buffer.from(original).toString('latin1'))![1]));
    const revisions = findRevisions(updated);
    expect(revisions.map((r) => r.xrefKind)).toEqual(['table', 'stream']);
    const section = readRevisionSections(updated, revisions)[1]!;
    expect([...section.objects.keys()]).toEqual([3]);
    expect(section.freed).toEqual([4]);
  });

  it('reads updates written with xref streams and objects inside object streams', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([200, 200]).drawText('hello', { font: await doc.embedFont(StandardFonts.Helvetica) });
    const original = await doc.save({ useObjectStreams: true });
    const session = await openPdfForUpdate(original);
    const added = session.doc.context.register(session.doc.context.obj({ Added: true }));
    const catalog = session.doc.catalog;
    catalog.set(PDFName.of('Extra'), added);
    session.markModified(session.doc.context.trailerInfo.Root as never);
    const updated = writeIncrementalUpdate(session).bytes;

    const revisions = findRevisions(updated);
    expect(revisions.map((r) => r.xrefKind)).toEqual(['stream', 'stream']);
    // pdf-lib ends the file right after %%EOF; the update starts with the end-of-line it adds.
    expect(revisions[0]!.eofEnd).toBe(original.length);
    const first = readRevisionSections(updated, revisions)[0]!;
    // Objects compressed in object streams are listed, the object and xref streams themselves are not.
    expect([...first.objects.values()].some((o) => o instanceof PDFDict && o.get(PDFName.of('Type'))?.toString() === '/Catalog')).toBe(true);
    const second = readRevisionSections(updated, revisions)[1]!;
    expect([...second.objects.keys()].sort((a, b) => a - b)).toEqual([first.root!.objectNumber, added.objectNumber].sort((a, b) => a - b));
    const { changes } = diffRevisions([first, second]);
    expect(changes[0]!.disallowed).toEqual(['[catalog-changed] catalog /Extra changed']);
  });
});
