import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateFileMetaData, type FieldType, type FileMetaData, type Location } from '../../src/pdf/file-metadata.js';
import { ParaphError, PlacementError } from '../../src/errors.js';
import {
  DEFAULT_FIELD_SIZES,
  defaultSignerPlacements,
  resolveLocations,
  type LocateMatch,
  type LocateSource,
} from '../../src/pdf/resolve-locations.js';
import { pageGeometryFromBoxes, type PageGeometry, type ReaderRect } from '../../src/pdf/page-geometry.js';

function page(n: number, width = 600, height = 800): PageGeometry {
  return pageGeometryFromBoxes({ x: 0, y: 0, width, height }, 0, n);
}

/** A document whose text is given as a list of (text, page, box) words; find is an exact lookup. */
function source(pages: PageGeometry[], words: { text: string; pageNumber: number; box: ReaderRect }[] = []): LocateSource {
  return {
    pages,
    find(needle, pageNumber) {
      return words
        .filter((w) => w.text === needle && (pageNumber === undefined || w.pageNumber === pageNumber))
        .map((w): LocateMatch => ({ pageNumber: w.pageNumber, box: w.box }));
    },
  };
}

function one(location: Location | Record<string, unknown>, type: FieldType = 'Signature', extra: Partial<FileMetaData> = {}): FileMetaData {
  return validateFileMetaData({ ...extra, FormSets: { f: { x: { Type: type, Location: location } } } });
}

const TAG = { left: 100, top: 200, width: 60, height: 12 };
const doc = source([page(1), page(2, 842, 595)], [
  { text: '{{Signer1}}', pageNumber: 1, box: TAG },
  { text: 'Name:', pageNumber: 1, box: { left: 50, top: 300, width: 30, height: 10 } },
  { text: 'Name:', pageNumber: 2, box: { left: 50, top: 100, width: 30, height: 10 } },
  { text: 'Name:', pageNumber: 2, box: { left: 50, top: 400, width: 30, height: 10 } },
  { text: 'edge', pageNumber: 1, box: { left: 590, top: 790, width: 10, height: 10 } },
]);

function rects(metadata: FileMetaData, src: LocateSource = doc) {
  return resolveLocations(src, metadata).map(({ pageNumber, left, top, width, height }) => ({
    pageNumber,
    left,
    top,
    width,
    height,
  }));
}

function placementError(fn: () => unknown): PlacementError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PlacementError);
    return error as PlacementError;
  }
  throw new Error('expected a PlacementError');
}

describe('resolveLocations: CSS-like offsets', () => {
  it('Search alone: top-left of the text box, default Signature size 140×70', () => {
    expect(rects(one({ Search: '{{Signer1}}' }))).toEqual([{ pageNumber: 1, left: 100, top: 200, width: 140, height: 70 }]);
  });

  it('default sizes per type: Seal 140×70, Check 12×12, SingleLine/Date/Number 150×18', () => {
    const sizes = (['Seal', 'Check', 'SingleLine', 'Date', 'Number'] as const).map((t) => {
      const [r] = rects(one({ PageNumber: 1 }, t));
      return [t, r?.width, r?.height];
    });
    expect(sizes).toEqual([
      ['Seal', 140, 70],
      ['Check', 12, 12],
      ['SingleLine', 150, 18],
      ['Date', 150, 18],
      ['Number', 150, 18],
    ]);
  });

  it('negative Top puts the field above the text', () => {
    expect(rects(one({ Search: '{{Signer1}}', Top: -75 }))[0]).toMatchObject({ left: 100, top: 125 });
  });

  it('Left and Right give the width, measured from both edges of the text box', () => {
    expect(rects(one({ Search: '{{Signer1}}', Left: 5, Right: -100 }))[0]).toMatchObject({ left: 105, width: 155 });
  });

  it('Right with Width aligns the right edge', () => {
    expect(rects(one({ Search: '{{Signer1}}', Right: 10, Width: 30 }))[0]).toMatchObject({ left: 120, width: 30 });
  });

  it('Right alone uses the default width', () => {
    expect(rects(one({ Search: '{{Signer1}}', Right: 0 }))[0]).toMatchObject({ left: 20, width: 140 });
  });

  it('Left with Width', () => {
    expect(rects(one({ Search: '{{Signer1}}', Left: 10, Width: 30 }))[0]).toMatchObject({ left: 110, width: 30 });
  });

  it('Top and Bottom give the height', () => {
    expect(rects(one({ Search: '{{Signer1}}', Top: -20, Bottom: -30 }))[0]).toMatchObject({ top: 180, height: 62 });
  });

  it('Bottom with Height aligns the bottom edge', () => {
    expect(rects(one({ Search: '{{Signer1}}', Bottom: 0, Height: 40 }))[0]).toMatchObject({ top: 172, height: 40 });
  });

  it('without Search the containing block is the page', () => {
    expect(rects(one({ PageNumber: 1, Right: 20, Bottom: 20 }))).toEqual([
      { pageNumber: 1, left: 440, top: 710, width: 140, height: 70 },
    ]);
    expect(rects(one({ PageNumber: 2, Left: 10, Right: 10, Top: 10, Bottom: 10 }))).toEqual([
      { pageNumber: 2, left: 10, top: 10, width: 822, height: 575 },
    ]);
  });

  it('Width and Height override the default size', () => {
    expect(rects(one({ PageNumber: 1, Width: 200, Height: 100 }))[0]).toMatchObject({ left: 0, top: 0, width: 200, height: 100 });
  });
});

describe('resolveLocations: matches, Occurence and PageNumber', () => {
  it('without Occurence every match gets a widget of the same field, in page order', () => {
    const placements = resolveLocations(doc, one({ Search: 'Name:' }, 'SingleLine'));
    expect(placements.map((p) => [p.field, p.pageNumber, p.top])).toEqual([
      ['f.x', 1, 300],
      ['f.x', 2, 100],
      ['f.x', 2, 400],
    ]);
  });

  it('Occurence counts over the document', () => {
    expect(rects(one({ Search: 'Name:', Occurence: 2 }, 'Check'))).toEqual([
      { pageNumber: 2, left: 50, top: 100, width: 12, height: 12 },
    ]);
  });

  it('Occurrence (alias) counts over the given page', () => {
    expect(rects(one({ Search: 'Name:', Occurrence: 2, PageNumber: 2 }, 'Check'))).toEqual([
      { pageNumber: 2, left: 50, top: 400, width: 12, height: 12 },
    ]);
  });

  it('PageNumber restricts the search to that page', () => {
    expect(rects(one({ Search: 'Name:', PageNumber: 1 }, 'Check')).map((r) => r.pageNumber)).toEqual([1]);
  });

  it('carries names, type, value and the signers of the formset', () => {
    const metadata = validateFileMetaData({
      Signers: { A: { FormSets: ['f'] }, B: { FormSets: ['g', 'f'] } },
      FormSets: { f: { agree: { Type: 'Check', Value: 'Yes please', Location: { PageNumber: 1 } } }, g: {} },
    });
    expect(resolveLocations(doc, metadata)).toEqual([
      {
        field: 'f.agree',
        formSet: 'f',
        fieldKey: 'agree',
        type: 'Check',
        value: 'Yes please',
        signerIds: ['A', 'B'],
        pageNumber: 1,
        left: 0,
        top: 0,
        width: 12,
        height: 12,
      },
    ]);
  });

  it('does not search twice for the same text', () => {
    let calls = 0;
    const counting: LocateSource = {
      pages: doc.pages,
      find: (needle, pageNumber) => {
        calls++;
        return doc.find?.(needle, pageNumber) ?? [];
      },
    };
    const metadata = validateFileMetaData({
      FormSets: {
        f: {
          a: { Type: 'Check', Location: { Search: 'Name:', Occurence: 1 } },
          b: { Type: 'Check', Location: { Search: 'Name:', Occurence: 2 } },
        },
      },
    });
    expect(resolveLocations(counting, metadata)).toHaveLength(2);
    expect(calls).toBe(1);
  });
});

describe('resolveLocations: errors name the formset, the field and the text', () => {
  it('text not found', () => {
    const e = placementError(() => resolveLocations(doc, one({ Search: '{{Signer9}}' })));
    expect(e.code).toBe('LOCATION_TEXT_NOT_FOUND');
    expect(e.message).toBe('FormSets.f.x.Location: Search text "{{Signer9}}" was not found in the document');
  });

  it('text not found on the given page', () => {
    const e = placementError(() => resolveLocations(doc, one({ Search: '{{Signer1}}', PageNumber: 2 })));
    expect(e.message).toBe('FormSets.f.x.Location: Search text "{{Signer1}}" was not found on page 2');
  });

  it('Occurence beyond the matches', () => {
    const e = placementError(() => resolveLocations(doc, one({ Search: 'Name:', Occurence: 4 })));
    expect(e.code).toBe('LOCATION_OCCURRENCE_NOT_FOUND');
    expect(e.message).toBe(
      'FormSets.f.x.Location: Occurence 4 of Search text "Name:" does not exist; it occurs 3 times in the document',
    );
  });

  it('PageNumber beyond the document, with and without Search', () => {
    for (const location of [{ PageNumber: 3 }, { Search: 'Name:', PageNumber: 3 }]) {
      const e = placementError(() => resolveLocations(doc, one(location)));
      expect(e.code).toBe('LOCATION_PAGE_OUT_OF_RANGE');
      expect(e.message).toBe('FormSets.f.x.Location: PageNumber 3 is beyond the document, which has 2 pages');
    }
  });

  it('a field outside the page', () => {
    const e = placementError(() => resolveLocations(doc, one({ Search: 'edge' })));
    expect(e.code).toBe('LOCATION_OUTSIDE_PAGE');
    expect(e.message).toBe(
      'FormSets.f.x.Location: the field at left 590, top 790, width 140, height 70 (placed from Search text "edge") ' +
        'does not fit on page 1 (600 × 800 pt); change its offsets or size',
    );
    expect(placementError(() => resolveLocations(doc, one({ PageNumber: 1, Top: -1 }))).code).toBe('LOCATION_OUTSIDE_PAGE');
  });

  it('a field up to 0.5 pt past the page edge is trimmed to the edge; further out it is refused', () => {
    const [above] = resolveLocations(doc, one({ PageNumber: 1, Top: -0.4 }));
    expect(above).toMatchObject({ pageNumber: 1, left: 0, top: 0, width: 140 });
    expect(above?.height).toBeCloseTo(69.6, 9);
    const [right] = resolveLocations(doc, one({ PageNumber: 1, Left: 460.4 }));
    expect(right?.left).toBeCloseTo(460.4, 9);
    expect((right?.left ?? 0) + (right?.width ?? 0)).toBe(600);
    for (const location of [{ PageNumber: 1, Top: -0.6 }, { PageNumber: 1, Left: 460.6 }, { PageNumber: 1, Top: 730.6 }]) {
      expect(placementError(() => resolveLocations(doc, one(location))).code).toBe('LOCATION_OUTSIDE_PAGE');
    }
  });

  it('Left and Right that leave no width', () => {
    const e = placementError(() => resolveLocations(doc, one({ Search: '{{Signer1}}', Left: 40, Right: 20 })));
    expect(e.code).toBe('LOCATION_EMPTY_BOX');
    expect(e.message).toBe(
      'FormSets.f.x.Location: Left 40 and Right 20 leave no width inside the box of "{{Signer1}}" (width 60); make them smaller',
    );
  });
});

describe('resolveLocations: properties', () => {
  const offset = fc.option(fc.double({ min: -300, max: 300, noNaN: true, noDefaultInfinity: true }), { nil: undefined });
  const extent = fc.option(fc.double({ min: 1, max: 300, noNaN: true, noDefaultInfinity: true }), { nil: undefined });
  const block = fc.record({
    left: fc.double({ min: 0, max: 500, noNaN: true }),
    top: fc.double({ min: 0, max: 700, noNaN: true }),
    width: fc.double({ min: 1, max: 100, noNaN: true }),
    height: fc.double({ min: 1, max: 100, noNaN: true }),
  });

  it('the CSS invariants hold on both axes (property)', () => {
    fc.assert(
      fc.property(block, offset, offset, extent, offset, offset, extent, (box, L, R, W, T, B, H) => {
        const location: Location = { Search: 'a' };
        if (L !== undefined) location.Left = L;
        if (R !== undefined) location.Right = R;
        if (W !== undefined && !(L !== undefined && R !== undefined)) location.Width = W;
        if (T !== undefined) location.Top = T;
        if (B !== undefined) location.Bottom = B;
        if (H !== undefined && !(T !== undefined && B !== undefined)) location.Height = H;
        const big = source([page(1, 5000, 5000)], [{ text: 'a', pageNumber: 1, box }]);
        let r;
        try {
          [r] = resolveLocations(big, one(location));
        } catch (error) {
          expect(error).toBeInstanceOf(PlacementError);
          return;
        }
        if (!r) throw new Error('no placement');
        if (r.left === 0 || r.top === 0 || r.left + r.width === 5000 || r.top + r.height === 5000) {
          // at the page edge the field may have been trimmed (its own test covers that)
          expect(r.left + r.width).toBeLessThanOrEqual(5000);
          expect(r.top + r.height).toBeLessThanOrEqual(5000);
          return;
        }
        const near = 1e-6 * 5000;
        const w = location.Width ?? DEFAULT_FIELD_SIZES.Signature.width;
        const h = location.Height ?? DEFAULT_FIELD_SIZES.Signature.height;
        if (L !== undefined && R !== undefined) expect(r.width).toBeCloseTo(box.width - L - R, 6);
        else expect(r.width).toBe(w);
        if (L !== undefined) expect(r.left - box.left).toBeCloseTo(L, 6);
        else if (R !== undefined) expect(box.left + box.width - (r.left + r.width)).toBeCloseTo(R, 6);
        else expect(Math.abs(r.left - box.left)).toBeLessThan(near);
        if (T !== undefined && B !== undefined) expect(r.height).toBeCloseTo(box.height - T - B, 6);
        else expect(r.height).toBe(h);
        if (T !== undefined) expect(r.top - box.top).toBeCloseTo(T, 6);
        else if (B !== undefined) expect(box.top + box.height - (r.top + r.height)).toBeCloseTo(B, 6);
        else expect(Math.abs(r.top - box.top)).toBeLessThan(near);
      }),
      { numRuns: 400 },
    );
  });

  it('accepted metadata always resolves inside the page or fails with a named ParaphError (property)', () => {
    const num = fc.oneof(fc.integer({ min: -900, max: 900 }), fc.double({ min: -900, max: 900, noNaN: true }));
    const rawLocation = fc.record(
      {
        Search: fc.constantFrom('{{Signer1}}', 'Name:', 'edge', 'missing'),
        Occurence: fc.integer({ min: 0, max: 5 }),
        Top: num,
        Right: num,
        Bottom: num,
        Left: num,
        Width: num,
        Height: num,
        PageNumber: fc.integer({ min: 0, max: 4 }),
      },
      { requiredKeys: [] },
    );
    const type = fc.constantFrom(...(['Signature', 'Seal', 'Check', 'SingleLine', 'Date', 'Number'] as const));
    fc.assert(
      fc.property(fc.array(fc.tuple(type, rawLocation), { minLength: 1, maxLength: 4 }), (fields) => {
        let metadata: FileMetaData;
        try {
          metadata = validateFileMetaData({
            FormSets: { f: Object.fromEntries(fields.map(([t, l], i) => [`x${i}`, { Type: t, Location: l }])) },
          });
        } catch {
          return;
        }
        try {
          for (const p of resolveLocations(doc, metadata)) {
            const geo = doc.pages[p.pageNumber - 1];
            if (!geo) throw new Error(`placement on missing page ${p.pageNumber}`);
            expect(p.width).toBeGreaterThan(0);
            expect(p.height).toBeGreaterThan(0);
            expect(p.left).toBeGreaterThanOrEqual(0);
            expect(p.top).toBeGreaterThanOrEqual(0);
            expect(p.left + p.width).toBeLessThanOrEqual(geo.width);
            expect(p.top + p.height).toBeLessThanOrEqual(geo.height);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(ParaphError);
          expect((error as ParaphError).code).toMatch(/^LOCATION_[A-Z_]+$/);
          expect((error as ParaphError).message).toMatch(/^FormSets\.f\.x\d\.Location: /);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('defaultSignerPlacements', () => {
  it('uses the first {{SignerN}} tag of each signer', () => {
    const src = source([page(1), page(2)], [
      { text: '{{Signer2}}', pageNumber: 2, box: { left: 300, top: 500, width: 50, height: 10 } },
      { text: '{{Signer2}}', pageNumber: 2, box: { left: 300, top: 600, width: 50, height: 10 } },
    ]);
    const placements = defaultSignerPlacements(src, ['alice', 'bob']);
    expect(placements[1]).toEqual({
      field: 'bob.Signature',
      formSet: 'bob',
      fieldKey: 'Signature',
      type: 'Signature',
      signerIds: ['bob'],
      pageNumber: 2,
      left: 300,
      top: 500,
      width: 140,
      height: 70,
    });
    expect(placements[0]).toMatchObject({ pageNumber: 1, left: 600 - 36 - 140, top: 36 });
  });

  it('stacks signers without tags downwards at the top right of page 1, then in a new column', () => {
    const placements = defaultSignerPlacements(source([page(1, 600, 300)]), ['a', 'b', 'c', 'd']);
    expect(placements.map((p) => [p.pageNumber, p.left, p.top])).toEqual([
      [1, 424, 36],
      [1, 424, 116],
      [1, 274, 36],
      [1, 274, 116],
    ]);
  });

  it('skipped signers keep their tag number but take no place', () => {
    const src = source([page(1)], [{ text: '{{Signer2}}', pageNumber: 1, box: { left: 100, top: 400, width: 50, height: 10 } }]);
    const placements = defaultSignerPlacements(src, ['a', 'b', 'c'], { skip: (id) => id === 'a' });
    expect(placements.map((p) => [p.field, p.left, p.top])).toEqual([
      ['b.Signature', 100, 400],
      ['c.Signature', 424, 36],
    ]);
  });

  it('moves a tag-anchored field inwards when it would leave the page', () => {
    const src = source([page(1)], [{ text: '{{Signer1}}', pageNumber: 1, box: { left: 580, top: 780, width: 20, height: 10 } }]);
    expect(defaultSignerPlacements(src, ['a'])[0]).toMatchObject({ left: 460, top: 730, width: 140, height: 70 });
  });
});
