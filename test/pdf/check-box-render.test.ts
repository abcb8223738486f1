/**
 * paraph's check boxes are drawn by the viewers people use: poppler (Evince, Okular; `pdftoppm`) and MuPDF
 * (`mutool draw`). A box left unchecked shows its frame, a checked one its tick: as placed, after a signature was
 * added in a later revision, and after a signer filled them (one ticked, the other cleared) and signed. Looked at
 * pixel by pixel inside each widget's rectangle.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { placeFields } from '../../src/pdf/place-fields.js';
import type { FieldPlacement } from '../../src/pdf/resolve-locations.js';
import { generatePdf } from '../../src/testing/generate-pdf.js';
import { testPki } from '../../src/testing/test-pki.js';
import { fillFormFields } from '../../src/service/signer/fill-form-fields.js';
import { TEST_NOW } from '../helpers/test-now.js';

const run = promisify(execFile);
const DPI = 72; // one pixel per point: a widget's rectangle in reader coordinates is its pixel box
const BOX = { top: 100, width: 40, height: 40 } as const;
const UNCHECKED_LEFT = 100;
const CHECKED_LEFT = 200;

let dir: string;
const documents: Record<'placed' | 'signed' | 'filled', Uint8Array> = { placed: new Uint8Array(), signed: new Uint8Array(), filled: new Uint8Array() };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paraph-check-render-'));
  const { bytes } = await generatePdf([{ width: 595, height: 842, rotation: 0, texts: [{ anchor: 'Terms', left: 100, baseline: 600, size: 12, font: 'Helvetica', style: 'plain' }] }]);
  const box = (fieldKey: string, left: number, checked: boolean): FieldPlacement => ({
    field: `f.${fieldKey}`,
    formSet: 'f',
    fieldKey,
    type: 'Check',
    value: 'Yes',
    ...(checked ? { checked: true } : {}),
    signerIds: ['Signer1'],
    pageNumber: 1,
    left,
    ...BOX,
  });
  const signature: FieldPlacement = { field: 'f.sig', formSet: 'f', fieldKey: 'sig', type: 'Signature', signerIds: ['Signer1'], pageNumber: 1, left: 300, top: 300, width: 200, height: 60 };
  documents.placed = (await placeFields(bytes, [box('open', UNCHECKED_LEFT, false), box('ticked', CHECKED_LEFT, true), signature])).bytes;
  const pki = await testPki();
  documents.signed = (await signPdf(documents.placed, { signer: pki.signers.p256.signer, signingTime: new Date(TEST_NOW), field: 'f.sig' })).bytes;
  const filled = await fillFormFields(documents.placed, [
    { name: 'f.open', type: 'Check', value: true, exportValue: 'Yes' },
    { name: 'f.ticked', type: 'Check', value: false, exportValue: 'Yes' },
  ]);
  documents.filled = (await signPdf(filled, { signer: pki.signers.p256.signer, signingTime: new Date(TEST_NOW), field: 'f.sig' })).bytes;
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Raster {
  readonly width: number;
  readonly pixel: (x: number, y: number) => readonly [number, number, number];
}

/** Parses a binary PPM (P6, 8 bits). */
function parsePpm(bytes: Uint8Array): Raster {
  let at = 0;
  const token = (): string => {
    while (at < bytes.length && /\s/.test(String.fromCharCode(bytes[at]!))) at++;
    if (bytes[at] === 0x23) {
      while (bytes[at] !== 0x0a) at++;
      return token();
    }
    let text = '';
    while (at < bytes.length && !/\s/.test(String.fromCharCode(bytes[at]!))) text += String.fromCharCode(bytes[at++]!);
    return text;
  };
  if (token() !== 'P6') throw new Error('not a binary PPM');
  const width = Number(token());
  token(); // height
  token(); // max value
  const data = at + 1;
  return { width, pixel: (x, y) => [bytes[data + (y * width + x) * 3]!, bytes[data + (y * width + x) * 3 + 1]!, bytes[data + (y * width + x) * 3 + 2]!] };
}

/** Page 1 of `pdf` at 72 dpi, by poppler or MuPDF. */
async function render(pdf: Uint8Array, renderer: 'poppler' | 'mupdf', name: string): Promise<Raster> {
  const input = join(dir, `${name}.pdf`);
  await writeFile(input, pdf);
  const output = join(dir, `${name}-${renderer}`);
  if (renderer === 'poppler') {
    await run('pdftoppm', ['-r', String(DPI), '-f', '1', '-l', '1', '-singlefile', input, output]);
  } else {
    await run('mutool', ['draw', '-q', '-r', String(DPI), '-o', `${output}.ppm`, input, '1']);
  }
  return parsePpm(new Uint8Array(await readFile(`${output}.ppm`)));
}

/** Pixels inside a widget (one pixel in from its edges) that are not white, and those that are dark (the tick). */
function inside(raster: Raster, left: number): { marked: number; dark: number; total: number } {
  let marked = 0;
  let dark = 0;
  let total = 0;
  for (let x = left; x < left + BOX.width; x++) {
    for (let y = BOX.top; y < BOX.top + BOX.height; y++) {
      const [r, g, b] = raster.pixel(x, y);
      total++;
      if (r < 250 || g < 250 || b < 250) marked++;
      if (r < 100 && g < 100 && b < 100) dark++;
    }
  }
  return { marked, dark, total };
}

describe("paraph's check boxes in poppler and MuPDF", () => {
  for (const renderer of ['poppler', 'mupdf'] as const) {
    for (const state of ['placed', 'signed', 'filled'] as const) {
      it(`${renderer}, ${state}: the unchecked box shows its frame, the checked one its tick`, async () => {
        const raster = await render(documents[state], renderer, state);
        // Filling ticked the box placed unchecked and cleared the other.
        const [openLeft, tickedLeft] = state === 'filled' ? [CHECKED_LEFT, UNCHECKED_LEFT] : [UNCHECKED_LEFT, CHECKED_LEFT];
        const open = inside(raster, openLeft);
        const ticked = inside(raster, tickedLeft);
        // The box is filled and framed: nearly every pixel inside is drawn; an unchecked box has no tick.
        expect(open.marked / open.total).toBeGreaterThan(0.9);
        expect(open.dark).toBe(0);
        expect(ticked.marked / ticked.total).toBeGreaterThan(0.9);
        expect(ticked.dark).toBeGreaterThan(40);
      }, 60_000);
    }
  }
});
