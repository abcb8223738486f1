import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { PDFDocument, StandardFonts, degrees } from '../../src/pdf/pdf-lib.js';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import type { FieldType } from '../../src/pdf/file-metadata.js';
import { ParaphError, PdfParseError, PlacementError, ValidationError } from '../../src/errors.js';
import { checkPlacements, placeFields } from '../../src/pdf/place-fields.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import type { FieldPlacement } from '../../src/pdf/resolve-locations.js';
import {
  pageGeometryFromBoxes,
  userRectToReader,
  type PageGeometry,
  type UserRect,
} from '../../src/pdf/page-geometry.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { testPki } from '../../src/testing/test-pki.js';
import { TEST_NOW } from '../helpers/test-now.js';

const exec = promisify(execFile);

interface PageSpec {
  media: UserRect;
  /** Inset of the CropBox inside the MediaBox (left, bottom, right, top). */
  inset: [number, number, number, number];
  rotation: 0 | 90 | 180 | 270;
}

function cropOf(spec: PageSpec): UserRect {
  const [l, b, r, t] = spec.inset;
  return { x: spec.media.x + l, y: spec.media.y + b, width: spec.media.width - l - r, height: spec.media.height - b - t };
}

/** The geometry each generated page must have, computed from the generator's own numbers. */
function geometryOf(spec: PageSpec, pageNumber: number): PageGeometry {
  return pageGeometryFromBoxes(cropOf(spec), spec.rotation, pageNumber);
}

async function makePdf(specs: PageSpec[], withForm = false): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const spec of specs) {
    const page = doc.addPage([spec.media.width, spec.media.height]);
    page.setMediaBox(spec.media.x, spec.media.y, spec.media.width, spec.media.height);
    const crop = cropOf(spec);
    page.setCropBox(crop.x, crop.y, crop.width, crop.height);
    page.setRotation(degrees(spec.rotation));
    page.drawText('Contract text', { x: crop.x + 20, y: crop.y + 20, size: 10, font });
  }
  if (withForm) {
    const form = doc.getForm();
    form.createTextField('existing').addToPage(doc.getPage(0), { x: specs[0]!.media.x + 5, y: specs[0]!.media.y + 5, width: 50, height: 15 });
  }
  return doc.save();
}

const A4: PageSpec = { media: { x: 0, y: 0, width: 595, height: 842 }, inset: [0, 0, 0, 0], rotation: 0 };

function placement(
  field: string,
  type: FieldType,
  pageNumber: number,
  rect: { left: number; top: number; width: number; height: number },
  extra: Partial<FieldPlacement> = {},
): FieldPlacement {
  const [formSet, fieldKey] = field.split('.') as [string, string];
  return { field, formSet, fieldKey, type, signerIds: [], pageNumber, ...rect, ...extra };
}

interface PdfjsWidget {
  fieldName: string;
  fieldType: string;
  rect: [number, number, number, number];
  exportValue?: string;
  fieldValue?: unknown;
  checkBox?: boolean;
}

/** Every widget annotation pdf.js sees, per 1-based page. */
async function pdfjsWidgets(pdf: Uint8Array): Promise<Map<number, PdfjsWidget[]>> {
  const task = getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 });
  const doc = await task.promise;
  try {
    const out = new Map<number, PdfjsWidget[]>();
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const annotations = (await page.getAnnotations()) as { subtype: string }[];
      out.set(n, annotations.filter((a) => a.subtype === 'Widget') as unknown as PdfjsWidget[]);
    }
    return out;
  } finally {
    await task.destroy();
  }
}

function toUserRect([x1, y1, x2, y2]: [number, number, number, number]): UserRect {
  return { x: Math.min(x1, x2), y: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}

function expectPrefix(result: Uint8Array, original: Uint8Array): void {
  expect(result.length).toBeGreaterThan(original.length);
  expect(Buffer.from(result.subarray(0, original.length)).equals(Buffer.from(original))).toBe(true);
}

async function withTemp<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'paraph-fields-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Dark pixels (gray < 200) in a reader-coordinate rectangle of a page rendered by pdftoppm at 72 dpi. */
async function darkPixels(pdf: Uint8Array, pageNumber: number, r: { left: number; top: number; width: number; height: number }): Promise<number> {
  return withTemp(async (dir) => {
    await writeFile(join(dir, 'in.pdf'), pdf);
    const args = ['-gray', '-r', '72', '-f', String(pageNumber), '-l', String(pageNumber), '-x', String(Math.round(r.left)),
      '-y', String(Math.round(r.top)), '-W', String(Math.round(r.width)), '-H', String(Math.round(r.height)), '-singlefile',
      join(dir, 'in.pdf'), join(dir, 'out')];
    await exec('pdftoppm', args);
    const pgm = await readFile(join(dir, 'out.pgm'));
    // Binary PGM: "P5\n<w> <h>\n<max>\n" then one byte per pixel.
    const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 64).toString('latin1'));
    if (!header) throw new Error('pdftoppm did not write a PGM');
    const pixels = pgm.subarray(header[0].length);
    let dark = 0;
    for (const p of pixels) if (p < 200) dark++;
    return dark;
  });
}

describe('placeFields', () => {
  it('adds signature, check and text fields that pdf.js reads back at the placed rectangles', async () => {
    const pdf = await makePdf([A4, { ...A4, rotation: 90 }]);
    const original = pdf.slice();
    const placements = [
      placement('sig1.Signature1', 'Signature', 1, { left: 50, top: 600, width: 140, height: 70 }, { signerIds: ['Signer1'] }),
      placement('sig1.Agree', 'Check', 1, { left: 50, top: 100, width: 12, height: 12 }, { value: 'I agree' }),
      placement('sig1.Name', 'SingleLine', 2, { left: 300, top: 100, width: 150, height: 18 }, { value: 'Zoë' }),
      placement('org.Seal', 'Seal', 2, { left: 600, top: 400, width: 140, height: 70 }),
    ];
    const { bytes, fields } = await placeFields(pdf, placements);
    expect(pdf).toEqual(original);
    expectPrefix(bytes, pdf);
    expect((await qpdfCheck(bytes)).ok).toBe(true);
    expect(fields.map((f) => [f.field, f.type, f.widgets.length])).toEqual([
      ['sig1.Signature1', 'Signature', 1],
      ['sig1.Agree', 'Check', 1],
      ['sig1.Name', 'SingleLine', 1],
      ['org.Seal', 'Seal', 1],
    ]);

    const widgets = await pdfjsWidgets(bytes);
    const page1 = widgets.get(1) ?? [];
    const page2 = widgets.get(2) ?? [];
    expect(page1.map((w) => [w.fieldName, w.fieldType])).toEqual([
      ['sig1.Signature1', 'Sig'],
      ['sig1.Agree', 'Btn'],
    ]);
    expect(page1[1]).toMatchObject({ checkBox: true, exportValue: 'I agree', fieldValue: 'Off' });
    expect(page2.map((w) => [w.fieldName, w.fieldType, w.fieldValue])).toEqual([
      ['sig1.Name', 'Tx', 'Zoë'],
      ['org.Seal', 'Sig', null],
    ]);
    const geos = [geometryOf(A4, 1), geometryOf({ ...A4, rotation: 90 }, 2)];
    for (const p of placements) {
      const w = [...page1, ...page2].find((x) => x.fieldName === p.field)!;
      const back = userRectToReader(geos[p.pageNumber - 1]!, toUserRect(w.rect));
      for (const k of ['left', 'top', 'width', 'height'] as const) expect(Math.abs(back[k] - p[k])).toBeLessThanOrEqual(0.5);
    }
  });

  it('round trip: pdf.js getAnnotations returns every widget at its placement on any page geometry (property)', async () => {
    const pageSpec = fc
      .record({
        x: fc.integer({ min: -200, max: 200 }),
        y: fc.integer({ min: -200, max: 200 }),
        width: fc.integer({ min: 200, max: 1200 }),
        height: fc.integer({ min: 200, max: 1200 }),
        inset: fc.tuple(fc.nat(40), fc.nat(40), fc.nat(40), fc.nat(40)),
        rotation: fc.constantFrom(0 as const, 90 as const, 180 as const, 270 as const),
      })
      .map(({ x, y, width, height, inset, rotation }): PageSpec => ({ media: { x, y, width, height }, inset, rotation }));
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    const widget = fc.record({
      type: fc.constantFrom<FieldType>('Signature', 'Seal', 'Check', 'SingleLine', 'Date', 'Number'),
      page: fc.nat(),
      fx: unit,
      fy: unit,
      fw: fc.double({ min: 0.05, max: 0.5, noNaN: true }),
      fh: fc.double({ min: 0.02, max: 0.3, noNaN: true }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(pageSpec, { minLength: 1, maxLength: 3 }), fc.array(widget, { minLength: 1, maxLength: 5 }), async (specs, ws) => {
        const pdf = await makePdf(specs);
        const geos = specs.map((s, i) => geometryOf(s, i + 1));
        const placements = ws.map((w, i) => {
          const geo = geos[w.page % geos.length]!;
          const width = Math.max(2, w.fw * geo.width);
          const height = Math.max(2, w.fh * geo.height);
          const left = w.fx * (geo.width - width);
          const top = w.fy * (geo.height - height);
          const value = w.type === 'Check' ? 'On' : w.type === 'Date' ? '2026-11-21' : w.type === 'Number' ? '12' : undefined;
          return placement(`f.x${i}`, w.type, geo.pageNumber, { left, top, width, height }, value === undefined ? {} : { value });
        });
        const { bytes } = await placeFields(pdf, placements);
        expectPrefix(bytes, pdf);
        const widgets = await pdfjsWidgets(bytes);
        for (const p of placements) {
          const found = (widgets.get(p.pageNumber) ?? []).filter((w) => w.fieldName === p.field);
          expect(found).toHaveLength(1);
          const back = userRectToReader(geos[p.pageNumber - 1]!, toUserRect(found[0]!.rect));
          for (const k of ['left', 'top', 'width', 'height'] as const) expect(Math.abs(back[k] - p[k])).toBeLessThanOrEqual(0.5);
        }
      }),
      // The example: a subnormal position once made a /Rect readers could not read.
      { numRuns: 25, examples: [[[{ media: { x: -6, y: 0, width: 200, height: 200 }, inset: [6, 0, 0, 0], rotation: 90 }], [{ type: 'Signature', page: 0, fx: 0, fy: 5e-324, fw: 0.05, fh: 0.02 }]]] },
    );
  });

  it('makes one field with a widget per match, and keeps the fields the PDF already had', async () => {
    const pdf = await makePdf([A4, A4], true);
    const placements = [1, 2, 2].map((page, i) =>
      placement('f.Name', 'SingleLine', page, { left: 100, top: 100 + 50 * i, width: 150, height: 18 }),
    );
    const { bytes, fields } = await placeFields(pdf, placements);
    expect(fields).toHaveLength(1);
    expect(fields[0]!.widgets).toHaveLength(3);
    expect((await qpdfCheck(bytes)).ok).toBe(true);
    const task = getDocument({ data: bytes.slice(), isEvalSupported: false, verbosity: 0 });
    const doc = await task.promise;
    const objects = (await doc.getFieldObjects()) as Record<string, { type: string; page: number }[]> | null;
    await task.destroy();
    // pdf.js lists the formset's non-terminal parent "f" too.
    expect(Object.keys(objects ?? {}).sort()).toEqual(['existing', 'f', 'f.Name']);
    // The field itself (page -1), then its three widgets.
    expect(objects?.['f.Name']?.map((o) => [o.type, o.page])).toEqual([['', -1], ['text', 0], ['text', 1], ['text', 1]]);
    // qpdf sees the same form: one terminal field with three widgets next to the original one.
    await withTemp(async (dir) => {
      await writeFile(join(dir, 'in.pdf'), bytes);
      const { stdout } = await exec('qpdf', ['--json', '--json-key=acroform', join(dir, 'in.pdf')]);
      const names = (JSON.parse(stdout) as { acroform: { fields: { fullname: string }[] } }).acroform.fields.map((f) => f.fullname);
      expect(names.sort()).toEqual(['existing', 'f.Name', 'f.Name', 'f.Name']);
    });
  });

  it('adds kids to a formset parent placed by an earlier run, and refuses a name that is taken', async () => {
    const pdf = await makePdf([A4]);
    const first = await placeFields(pdf, [placement('f.a', 'Check', 1, { left: 10, top: 10, width: 12, height: 12 })]);
    const second = await placeFields(first.bytes, [placement('f.b', 'Signature', 1, { left: 10, top: 100, width: 140, height: 70 })]);
    expectPrefix(second.bytes, first.bytes);
    expect((await qpdfCheck(second.bytes)).ok).toBe(true);
    const names = [...(await pdfjsWidgets(second.bytes)).values()].flat().map((w) => w.fieldName);
    expect(names).toEqual(['f.a', 'f.b']);
    const error = await placeFields(second.bytes, [placement('f.a', 'Check', 1, { left: 50, top: 10, width: 12, height: 12 })]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlacementError);
    expect((error as PlacementError).code).toBe('FIELD_NAME_TAKEN');
    expect((error as PlacementError).message).toBe(
      'The PDF already has a field named "f.a": use another field key or start from the PDF without it',
    );
    const withForm = await makePdf([A4], true);
    const clash = await placeFields(withForm, [placement('existing.x', 'Check', 1, { left: 50, top: 10, width: 12, height: 12 })]).catch((e: unknown) => e);
    expect((clash as PlacementError).message).toBe(
      'The PDF already has a field named "existing", so formset "existing" cannot be added: rename the formset',
    );
  });

  it('draws signature boxes upright and visible on pages with every /Rotate', async () => {
    const specs: PageSpec[] = ([0, 90, 180, 270] as const).map((rotation) => ({ ...A4, rotation }));
    const pdf = await makePdf(specs);
    const rect = { left: 300, top: 40, width: 140, height: 70 };
    const placements = specs.map((_, i) => placement(`s.sig${i}`, 'Signature', i + 1, rect));
    const { bytes } = await placeFields(pdf, placements);
    await mkdir('test-artifacts', { recursive: true });
    await writeFile('test-artifacts/fields-rotated.pdf', bytes);
    for (let n = 1; n <= 4; n++) {
      const inside = await darkPixels(bytes, n, { left: rect.left + 2, top: rect.top + 2, width: rect.width - 4, height: rect.height - 4 });
      const before = await darkPixels(pdf, n, { left: rect.left + 2, top: rect.top + 2, width: rect.width - 4, height: rect.height - 4 });
      expect(before).toBe(0);
      expect(inside).toBeGreaterThan(40); // the label's glyphs
      // The label sits in the lower-left part of the box as the reader sees it: upright, not rotated.
      const labelArea = await darkPixels(bytes, n, { left: rect.left + 2, top: rect.top + 25, width: 100, height: 25 });
      const topRight = await darkPixels(bytes, n, { left: rect.left + 100, top: rect.top + 2, width: 38, height: 20 });
      expect(labelArea).toBeGreaterThan(40);
      expect(topRight).toBe(0);
    }
  });

  it('renders a Unicode label and pre-filled value with the embedded font (flattened text extracts intact)', async () => {
    const pdf = await makePdf([A4]);
    const { bytes } = await placeFields(
      pdf,
      [
        placement('s.Signature', 'Signature', 1, { left: 50, top: 50, width: 200, height: 70 }, { signerIds: ['S1'] }),
        placement('s.Name', 'SingleLine', 1, { left: 50, top: 200, width: 200, height: 18 }, { value: 'Ιωάννης Жуков' }),
      ],
      { label: () => 'Sign here: Zoë Łukasiewicz-Ōta' },
    );
    await withTemp(async (dir) => {
      await writeFile(join(dir, 'in.pdf'), bytes);
      await exec('qpdf', ['--flatten-annotations=all', join(dir, 'in.pdf'), join(dir, 'flat.pdf')]);
      const { stdout } = await exec('pdftotext', [join(dir, 'flat.pdf'), '-']);
      expect(stdout).toContain('Sign here: Zoë Łukasiewicz-Ōta');
      expect(stdout).toContain('Ιωάννης Жуков');
      const fonts = await exec('pdffonts', [join(dir, 'in.pdf')]);
      expect(fonts.stdout).toMatch(/[A-Z]{6}\+DejaVuSans\s+CID TrueType\s+Identity-H\s+yes yes yes/);
    });
  });

  it('keeps an earlier signature valid: the fields go in an update after it (pdfsig)', async () => {
    const pki = await testPki();
    const pdf = await makePdf([A4, { ...A4, rotation: 90 }]);
    const signed = await signPdf(pdf, { signer: pki.signers.p256.signer, signingTime: new Date(TEST_NOW) });
    const { bytes } = await placeFields(signed.bytes, [
      placement('next.Signature', 'Signature', 2, { left: 100, top: 100, width: 140, height: 70 }, { signerIds: ['Signer2'] }),
      placement('next.Agree', 'Check', 1, { left: 100, top: 300, width: 12, height: 12 }, { value: 'Yes' }),
    ]);
    expectPrefix(bytes, signed.bytes);
    expect((await qpdfCheck(bytes)).ok).toBe(true);
    const check = await pdfsigCheck(bytes);
    expect(check.signatures).toHaveLength(1);
    expect(check.signatures[0]!.valid).toBe(true);
    expect(check.signatures[0]!.totalDocumentSigned).toBe(false);
    const names = [...(await pdfjsWidgets(bytes)).values()].flat().map((w) => w.fieldName);
    expect(names).toEqual(expect.arrayContaining(['next.Signature', 'next.Agree']));
  });

  it('is deterministic: the same input gives the same bytes', async () => {
    const pdf = await makePdf([A4]);
    const placements = [placement('s.Sig', 'Signature', 1, { left: 50, top: 50, width: 140, height: 70 })];
    const a = await placeFields(pdf, placements);
    const b = await placeFields(pdf, placements);
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });

  it('refuses placements that are not well-formed, naming each', async () => {
    const pdf = await makePdf([A4]);
    const error = await placeFields(pdf, [
      placement('a.b', 'Check', 2, { left: 0, top: 0, width: 12, height: 12 }),
      placement('a.c', 'Check', 1, { left: 0, top: 0, width: 0, height: Number.NaN }),
      { ...placement('a.d', 'Check', 1, { left: 0, top: 0, width: 1, height: 1 }), fieldKey: 'd.e', field: 'a.d.e' },
      placement('a.f', 'Check', 1, { left: 0, top: 0, width: 1, height: 1 }),
      placement('a.f', 'SingleLine', 1, { left: 5, top: 0, width: 1, height: 1 }),
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('INVALID_PLACEMENT');
    expect((error as ValidationError).issues).toEqual([
      'placements[0] (a.b): pageNumber 2 is not a page of this 1-page document',
      'placements[1] (a.c): height must be a finite number (got NaN)',
      'placements[1] (a.c): width and height must be greater than 0',
      'placements[2] (a.d.e): fieldKey "d.e" must be a non-empty name without a period',
      'placements[4] (a.f): the field already has type Check and value undefined; one field has one type and value',
    ]);
  });

  it('refuses to place when the PDF has another page count than the placements were resolved on', async () => {
    const pdf = await makePdf([A4]);
    const error = await placeFields(pdf, [placement('a.b', 'Check', 1, { left: 0, top: 0, width: 12, height: 12 })], { pageCount: 2 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PdfParseError);
    expect((error as PdfParseError).code).toBe('PDF_PAGE_COUNT_MISMATCH');
    expect((error as PdfParseError).message).toBe(
      'The PDF is damaged: its page tree has 1 page for one reader and 2 for another. Repair it (e.g. save it again from a PDF editor) and upload it again.',
    );
  });

  it('checks without writing what it would refuse to place: a taken name, another page count, another page geometry', async () => {
    const pdf = (await placeFields(await makePdf([A4, A4]), [placement('f.a', 'Check', 1, { left: 10, top: 10, width: 12, height: 12 })])).bytes;
    const doc = await loadPdf(pdf);
    const codeOf = (run: () => void): unknown => {
      try {
        run();
        return undefined;
      } catch (error) {
        return (error as ParaphError).code;
      }
    };
    const taken = [placement('f.a', 'Check', 2, { left: 50, top: 10, width: 12, height: 12 })];
    expect(codeOf(() => checkPlacements(doc, taken))).toBe('FIELD_NAME_TAKEN');
    expect(await placeFields(pdf, taken).catch((e: unknown) => (e as ParaphError).code)).toBe('FIELD_NAME_TAKEN');
    const free = [placement('f.b', 'Signature', 2, { left: 10, top: 100, width: 140, height: 70 })];
    expect(codeOf(() => checkPlacements(doc, free, { pageCount: 3 }))).toBe('PDF_PAGE_COUNT_MISMATCH');
    const turned = { ...geometryOf(A4, 2), rotation: 90 as const };
    expect(codeOf(() => checkPlacements(doc, free, { pages: [geometryOf(A4, 1), turned] }))).toBe('PAGE_GEOMETRY_MISMATCH');
    expect(codeOf(() => checkPlacements(doc, free, { pages: [geometryOf(A4, 1), geometryOf(A4, 2)] }))).toBeUndefined();
    expect((await placeFields(pdf, free, { pages: [geometryOf(A4, 1), geometryOf(A4, 2)] })).fields).toHaveLength(1);
  });

  it('turns bad PDFs into PdfParseErrors', async () => {
    const garbage = new TextEncoder().encode('this is not a pdf at all');
    const valid = await makePdf([A4]);
    const truncated = valid.slice(0, Math.floor(valid.length / 3));
    const zeroPages = zeroPagePdf();
    const encrypted = await withTemp(async (dir) => {
      await writeFile(join(dir, 'in.pdf'), valid);
      await exec('qpdf', ['--encrypt', 'user', 'owner', '256', '--', join(dir, 'in.pdf'), join(dir, 'enc.pdf')]);
      return new Uint8Array(await readFile(join(dir, 'enc.pdf')));
    });
    const codes: string[] = [];
    const messages: string[] = [];
    for (const bad of [new Uint8Array(0), garbage, truncated, encrypted, zeroPages]) {
      const error = await placeFields(bad, [placement('a.b', 'Check', 1, { left: 0, top: 0, width: 12, height: 12 })]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ParaphError);
      expect((error as ParaphError).origin).toBe('input');
      codes.push((error as ParaphError).code);
      messages.push((error as ParaphError).message);
      if (bad !== truncated) expect(error).toBeInstanceOf(PdfParseError);
    }
    expect(codes[0]).toBe('PDF_EMPTY');
    expect(codes[1]).toBe('PDF_NOT_A_PDF');
    expect(codes[2]).toMatch(/^PDF_/);
    // loadPdf's instanceof check misses pdf-lib's ES5-compiled EncryptedPDFError (reported to the lead), so only
    // the message is asserted here: it must say the PDF is encrypted.
    expect(codes[3]).toMatch(/^PDF_(ENCRYPTED|UNREADABLE)$/);
    expect(messages[3]).toMatch(/encrypted/i);
    expect(codes[4]).toBe('PDF_NO_PAGES');
  });
});

/** A syntactically valid PDF whose page tree has no pages (pdf-lib's save() would add one). */
export function zeroPagePdf(): Uint8Array {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>'];
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) body += `${String(off).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}
