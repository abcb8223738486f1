import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRef, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { BALANCE_MIN_KIDS, INDEX_BALANCE_MIN_PAGES, balancePageTree } from '../../src/pdf/page-tree-balance.js';
import type { PageGeometry } from '../../src/pdf/page-geometry.js';
import { type ExtractedText, extractRange, openPdf } from '../../src/pdf/text-index/pdfjs-extract.js';
import { type TextIndex, indexText } from '../../src/pdf/text-index/text-index.js';
import { decodeBoxes } from '../../src/pdf/text-index/boxes.js';
import { generatePdf, randomPages } from '../../src/testing/generate-pdf.js';

const PAGES = 300;

/**
 * A flat 300-page document whose pages partly inherit /Rotate, /CropBox and /MediaBox from the root /Pages (every
 * third page drops its own /Rotate, every fourth its /CropBox, every fifth its /MediaBox), the rest set their own.
 */
async function flatDocument(useObjectStreams: boolean): Promise<Uint8Array> {
  const { bytes } = await generatePdf(randomPages(77, { pages: PAGES, anchorsPerPage: 1, fonts: ['Helvetica', 'DejaVuSans'] }));
  const doc = await PDFDocument.load(bytes);
  const root = doc.catalog.lookup(PDFName.of('Pages'), PDFDict);
  root.set(PDFName.of('Rotate'), PDFNumber.of(90));
  root.set(PDFName.of('MediaBox'), doc.context.obj([-50, -40, 700, 900]));
  root.set(PDFName.of('CropBox'), doc.context.obj([-20, -10, 500, 650]));
  doc.getPages().forEach((page, i) => {
    if (i % 3 === 0) page.node.delete(PDFName.of('Rotate'));
    if (i % 4 === 0) page.node.delete(PDFName.of('CropBox'));
    if (i % 5 === 0) page.node.delete(PDFName.of('MediaBox'));
  });
  return doc.save({ useObjectStreams });
}

/** A quickly made flat document of `pages` small pages: every third inherits /Rotate 90 and the CropBox from the root. */
async function largeFlatDocument(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const root = doc.catalog.lookup(PDFName.of('Pages'), PDFDict);
  root.set(PDFName.of('Rotate'), PDFNumber.of(90));
  root.set(PDFName.of('CropBox'), doc.context.obj([10, 20, 300, 400]));
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([320 + (n % 7) * 10, 420]);
    page.drawText(`Page ${n} anchor {{P${n}}} end`, { x: 20 + (n % 5) * 7, y: 100 + (n % 11) * 13, size: 9, font });
    if (n % 3 !== 0) {
      page.node.set(PDFName.of('Rotate'), PDFNumber.of((n % 4) * 90));
      page.setCropBox(0, 0, 320, 420);
    }
  }
  return doc.save();
}

interface Extraction {
  geometry: PageGeometry[];
  texts: ExtractedText[];
}

/** pdf.js extraction of every page straight from these bytes (no balancing in between). */
async function extractDirect(bytes: Uint8Array): Promise<Extraction> {
  const doc = await openPdf(bytes);
  const out: Extraction = { geometry: [], texts: [] };
  try {
    await extractRange(doc, 1, doc.numPages, undefined, {
      geometry: (geo) => out.geometry.push(geo),
      text: (text) => out.texts.push(text),
    });
  } finally {
    await doc.destroy();
  }
  return out;
}

/** Every page's geometry, text and every character's box, as plain data. */
function dumpIndex(index: TextIndex): unknown {
  return index.pages.map((geo) => {
    const text = index.text(geo.pageNumber);
    return {
      geo,
      text: text?.text,
      boxes: text ? Array.from({ length: text.text.length }, (_, i) => text.charBox(i)) : undefined,
    };
  });
}

/** The same plain data from a direct extraction. */
function dumpExtraction(extraction: Extraction): unknown {
  return extraction.geometry.map((geo, p) => {
    const t = extraction.texts[p]!;
    const b = decodeBoxes(t.boxes, t.text.length);
    return {
      geo,
      text: t.text,
      boxes: Array.from({ length: t.text.length }, (_, i) =>
        t.text.charCodeAt(i) === 32
          ? undefined
          : { left: b[i * 4]!, top: b[i * 4 + 1]!, width: b[i * 4 + 2]! - b[i * 4]!, height: b[i * 4 + 3]! - b[i * 4 + 1]! },
      ),
    };
  });
}

/** Page refs in document order, walking the tree from the root (pdf-lib's own traversal). */
async function pageRefs(bytes: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  return doc.getPages().map((page) => page.ref.toString());
}

describe('balancePageTree', () => {
  const docs: Record<string, Uint8Array> = {};
  beforeAll(async () => {
    docs.stream = await flatDocument(true);
    docs.table = await flatDocument(false);
  }, 60_000);

  it.each(['stream', 'table'])('balances a flat tree (xref %s) in one update that readers accept', async (kind) => {
    const original = docs[kind]!;
    const balanced = await balancePageTree(original);
    expect(balanced).not.toBe(original);
    // The original bytes are an exact prefix: one appended update.
    expect(Buffer.from(balanced.subarray(0, original.length)).equals(Buffer.from(original))).toBe(true);
    expect(balanced.length).toBeGreaterThan(original.length);

    // Same pages in the same order (pdf-lib walks the new tree); no page object was rewritten.
    expect(await pageRefs(balanced)).toEqual(await pageRefs(original));
    const doc = await PDFDocument.load(balanced, { updateMetadata: false });
    const root = doc.catalog.lookup(PDFName.of('Pages'), PDFDict);
    const rootRef = doc.catalog.get(PDFName.of('Pages'));
    const kids = root.lookup(PDFName.of('Kids'), PDFArray);
    expect(kids.size()).toBeLessThanOrEqual(64);
    // Every intermediate node: /Type /Pages, ≤ 64 kids, /Count = pages below, /Parent = the node above.
    const walk = (ref: PDFRef, parent: unknown): number => {
      const node = doc.context.lookup(ref, PDFDict);
      if (node.get(PDFName.of('Type')) === PDFName.of('Page')) {
        expect(node.get(PDFName.of('Parent'))).toBe(rootRef);
        return 1;
      }
      expect(node.get(PDFName.of('Type'))).toBe(PDFName.of('Pages'));
      expect(node.get(PDFName.of('Parent'))).toBe(parent);
      const children = node.lookup(PDFName.of('Kids'), PDFArray);
      expect(children.size()).toBeLessThanOrEqual(64);
      let count = 0;
      for (let i = 0; i < children.size(); i++) count += walk(children.get(i) as PDFRef, ref);
      expect(node.lookup(PDFName.of('Count'), PDFNumber).asNumber()).toBe(count);
      return count;
    };
    let total = 0;
    for (let i = 0; i < kids.size(); i++) total += walk(kids.get(i) as PDFRef, rootRef);
    expect(total).toBe(PAGES);

    const dir = mkdtempSync(join(tmpdir(), 'paraph-balance-'));
    writeFileSync(join(dir, 'balanced.pdf'), balanced);
    expect(execFileSync('qpdf', ['--check', join(dir, 'balanced.pdf')], { encoding: 'utf8' })).toContain(
      'No syntax or stream encoding errors',
    );
    const popplerPages = execFileSync('pdfinfo', [join(dir, 'balanced.pdf')], { encoding: 'utf8' });
    expect(popplerPages).toMatch(new RegExp(`Pages:\\s+${PAGES}\\b`));

    const pdfjsDoc = await openPdf(balanced);
    expect(pdfjsDoc.numPages).toBe(PAGES);
    await pdfjsDoc.destroy();
  });

  it('leaves the index identical: every page geometry, text and character box', async () => {
    const original = docs.stream!;
    const balanced = await balancePageTree(original);
    expect(balanced).not.toBe(original);
    const before = await extractDirect(original);
    const after = await extractDirect(balanced);
    expect(before.geometry).toHaveLength(PAGES);
    // The inherited attributes do show up: some pages take the root's rotation and crop box.
    expect(before.geometry.filter((g, i) => i % 3 === 0 && g.rotation === 90).length).toBeGreaterThan(0);
    expect(after.geometry).toEqual(before.geometry);
    expect(after.texts.map((t) => t.text)).toEqual(before.texts.map((t) => t.text));
    after.texts.forEach((t, i) => expect(Buffer.from(t.boxes).equals(Buffer.from(before.texts[i]!.boxes))).toBe(true));
  }, 60_000);

  it(`gives indexText the same index on documents it balances (≥ ${INDEX_BALANCE_MIN_PAGES} pages)`, async () => {
    const original = await largeFlatDocument(INDEX_BALANCE_MIN_PAGES + 1);
    expect(await balancePageTree(original)).not.toBe(original);
    const expected = dumpExtraction(await extractDirect(original));
    expect(dumpIndex(await indexText(original, { workers: 2 }))).toEqual(expected);
    expect(dumpIndex(await indexText(original, { workers: 0 }))).toEqual(expected);
  }, 60_000);

  it('returns the same bytes object for what does not qualify', async () => {
    // Few pages.
    const small = (await generatePdf(randomPages(3, { pages: 5, anchorsPerPage: 1 }))).bytes;
    expect(await balancePageTree(small)).toBe(small);
    // Not a PDF / damaged.
    const junk = new TextEncoder().encode('%PDF-1.7\nnot really a pdf');
    expect(await balancePageTree(junk)).toBe(junk);
    // Already nested: a tree pdf-lib builds from a balanced file is not touched again.
    const balanced = await balancePageTree(docs.stream!);
    expect(await balancePageTree(balanced)).toBe(balanced);
    // A flat tree whose /Count disagrees with its kids.
    const doc = await PDFDocument.load(docs.table!);
    doc.catalog.lookup(PDFName.of('Pages'), PDFDict).set(PDFName.of('Count'), PDFNumber.of(PAGES + 1));
    const wrongCount = await doc.save();
    expect(await balancePageTree(wrongCount)).toBe(wrongCount);
    // Linearized files.
    const dir = mkdtempSync(join(tmpdir(), 'paraph-balance-'));
    writeFileSync(join(dir, 'in.pdf'), docs.table!);
    execFileSync('qpdf', ['--linearize', join(dir, 'in.pdf'), join(dir, 'lin.pdf')]);
    const linearized = new Uint8Array(readFileSync(join(dir, 'lin.pdf')));
    expect(await balancePageTree(linearized)).toBe(linearized);
    expect(BALANCE_MIN_KIDS).toBeLessThan(PAGES);
  }, 60_000);
});
