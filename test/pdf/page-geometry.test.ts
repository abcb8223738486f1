import fc from 'fast-check';
import { PDFDocument, PDFName, degrees } from '../../src/pdf/pdf-lib.js';
import { describe, expect, it } from 'vitest';
import {
  type PageGeometry,
  type UserRect,
  normalizeRotation,
  pageGeometryFromBoxes,
  readerPointToUser,
  readerRectToUser,
  userPointToReader,
  userRectToReader,
  visibleBox,
} from '../../src/pdf/page-geometry.js';
import { readPageGeometry } from '../../src/pdf/page-boxes.js';

const A4: UserRect = { x: 0, y: 0, width: 595, height: 842 };

describe('normalizeRotation', () => {
  it('reduces multiples of 90 modulo 360 and treats anything else as 0', () => {
    expect(normalizeRotation(0)).toBe(0);
    expect(normalizeRotation(450)).toBe(90);
    expect(normalizeRotation(-90)).toBe(270);
    expect(normalizeRotation(-180)).toBe(180);
    expect(normalizeRotation(720)).toBe(0);
    expect(normalizeRotation(45)).toBe(0);
    expect(normalizeRotation(Number.NaN)).toBe(0);
  });
});

describe('pageGeometryFromBoxes', () => {
  it('swaps width and height for 90 and 270', () => {
    expect(pageGeometryFromBoxes(A4, 0, 1)).toMatchObject({ width: 595, height: 842, rotation: 0 });
    expect(pageGeometryFromBoxes(A4, 90, 1)).toMatchObject({ width: 842, height: 595, rotation: 90 });
    expect(pageGeometryFromBoxes(A4, 180, 1)).toMatchObject({ width: 595, height: 842, rotation: 180 });
    expect(pageGeometryFromBoxes(A4, -90, 2)).toMatchObject({ width: 842, height: 595, rotation: 270, pageNumber: 2 });
  });
});

describe('visibleBox', () => {
  it('intersects the CropBox with the MediaBox and falls back when they do not overlap', () => {
    expect(visibleBox({ x: 0, y: 0, width: 100, height: 100 }, { x: 50, y: -20, width: 100, height: 60 })).toEqual({
      x: 50,
      y: 0,
      width: 50,
      height: 40,
    });
    expect(visibleBox({ x: 0, y: 0, width: 100, height: 100 }, { x: 200, y: 200, width: 10, height: 10 })).toEqual({
      x: 0,
      y: 0,
      width: 100,
      height: 100,
    });
    expect(visibleBox(undefined, undefined)).toEqual({ x: 0, y: 0, width: 612, height: 792 });
  });
});

describe('userPointToReader: the corners of the visible page', () => {
  // CropBox with a non-zero origin; the user-space corner that shows at the reader's top-left for each rotation.
  const crop: UserRect = { x: 10, y: 20, width: 200, height: 300 };
  const cases: Array<[number, { x: number; y: number }]> = [
    [0, { x: 10, y: 320 }],
    [90, { x: 10, y: 20 }],
    [180, { x: 210, y: 20 }],
    [270, { x: 210, y: 320 }],
  ];
  for (const [rotation, topLeft] of cases) {
    it(`puts the right corner at (0,0) for /Rotate ${rotation}`, () => {
      const geo = pageGeometryFromBoxes(crop, rotation, 1);
      expect(userPointToReader(geo, topLeft.x, topLeft.y)).toEqual({ left: 0, top: 0 });
      // The opposite corner is at the reader's bottom-right.
      const opposite = { x: 10 + 210 - topLeft.x, y: 20 + 320 - topLeft.y };
      expect(userPointToReader(geo, opposite.x, opposite.y)).toEqual({ left: geo.width, top: geo.height });
    });
  }

  it('moves right along user +y on a page rotated 90 (text runs down the unrotated page)', () => {
    const geo = pageGeometryFromBoxes(A4, 90, 1);
    expect(userPointToReader(geo, 100, 500)).toEqual({ left: 500, top: 100 });
  });
});

const geometryArb = fc
  .record({
    x: fc.integer({ min: -500, max: 500 }),
    y: fc.integer({ min: -500, max: 500 }),
    width: fc.integer({ min: 10, max: 2000 }),
    height: fc.integer({ min: 10, max: 2000 }),
    rotation: fc.constantFrom(0, 90, 180, 270, -90, 450),
  })
  .map(({ rotation, ...crop }): PageGeometry => pageGeometryFromBoxes(crop, rotation, 1));

describe('round trips (property)', () => {
  it('readerPointToUser inverts userPointToReader', () => {
    fc.assert(
      fc.property(geometryArb, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (geo, u, v) => {
        const left = u * geo.width;
        const top = v * geo.height;
        const p = readerPointToUser(geo, left, top);
        const back = userPointToReader(geo, p.x, p.y);
        expect(back.left).toBeCloseTo(left, 9);
        expect(back.top).toBeCloseTo(top, 9);
        // Inside the page in reader space means inside the CropBox in user space.
        expect(p.x).toBeGreaterThanOrEqual(geo.cropBox.x - 1e-9);
        expect(p.x).toBeLessThanOrEqual(geo.cropBox.x + geo.cropBox.width + 1e-9);
        expect(p.y).toBeGreaterThanOrEqual(geo.cropBox.y - 1e-9);
        expect(p.y).toBeLessThanOrEqual(geo.cropBox.y + geo.cropBox.height + 1e-9);
      }),
      { numRuns: 300 },
    );
  });

  it('userRectToReader inverts readerRectToUser and keeps the area', () => {
    const rectArb = fc.record({
      left: fc.double({ min: -100, max: 1000, noNaN: true }),
      top: fc.double({ min: -100, max: 1000, noNaN: true }),
      width: fc.double({ min: 0, max: 500, noNaN: true }),
      height: fc.double({ min: 0, max: 500, noNaN: true }),
    });
    fc.assert(
      fc.property(geometryArb, rectArb, (geo, rect) => {
        const user = readerRectToUser(geo, rect);
        expect(user.width * user.height).toBeCloseTo(rect.width * rect.height, 6);
        const back = userRectToReader(geo, user);
        expect(back.left).toBeCloseTo(rect.left, 9);
        expect(back.top).toBeCloseTo(rect.top, 9);
        expect(back.width).toBeCloseTo(rect.width, 9);
        expect(back.height).toBeCloseTo(rect.height, 9);
      }),
      { numRuns: 300 },
    );
  });

  it('the whole visible page maps to the whole CropBox', () => {
    fc.assert(
      fc.property(geometryArb, (geo) => {
        const user = readerRectToUser(geo, { left: 0, top: 0, width: geo.width, height: geo.height });
        expect(user.x).toBeCloseTo(geo.cropBox.x, 9);
        expect(user.y).toBeCloseTo(geo.cropBox.y, 9);
        expect(user.width).toBeCloseTo(geo.cropBox.width, 9);
        expect(user.height).toBeCloseTo(geo.cropBox.height, 9);
      }),
      { numRuns: 200 },
    );
  });
});

describe('readPageGeometry (pdf-lib page)', () => {
  it('reads MediaBox, CropBox and /Rotate, intersecting the boxes', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([600, 800]);
    page.setMediaBox(-50, -60, 600, 800);
    page.setCropBox(0, 0, 700, 300);
    page.setRotation(degrees(270));
    const geo = readPageGeometry(page, 3);
    expect(geo).toEqual({
      pageNumber: 3,
      rotation: 270,
      cropBox: { x: 0, y: 0, width: 550, height: 300 },
      width: 300,
      height: 550,
    });
  });

  it('inherits /Rotate and /MediaBox from the page tree and accepts reversed corners', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([100, 100]);
    page.node.delete(PDFName.of('MediaBox'));
    const parent = page.node.Parent()!;
    parent.set(PDFName.of('MediaBox'), doc.context.obj([300, 400, 0, 0]));
    parent.set(PDFName.of('Rotate'), doc.context.obj(-270));
    const geo = readPageGeometry(page, 1);
    expect(geo.rotation).toBe(90);
    expect(geo.cropBox).toEqual({ x: 0, y: 0, width: 300, height: 400 });
    expect(geo.width).toBe(400);
  });

  it("reads a page's own boxes when its /Parent is not a page tree node (a damaged page tree)", async () => {
    // The shape of pdf.js's corpus file filled-background.pdf: a 600 × 800 page whose /Parent names the catalog.
    // pdf-lib's own inheritance lookup throws there; PDFium, pdf.js and poppler read the page's /MediaBox.
    const doc = await PDFDocument.create();
    const page = doc.addPage([600, 800]);
    page.node.set(PDFName.of('Parent'), doc.context.getObjectRef(doc.catalog)!);
    page.node.set(PDFName.of('Rotate'), doc.context.obj(90));
    const geo = readPageGeometry(page, 1);
    expect(geo.cropBox).toEqual({ x: 0, y: 0, width: 600, height: 800 });
    expect(geo.rotation).toBe(90);
  });

  it('stops at a /Parent cycle and inherits what the nodes on it carry', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([100, 100]);
    page.node.delete(PDFName.of('MediaBox'));
    const loop = doc.context.obj({ MediaBox: [0, 0, 500, 700] });
    const loopRef = doc.context.register(loop);
    loop.set(PDFName.of('Parent'), loopRef);
    page.node.set(PDFName.of('Parent'), loopRef);
    expect(readPageGeometry(page, 1).cropBox).toEqual({ x: 0, y: 0, width: 500, height: 700 });
  });

  it('falls back to US Letter when the MediaBox is missing everywhere', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([100, 100]);
    page.node.delete(PDFName.of('MediaBox'));
    expect(readPageGeometry(page, 1).cropBox).toEqual({ x: 0, y: 0, width: 612, height: 792 });
  });
});
