import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { ParaphError, ValidationError } from '../../src/errors.js';
import { defaultSignerPlacements } from '../../src/pdf/resolve-locations.js';
import { readPageGeometry } from '../../src/pdf/page-boxes.js';
import { userRectToReader, type ReaderRect } from '../../src/pdf/page-geometry.js';
import { placeFieldsFromMetadata } from '../../src/pdf/place-fields-from-metadata.js';
import { indexText } from '../../src/pdf/text-index/text-index.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import { qpdfCheck } from '../helpers/external-tools.js';

const FIXTURES = join(process.cwd(), 'fixtures', 'pdf');

interface Anchor {
  pageNumber: number;
  anchor: string;
  box: ReaderRect;
}

async function fixture(name: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(join(FIXTURES, name)));
}

async function anchors(name: string): Promise<Anchor[]> {
  const all = JSON.parse(await readFile(join(FIXTURES, 'anchors.json'), 'utf8')) as Record<string, Anchor[]>;
  return all[name] ?? [];
}

/** Every widget pdf.js sees, converted back to reader coordinates with the page's own geometry. */
async function widgetsInReaderCoordinates(pdf: Uint8Array): Promise<{ field: string; pageNumber: number; rect: ReaderRect }[]> {
  const geos = (await loadPdf(pdf)).getPages().map((p, i) => readPageGeometry(p, i + 1));
  const task = getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 });
  const doc = await task.promise;
  const out: { field: string; pageNumber: number; rect: ReaderRect }[] = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const annotations = (await (await doc.getPage(n)).getAnnotations()) as { fieldName: string; rect: number[] }[];
      for (const a of annotations) {
        const [x1, y1, x2, y2] = a.rect as [number, number, number, number];
        out.push({ field: a.fieldName, pageNumber: n, rect: userRectToReader(geos[n - 1]!, { x: x1, y: y1, width: x2 - x1, height: y2 - y1 }) });
      }
    }
  } finally {
    await task.destroy();
  }
  return out;
}

function near(a: ReaderRect, b: ReaderRect, tolerance: number): boolean {
  return (['left', 'top', 'width', 'height'] as const).every((k) => Math.abs(a[k] - b[k]) <= tolerance);
}

describe('placeFieldsFromMetadata on the text fixtures', () => {
  for (const name of ['contract.pdf', 'rotated.pdf', 'cropbox.pdf', 'letter-spaced.pdf', 'cid-font.pdf', 'type3-font.pdf']) {
    it(`puts a field exactly over every anchor of ${name} (Left/Right/Top/Bottom 0), as pdf.js reads it back`, async () => {
      const pdf = await fixture(name);
      const expected = await anchors(name);
      const texts = [...new Set(expected.map((a) => a.anchor))];
      const metadata = {
        FormSets: {
          f: Object.fromEntries(
            texts.map((text, i) => [`a${i}`, { Type: 'Signature', Location: { Search: text, Left: 0, Right: 0, Top: 0, Bottom: 0 } }]),
          ),
        },
      };
      const { bytes, fields } = await placeFieldsFromMetadata(pdf, metadata, { workers: 0 });
      expect((await qpdfCheck(bytes)).ok).toBe(true);
      expect(fields).toHaveLength(texts.length);
      const widgets = await widgetsInReaderCoordinates(bytes);
      for (const anchor of expected) {
        const field = `f.a${texts.indexOf(anchor.anchor)}`;
        const hit = widgets.find((w) => w.field === field && w.pageNumber === anchor.pageNumber && near(w.rect, anchor.box, 1));
        expect(hit, `${anchor.anchor} on page ${anchor.pageNumber} at ${JSON.stringify(anchor.box)}`).toBeDefined();
      }
    });
  }

  it('places relative to the anchor with worker-thread extraction too (Top: -75 above {{Signer1}} on page 2)', async () => {
    const pdf = await fixture('rotated.pdf');
    const target = (await anchors('rotated.pdf')).find((a) => a.anchor === '{{Signer1}}' && a.pageNumber === 2)!;
    const { placements } = await placeFieldsFromMetadata(pdf, {
      FormSets: { s: { sig: { Type: 'Signature', Location: { Search: '{{Signer1}}', PageNumber: 2, Top: -75, Left: 10 } } } },
    });
    expect(placements).toHaveLength(1);
    expect(placements[0]!.pageNumber).toBe(2);
    expect(near(placements[0]!, { left: target.box.left + 10, top: target.box.top - 75, width: 140, height: 70 }, 1)).toBe(true);
  });

  it('needs no text when no Location searches (blank pages)', async () => {
    const pdf = await fixture('two-pages-blank.pdf');
    const { placements, bytes } = await placeFieldsFromMetadata(pdf, {
      FormSets: { s: { seal: { Type: 'Seal', Location: { PageNumber: 2, Right: 10, Bottom: 10 } } } },
    });
    const geo = readPageGeometry((await loadPdf(pdf)).getPage(1), 2);
    expect(placements[0]).toMatchObject({ pageNumber: 2, left: geo.width - 150, top: geo.height - 80, width: 140, height: 70 });
    expect((await qpdfCheck(bytes)).ok).toBe(true);
  });

  it('gives signers without a Signature field in the metadata the default field (signerIds option)', async () => {
    const pdf = await fixture('contract.pdf');
    const tag2 = (await anchors('contract.pdf')).find((a) => a.anchor === '{{Signer2}}')!;
    const { placements, bytes } = await placeFieldsFromMetadata(
      pdf,
      {
        Signers: { Signer1: { FormSets: ['one'] }, Signer3: { FormSets: ['three'] } },
        FormSets: {
          one: { Sig: { Type: 'Signature', Location: { PageNumber: 1, Left: 50, Top: 700 } } },
          three: { Agree: { Type: 'Check', Location: { PageNumber: 1, Left: 50, Top: 50 } } },
        },
      },
      { signerIds: ['Signer1', 'Signer2', 'Signer3'], workers: 0 },
    );
    expect(placements.map((p) => [p.field, p.pageNumber])).toEqual([
      ['one.Sig', 1],
      ['three.Agree', 1],
      ['Signer2.Signature', 2],
      ['Signer3.Signature', 1],
    ]);
    expect(near(placements[2]!, { ...tag2.box, width: 140, height: 70 }, 1)).toBe(true);
    expect(placements[3]).toMatchObject({ top: 36, signerIds: ['Signer3'] });
    const names = (await widgetsInReaderCoordinates(bytes)).map((w) => w.field).sort();
    expect(names).toEqual(['Signer2.Signature', 'Signer3.Signature', 'one.Sig', 'three.Agree']);
  });

  it('damaged PDFs (random byte changes) succeed or fail with an input ParaphError, never anything else (property)', async () => {
    const pdf = new Uint8Array(await readFile(join(process.cwd(), 'fixtures', 'sample', 'contract.pdf')));
    const metadata = JSON.parse(await readFile(join(process.cwd(), 'fixtures', 'sample', 'metadata.json'), 'utf8')) as unknown;
    const change = fc.record({ at: fc.nat({ max: pdf.length - 1 }), byte: fc.integer({ min: 0, max: 255 }) });
    const quiet = { log: console.log, warn: console.warn };
    console.log = () => undefined; // pdf-lib reports every object it cannot parse on the console
    console.warn = () => undefined;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 20 }), async (changes) => {
          const damaged = pdf.slice();
          for (const { at, byte } of changes) damaged[at] = byte;
          try {
            // Default workers, as the service runs it: pdf.js's stray rejections on damaged files stay in the worker.
            await placeFieldsFromMetadata(damaged, metadata);
          } catch (error) {
            expect(error).toBeInstanceOf(ParaphError);
            expect((error as ParaphError).origin).toBe('input');
          }
        }),
        { numRuns: 60 },
      );
    } finally {
      console.log = quiet.log;
      console.warn = quiet.warn;
    }
  });

  it('validates the metadata before touching the PDF', async () => {
    await expect(placeFieldsFromMetadata(new Uint8Array(0), { FormSets: { 'a.b': {} } })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('defaultSignerPlacements on a real index', () => {
  it('anchors each signer at the first {{SignerN}} of contract.pdf, in document order', async () => {
    const pdf = await fixture('contract.pdf');
    const index = await indexText(pdf, { workers: 0 });
    const tags = await anchors('contract.pdf');
    const first1 = tags.find((a) => a.anchor === '{{Signer1}}' && a.pageNumber === 1)!;
    const first2 = tags.find((a) => a.anchor === '{{Signer2}}')!;
    const [a, b, c] = defaultSignerPlacements(index, ['alice', 'bob', 'carol']);
    expect(a).toMatchObject({ field: 'alice.Signature', pageNumber: 1 });
    expect(near(a!, { ...first1.box, width: 140, height: 70 }, 1)).toBe(true);
    expect(b).toMatchObject({ field: 'bob.Signature', pageNumber: 2 });
    expect(near(b!, { ...first2.box, width: 140, height: 70 }, 1)).toBe(true);
    // No {{Signer3}}: top right of page 1.
    expect(c).toMatchObject({ pageNumber: 1, top: 36, left: index.pages[0]!.width - 36 - 140 });
  });
});
