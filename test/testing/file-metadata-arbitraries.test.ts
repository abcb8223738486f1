import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFileMetaData, validateFileMetaData } from '../../src/pdf/file-metadata.js';
import { ValidationError } from '../../src/errors.js';
import { fileMetaData, invalidFileMetaData, location } from '../../src/testing/file-metadata-arbitraries.js';

const RUNS = { numRuns: 1000, seed: 20261122 } as const;

describe('fileMetaData()', () => {
  it('gives 1,000 values the validator accepts unchanged, also after a JSON round trip', () => {
    fc.assert(
      fc.property(fileMetaData(), (metadata) => {
        expect(validateFileMetaData(metadata)).toEqual(metadata);
        expect(parseFileMetaData(JSON.stringify(metadata))).toEqual(metadata);
      }),
      RUNS,
    );
  });

  it('uses every field type, both kinds of Location, Signers and the optional document properties', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(fileMetaData(), (m) => {
        for (const fields of Object.values(m.FormSets ?? {})) {
          for (const f of Object.values(fields)) {
            seen.add(f.Type);
            seen.add(f.Location.Search === undefined ? 'page' : 'search');
            if (f.Value !== undefined) seen.add(`value:${f.Type}`);
          }
        }
        for (const key of ['Signers', 'DisplayName', 'DisplayOrder', 'Description', 'SetParaph'] as const) if (m[key] !== undefined) seen.add(key);
      }),
      { numRuns: 300, seed: 1 },
    );
    expect([...seen].sort()).toEqual(
      ['Check', 'Date', 'Description', 'DisplayName', 'DisplayOrder', 'Number', 'Radio', 'Seal', 'SetParaph', 'Signature', 'Signers', 'SingleLine', 'page', 'search',
        'value:Check', 'value:Date', 'value:Number', 'value:SingleLine'].sort(),
    );
  });

  it('shrinks a failing property to a small document', () => {
    const result = fc.check(fc.property(fileMetaData(), (m) => Object.keys(m.FormSets ?? {}).length < 2), { seed: 5 });
    expect(result.failed).toBe(true);
    const [minimal] = result.counterexample ?? [];
    expect(Object.keys(minimal?.FormSets ?? {})).toHaveLength(2);
    expect(Object.values(minimal?.FormSets ?? {}).every((fields) => Object.keys(fields).length === 1)).toBe(true);
  });
});

describe('location()', () => {
  const page = { width: 300, height: 400 };

  it('withSearch true: 1,000 Locations that search one of the given texts and validate', () => {
    fc.assert(
      fc.property(location({ withSearch: true, searchTexts: ['{{a}}', 'Sign here'], maxOccurence: 3 }), (loc) => {
        expect(['{{a}}', 'Sign here']).toContain(loc.Search);
        expect(loc.Occurence ?? 1).toBeLessThanOrEqual(3);
        validateFileMetaData({ FormSets: { f: { s: { Type: 'Signature', Location: loc } } } });
      }),
      RUNS,
    );
  });

  it('withSearch false: 1,000 Locations with a PageNumber in range whose box fits the page for every default size', () => {
    fc.assert(
      fc.property(location({ withSearch: false, pages: 3, pageSize: page }), (loc) => {
        expect(loc.Search).toBeUndefined();
        expect(loc.PageNumber).toBeGreaterThanOrEqual(1);
        expect(loc.PageNumber).toBeLessThanOrEqual(3);
        // The widest default size is 150 × 70 (docs/design/locations.md#default-sizes).
        const left = loc.Left ?? (loc.Right !== undefined ? page.width - loc.Right - (loc.Width ?? 150) : 0);
        const width = loc.Left !== undefined && loc.Right !== undefined ? page.width - loc.Left - loc.Right : (loc.Width ?? 150);
        const top = loc.Top ?? (loc.Bottom !== undefined ? page.height - loc.Bottom - (loc.Height ?? 70) : 0);
        const height = loc.Top !== undefined && loc.Bottom !== undefined ? page.height - loc.Top - loc.Bottom : (loc.Height ?? 70);
        expect(left).toBeGreaterThanOrEqual(0);
        expect(top).toBeGreaterThanOrEqual(0);
        expect(width).toBeGreaterThan(0);
        expect(height).toBeGreaterThan(0);
        expect(left + width).toBeLessThanOrEqual(page.width);
        expect(top + height).toBeLessThanOrEqual(page.height);
        validateFileMetaData({ FormSets: { f: { s: { Type: 'SingleLine', Location: loc } } } });
      }),
      RUNS,
    );
  });
});

describe('invalidFileMetaData()', () => {
  it('gives 1,000 values that fail with exactly the predicted message, and nothing else', () => {
    fc.assert(
      fc.property(invalidFileMetaData(), ({ value, message }) => {
        let thrown: unknown;
        try {
          validateFileMetaData(value);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(ValidationError);
        expect((thrown as ValidationError).code).toBe('INVALID_FILE_METADATA');
        expect((thrown as ValidationError).issues).toEqual([message]);
        // The same through the JSON parser a service upload goes through, where null means absent
        // (docs/design/api.md#tolerant-reader).
        if (message.endsWith('Null values must not be sent')) expect(() => parseFileMetaData(JSON.stringify(value))).not.toThrow();
        else expect(() => parseFileMetaData(JSON.stringify(value))).toThrow(message);
      }),
      RUNS,
    );
  });

  it('covers many different rules', () => {
    const rules = new Set<string>();
    fc.assert(
      fc.property(invalidFileMetaData(), ({ message }) => {
        rules.add(message.replace(/^[^:]*: /, '').replace(/\(got .*\)$/, '').replace(/"[^"]*"/g, '""').slice(0, 30));
      }),
      { numRuns: 500, seed: 3 },
    );
    expect(rules.size).toBeGreaterThanOrEqual(15);
  });
});
