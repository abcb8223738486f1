import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  exportValueOf,
  fieldAlternateName,
  fieldValueText,
  localisedTextFor,
  fillableSignerIds,
  parseFileMetaData,
  radioGroupFieldName,
  textFieldValueProblem,
  validateFileMetaData,
  type FileMetaData,
} from '../../src/pdf/file-metadata.js';
import { ValidationError } from '../../src/errors.js';
import { DOTNET_V5_COMPLEX_METADATA, FILLABLE_METADATA, PYTHON_FILLABLE_METADATA, PYTHON_METADATA } from './file-metadata-clients.fixtures.js';

/** The issues a validation throws, or [] when it passes. */
function issuesOf(input: unknown): string[] {
  try {
    validateFileMetaData(input);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('INVALID_FILE_METADATA');
    return [...(error as ValidationError).issues];
  }
}

/** Metadata with one field `f.x` whose Location (and other props) are given. */
function withField(field: Record<string, unknown>): unknown {
  return { FormSets: { f: { x: field } } };
}
function withLocation(location: Record<string, unknown>, type = 'Signature'): unknown {
  return withField({ Type: type, Location: location });
}

describe('validateFileMetaData: accepted input', () => {
  it('accepts the full Signhost example and returns a clean copy', () => {
    const input = {
      DisplayName: 'Contract',
      DisplayOrder: 1,
      Description: 'Please sign',
      SetParaph: true,
      Signers: { Signer1: { FormSets: ['sig1'] }, 'Signer-2': { FormSets: ['sig1', 'other'] } },
      FormSets: {
        sig1: {
          Signature1: { Type: 'Signature', Location: { Search: '{{Signer1}}', Top: -75, Width: 140, Height: 70 } },
          Agree: { Type: 'Check', Value: 'I agree', Location: { PageNumber: 2, Left: 10, Top: 10 } },
        },
        other: {
          Name: { Type: 'SingleLine', Value: 'Zoë', Location: { Search: 'Name:', Occurrence: 2 } },
          When: { Type: 'Date', Value: '2024-02-29', Location: { PageNumber: 1, Right: 0, Bottom: 0 } },
          Amount: { Type: 'Number', Value: '-3,50', Location: { PageNumber: 1, Left: 1, Right: 1 } },
          Seal: { Type: 'Seal', Location: { PageNumber: 1, Top: 0, Bottom: 0 } },
        },
      },
    };
    const out = validateFileMetaData(input);
    expect(out.Signers).toEqual({ Signer1: { FormSets: ['sig1'] }, 'Signer-2': { FormSets: ['sig1', 'other'] } });
    expect(out.FormSets?.other?.Name?.Location).toEqual({ Search: 'Name:', Occurence: 2 });
    expect(out.FormSets?.sig1?.Agree).toEqual({
      Type: 'Check',
      Value: 'I agree',
      Location: { PageNumber: 2, Left: 10, Top: 10 },
    });
    expect(out.DisplayName).toBe('Contract');
    expect(out.SetParaph).toBe(true);
  });

  it('accepts an empty object', () => {
    expect(validateFileMetaData({})).toEqual({});
  });

  it('does not let a "__proto__" key change the prototype of the result', () => {
    const input = JSON.parse('{"FormSets":{"__proto__":{"x":{"Type":"Signature","Location":{"PageNumber":1}}}}}');
    const out = validateFileMetaData(input);
    expect(Object.keys(out.FormSets ?? {})).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(out.FormSets)).toBe(Object.prototype);
  });
});

describe('validateFileMetaData: every rule, exact messages', () => {
  const cases: [string, unknown, string[]][] = [
    ['root not an object', [1], ['FileMetaData: must be a JSON object (got an array)']],
    ['root null', null, ['FileMetaData: must be a JSON object (got null)']],
    ['unknown root property', { Foo: 1 }, ['Foo: unknown property (allowed: DisplayName, DisplayOrder, Description, SetParaph, Signers, FormSets)']],
    ['wrong case gets a hint', { displayName: 'x' }, ['displayName: unknown property (did you mean DisplayName?)']],
    ['DisplayName too long', { DisplayName: 'a'.repeat(256) }, ['DisplayName: must be at most 255 characters (got 256)']],
    ['DisplayName not a string', { DisplayName: 5 }, ['DisplayName: must be a string (got number 5)']],
    ['DisplayName control char', { DisplayName: 'a\u0007' }, ['DisplayName: must not contain control characters']],
    ['DisplayOrder not integer', { DisplayOrder: 1.5 }, ['DisplayOrder: must be an integer (got 1.5)']],
    ['Description too long', { Description: 'd'.repeat(4097) }, ['Description: must be at most 4096 characters (got 4097)']],
    ['SetParaph not boolean', { SetParaph: 'yes' }, ['SetParaph: must be true or false (got the string "yes")']],
    ['Signers not an object', { Signers: [] }, ['Signers: must be a JSON object (got an array)']],
    ['signer id pattern', { Signers: { 'a b': { FormSets: [] } } }, ['Signers: signer id "a b" must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -']],
    ['signer FormSets missing', { Signers: { S1: {} } }, ['Signers.S1.FormSets: is required (an array of formset keys)']],
    ['signer FormSets not array', { Signers: { S1: { FormSets: 'f' } } }, ['Signers.S1.FormSets: must be an array of formset keys (got the string "f")']],
    ['signer unknown property', { Signers: { S1: { FormSets: [], Email: 'x' } } }, ['Signers.S1.Email: unknown property (allowed: FormSets)']],
    ['signer formset not in FormSets', { Signers: { S1: { FormSets: ['nope'] } }, FormSets: {} }, ['Signers.S1.FormSets[0]: "nope" does not name a key of FormSets']],
    ['signer formset without FormSets at all', { Signers: { S1: { FormSets: ['f'] } } }, ['Signers.S1.FormSets[0]: "f" does not name a key of FormSets']],
    ['signer formset item number', { Signers: { S1: { FormSets: [3] } } }, ['Signers.S1.FormSets[0]: must be a formset key string (got number 3)']],
    ['signer formset twice', { Signers: { S1: { FormSets: ['f', 'f'] } }, FormSets: { f: {} } }, ['Signers.S1.FormSets[1]: "f" is listed twice']],
    ['formset key pattern', { FormSets: { 'a.b': {} } }, ['FormSets: formset key "a.b" must be 1 to 255 characters of A-Z, a-z, 0-9 and _']],
    ['field key pattern', { FormSets: { f: { 'x-y': {} } } }, ['FormSets.f: field key "x-y" must be 1 to 255 characters of A-Z, a-z, 0-9 and _']],
    ['formset not an object', { FormSets: { f: 1 } }, ['FormSets.f: must be a JSON object (got number 1)']],
    ['field Type missing', withField({ Location: { PageNumber: 1 } }), ['FormSets.f.x.Type: is required (one of Signature, Seal, Check, Radio, SingleLine, Date, Number)']],
    ['field Type unknown', withField({ Type: 'ListBox', Location: { PageNumber: 1 } }), ['FormSets.f.x.Type: must be one of Signature, Seal, Check, Radio, SingleLine, Date, Number (got the string "ListBox")']],
    ['field Location missing', withField({ Type: 'Signature' }), ['FormSets.f.x.Location: is required']],
    ['field unknown property', withField({ Type: 'Signature', Location: { PageNumber: 1 }, Caption: 'x' }), ['FormSets.f.x.Caption: unknown property (allowed: Type, Value, Location, Label, Tooltip, Link)']],
    ['Value on Signature', withField({ Type: 'Signature', Value: 'x', Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: is not allowed on a Signature field']],
    ['Value on Seal', withField({ Type: 'Seal', Value: 'x', Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: is not allowed on a Seal field']],
    ['Value an object', withField({ Type: 'Check', Value: {}, Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: must be a string, a number or true/false (got an object)']],
    ['boolean Value on SingleLine', withField({ Type: 'SingleLine', Value: true, Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: a SingleLine field takes a string or a number (got boolean true)']],
    ['number Value on Date', withField({ Type: 'Date', Value: 20250101, Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: a Date field takes a string YYYY-MM-DD (got number 20250101)']],
    ['Radio Value Off', withField({ Type: 'Radio', Value: 'Off', Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: "Off" is reserved for the unchecked state; choose another export value']],
    ['two radio buttons with one export value', { FormSets: { f: { a: { Type: 'Radio', Value: 'A', Location: { PageNumber: 1 } }, b: { Type: 'Radio', Value: 'A', Location: { PageNumber: 1 } } } } }, ['FormSets.f.b.Value: the radio buttons a and b of formset f have the same export value "A"; give each its own']],
    ['two radio buttons pre-selected', { FormSets: { f: { a: { Type: 'Radio', Value: true, Location: { PageNumber: 1 } }, b: { Type: 'Radio', Value: true, Location: { PageNumber: 1 } } } } }, ['FormSets.f.b.Value: only one radio button of a group can be pre-selected (a is already true)']],
    ['Check Value empty', withField({ Type: 'Check', Value: '', Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: the export value of a Check field must not be empty']],
    ['Check Value Off', withField({ Type: 'Check', Value: 'Off', Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: "Off" is reserved for the unchecked state; choose another export value']],
    ['Check Value too long', withField({ Type: 'Check', Value: 'é'.repeat(64), Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: the export value of a Check field must be at most 127 bytes in UTF-8']],
    ['SingleLine line break', withField({ Type: 'SingleLine', Value: 'a\nb', Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: a SingleLine value must not contain line breaks']],
    ['Date format', withField({ Type: 'Date', Value: '2023-02-29', Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: must be a date written YYYY-MM-DD (got "2023-02-29")']],
    ['Number format', withField({ Type: 'Number', Value: '1e5', Location: { PageNumber: 1 } }), ['FormSets.f.x.Value: must be a number such as 42, -3.5 or 0,75 (got "1e5")']],
    ['Location not an object', withField({ Type: 'Signature', Location: 'top' }), ['FormSets.f.x.Location: must be a JSON object (got the string "top")']],
    ['Location unknown property', withLocation({ PageNumber: 1, X: 3 }), ['FormSets.f.x.Location.X: unknown property (allowed: Search, Occurence, Occurrence, Top, Right, Bottom, Left, Width, Height, PageNumber)']],
    ['PageNumber required without Search', withLocation({ Left: 1 }), ['FormSets.f.x.Location: PageNumber is required when there is no Search']],
    ['PageNumber zero', withLocation({ PageNumber: 0 }), ['FormSets.f.x.Location.PageNumber: must be an integer of at least 1 (got 0)']],
    ['PageNumber fraction', withLocation({ PageNumber: 1.5 }), ['FormSets.f.x.Location.PageNumber: must be an integer of at least 1 (got 1.5)']],
    ['PageNumber string', withLocation({ PageNumber: '1' }), ['FormSets.f.x.Location.PageNumber: must be a number (got the string "1")']],
    ['Occurence zero', withLocation({ Search: 'a', Occurence: 0 }), ['FormSets.f.x.Location.Occurence: must be an integer of at least 1 (got 0)']],
    ['Occurrence fraction', withLocation({ Search: 'a', Occurrence: 2.5 }), ['FormSets.f.x.Location.Occurrence: must be an integer of at least 1 (got 2.5)']],
    ['Occurence and Occurrence', withLocation({ Search: 'a', Occurence: 1, Occurrence: 1 }), ['FormSets.f.x.Location: give either Occurence or its alias Occurrence, not both']],
    ['Occurence without Search', withLocation({ PageNumber: 1, Occurence: 1 }), ['FormSets.f.x.Location: Occurence can only be used with Search']],
    ['Search blank', withLocation({ Search: '  ' }), ['FormSets.f.x.Location.Search: must contain text other than white space']],
    ['Search not a string', withLocation({ Search: 5 }), ['FormSets.f.x.Location.Search: must be a string (got number 5)']],
    ['offset not finite', withLocation({ PageNumber: 1, Left: Number.NaN }), ['FormSets.f.x.Location.Left: must be a finite number (got NaN)']],
    ['Width zero', withLocation({ PageNumber: 1, Width: 0 }), ['FormSets.f.x.Location.Width: must be greater than 0 (got 0)']],
    ['Height negative', withLocation({ PageNumber: 1, Height: -5 }), ['FormSets.f.x.Location.Height: must be greater than 0 (got -5)']],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(issuesOf(input)).toEqual(expected);
  });

  it('collects every error instead of stopping at the first', () => {
    const issues = issuesOf({
      DisplayName: 3,
      Signers: { S1: { FormSets: ['missing'] } },
      FormSets: {
        f: {
          a: { Type: 'Signature', Location: { Left: 1, Right: 2, Width: 3 } },
          b: { Type: 'Check', Value: 'Off', Location: { Search: 'x', Top: 1, Bottom: 1, Height: 1 } },
        },
      },
    });
    expect(issues).toEqual([
      'DisplayName: must be a string (got number 3)',
      'FormSets.f.a.Location: PageNumber is required when there is no Search',
      'FormSets.f.b.Value: "Off" is reserved for the unchecked state; choose another export value',
      'Signers.S1.FormSets[0]: "missing" does not name a key of FormSets',
    ]);
  });

  it('joins the issues into the error message', () => {
    expect(() => validateFileMetaData(withLocation({ Left: 1 }))).toThrow(
      'FormSets.f.x.Location: PageNumber is required when there is no Search',
    );
  });
});

describe('parseFileMetaData: raw input', () => {
  it('parses UTF-8 bytes with a byte-order mark', () => {
    const text = '\uFEFF{"DisplayName":"Zoë Łukasiewicz-Ōta"}';
    expect(parseFileMetaData(new TextEncoder().encode(text))).toEqual({ DisplayName: 'Zoë Łukasiewicz-Ōta' });
  });

  it('refuses 10 MB of metadata before parsing it', () => {
    const big = `{"DisplayName":"${'a'.repeat(10 * 1024 * 1024)}"}`;
    let error: unknown;
    try {
      parseFileMetaData(big);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('FILE_METADATA_TOO_LARGE');
    expect((error as ValidationError).message).toBe(
      'FileMetaData: 10485778 bytes is too large; at most 1048576 bytes are accepted',
    );
  });

  it('honours a custom size limit', () => {
    expect(() => parseFileMetaData('{"DisplayName":"abc"}', { maxBytes: 10 })).toThrow('at most 10 bytes');
  });

  it('refuses deeply nested JSON with a clear error, without recursion', () => {
    const deep = '['.repeat(500_000) + ']'.repeat(500_000);
    expect(() => parseFileMetaData(deep)).toThrow(
      'FileMetaData: JSON nested 500000 levels deep; at most 32 levels are accepted',
    );
    const deepInProperty = `{"Foo":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`;
    expect(() => parseFileMetaData(deepInProperty)).toThrow('JSON nested 41 levels deep');
  });

  it('does not count brackets inside strings as nesting', () => {
    expect(parseFileMetaData(`{"DisplayName":"${'[{'.repeat(100)}\\"]"}`).DisplayName).toBe(`${'[{'.repeat(100)}"]`);
  });

  it('reports invalid JSON and invalid UTF-8', () => {
    expect(() => parseFileMetaData('{"DisplayName":')).toThrow(/^FileMetaData: not valid JSON \(/);
    expect(() => parseFileMetaData(new Uint8Array([0x7b, 0xff, 0x7d]))).toThrow(
      'FileMetaData: not valid UTF-8 text; send JSON encoded as UTF-8',
    );
  });

  it('never throws anything but a ValidationError, whatever the text (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
        try {
          const out: FileMetaData = parseFileMetaData(text);
          expect(typeof out).toBe('object');
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).issues.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('accepted metadata is a fixed point of validation (property)', () => {
    const num = fc.double({ min: -1000, max: 1000, noNaN: true });
    const location = fc.record(
      {
        Search: fc.constantFrom('{{Signer1}}', 'Name:', 'x'),
        Top: num,
        Left: num,
        Width: fc.double({ min: 1, max: 500, noNaN: true }),
        PageNumber: fc.integer({ min: 1, max: 5 }),
        Occurrence: fc.integer({ min: 1, max: 3 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(location, (loc) => {
        let out: FileMetaData;
        try {
          out = validateFileMetaData(withLocation(loc));
        } catch {
          return; // rejected combinations are covered by the table above
        }
        expect(validateFileMetaData(out)).toEqual(out);
      }),
      { numRuns: 300 },
    );
  });
});

describe('textFieldValueProblem', () => {
  it('accepts real calendar dates only', () => {
    const ok = ['2024-02-29', '2000-02-29', '2026-12-31', '0001-01-01'];
    const bad = ['1900-02-29', '2023-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-1-5', '21-11-2026', ' 2026-01-01'];
    expect(ok.map((v) => textFieldValueProblem('Date', v))).toEqual(ok.map(() => undefined));
    for (const v of bad) expect(textFieldValueProblem('Date', v)).toBe(`must be a date written YYYY-MM-DD (got ${JSON.stringify(v)})`);
  });

  it('accepts plain decimal numbers with a point or a comma', () => {
    const ok = ['42', '-3.5', '0,75', '+1', '.5', '1.', '007'];
    const bad = ['', '1e5', '1.2.3', '1 000', 'NaN', '--1', '1,000.50'];
    expect(ok.map((v) => textFieldValueProblem('Number', v))).toEqual(ok.map(() => undefined));
    for (const v of bad) expect(textFieldValueProblem('Number', v)).toMatch(/^must be a number such as 42, -3\.5 or 0,75/);
  });

  it('keeps SingleLine values on one line and at most 4096 characters', () => {
    expect(textFieldValueProblem('SingleLine', 'Zoë Łukasiewicz-Ōta')).toBeUndefined();
    expect(textFieldValueProblem('SingleLine', 'a\rb')).toBe('a SingleLine value must not contain line breaks');
    expect(textFieldValueProblem('SingleLine', '😀'.repeat(4096))).toBeUndefined();
    expect(textFieldValueProblem('SingleLine', 'x'.repeat(4097))).toBe('must be at most 4096 characters');
  });
});

describe('validateFileMetaData: what the real clients send', () => {
  it("accepts the .NET v5 client's complex metadata byte for byte: Radio, numbers, booleans, over-constrained Locations", () => {
    const out = parseFileMetaData(DOTNET_V5_COMPLEX_METADATA);
    expect(out.DisplayOrder).toBe(1);
    expect(out.Description).toBe('This is a test document with complex metadata');
    expect(out.FormSets?.FormSet2?.RadioFieldString).toMatchObject({ Type: 'Radio', Value: 'Option A' });
    expect(out.FormSets?.FormSet2?.NumberFieldInteger?.Value).toBe(42);
    expect(out.FormSets?.FormSet2?.NumberFieldDecimal?.Value).toBe(123.45);
    expect(out.FormSets?.FormSet3?.CheckFieldTrue?.Value).toBe(true);
    expect(out.FormSets?.FormSet3?.CheckFieldFalse?.Value).toBe(false);
    expect(out.FormSets?.FormSet3?.RadioFieldNumber?.Value).toBe(1);
    expect(out.FormSets?.FormSet3?.CheckFieldFalse?.Location).toEqual({ Top: 450, Right: 200, Bottom: 470, Left: 50, Width: 150, Height: 20, PageNumber: 3 });
    expect(validateFileMetaData(out)).toEqual(out);
  });

  it("treats the Python client's nulls as absent, everywhere, and ignores a field's Link", () => {
    const out = parseFileMetaData(PYTHON_METADATA);
    expect(out).toEqual({
      DisplayName: 'Contract',
      Signers: { Signer1: { FormSets: ['sig'] } },
      FormSets: { sig: { Signature1: { Type: 'Signature', Location: { Search: '{{Signer1}}', Width: 140, Height: 70 } } } },
    });
    expect(validateFileMetaData({ FormSets: { f: null, g: { x: null } }, Signers: { S1: null } })).toEqual({ FormSets: { g: {} }, Signers: {} });
    expect(validateFileMetaData({ Signers: { S1: { FormSets: [null, 'f'] } }, FormSets: { f: {} } }).Signers).toEqual({ S1: { FormSets: ['f'] } });
  });

  it('accepts a signer FormSets entry naming the file itself only when told the fileId (fillable PDFs)', () => {
    expect(issuesOf(JSON.parse(FILLABLE_METADATA))).toEqual(['Signers.Signer1.FormSets[0]: "Contract.pdf" does not name a key of FormSets']);
    const out = parseFileMetaData(PYTHON_FILLABLE_METADATA, { fileId: 'Contract.pdf' });
    expect(out.Signers).toEqual({ Signer1: { FormSets: ['Contract.pdf'] } });
    expect(fillableSignerIds(out, 'Contract.pdf')).toEqual(['Signer1']);
    expect(fillableSignerIds(out, 'Other.pdf')).toEqual([]);
    expect(() => parseFileMetaData(FILLABLE_METADATA, { fileId: 'Other.pdf' })).toThrow(
      'Signers.Signer1.FormSets[0]: "Contract.pdf" does not name a key of FormSets',
    );
  });

  it('gives Check and Radio fields their export values and text fields their pre-filled text', () => {
    expect(exportValueOf('Check', 'agree', true)).toBe('Yes');
    expect(exportValueOf('Check', 'agree', 'I agree')).toBe('I agree');
    expect(exportValueOf('Radio', 'optionB', undefined)).toBe('optionB');
    expect(exportValueOf('Radio', 'optionB', true)).toBe('optionB');
    expect(exportValueOf('Radio', 'one', 1)).toBe('1');
    expect(fieldValueText(123.45)).toBe('123.45');
    expect(fieldValueText(1e-7)).toBe('0.0000001');
    expect(fieldValueText(1e21)).toBe('1000000000000000000000');
  });

  it('names a radio group after its formset, or its kid "Radio group" when the formset holds other fields too', () => {
    const radio = { Type: 'Radio' as const, Location: { PageNumber: 1 } };
    expect(radioGroupFieldName('choice', { a: radio, b: radio })).toBe('choice');
    expect(radioGroupFieldName('FormSet2', { a: radio, n: { Type: 'Number', Location: { PageNumber: 1 } } })).toBe('FormSet2.Radio group');
    expect(radioGroupFieldName('f', { n: { Type: 'Number', Location: { PageNumber: 1 } } })).toBeUndefined();
  });

  it('accepts DisplayOrder, Description and numeric or boolean values wherever a field takes them (property)', () => {
    const value = fc.oneof(fc.boolean(), fc.integer({ min: -1e6, max: 1e6 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }));
    fc.assert(
      fc.property(value, fc.integer({ min: -5, max: 5 }), (v, order) => {
        const out = validateFileMetaData({
          DisplayOrder: order,
          Description: 'd',
          FormSets: { f: { c: { Type: 'Check', Value: typeof v === 'number' && String(v) === 'Off' ? 1 : v, Location: { PageNumber: 1 } } } },
        });
        expect(out.FormSets?.f?.c?.Value).toEqual(v);
        if (typeof v === 'number') expect(validateFileMetaData({ FormSets: { f: { n: { Type: 'Number', Value: v, Location: { PageNumber: 1 } } } } }).FormSets?.f?.n?.Value).toBe(v);
      }),
      { numRuns: 200 },
    );
  });
});

describe('Label and Tooltip', () => {
  const field = (props: Record<string, unknown>): unknown => withField({ Type: 'SingleLine', Location: { PageNumber: 1 }, ...props });

  it('keeps one text, or one per language tag in the order sent; null entries count as absent', () => {
    const out = validateFileMetaData(field({ Label: { nl: 'Plaats', 'de-AT': 'Ort', en: null }, Tooltip: 'Where you sign' }));
    expect(out.FormSets?.f?.x?.Label).toEqual({ nl: 'Plaats', 'de-AT': 'Ort' });
    expect(Object.keys(out.FormSets?.f?.x?.Label as object)).toEqual(['nl', 'de-AT']);
    expect(out.FormSets?.f?.x?.Tooltip).toBe('Where you sign');
    expect(validateFileMetaData(field({ Label: null })).FormSets?.f?.x).not.toHaveProperty('Label');
  });

  const p = 'FormSets.f.x';
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['blank', { Label: '  ' }, [`${p}.Label: must contain text other than white space`]],
    ['too long label', { Label: 'x'.repeat(256) }, [`${p}.Label: must be at most 255 characters (got 256)`]],
    ['long label in characters, not UTF-16 units', { Label: '😀'.repeat(255) }, []],
    ['too long tooltip', { Tooltip: { nl: 'x'.repeat(1001) } }, [`${p}.Tooltip.nl: must be at most 1000 characters (got 1001)`]],
    ['line break', { Tooltip: 'a\nb' }, [`${p}.Tooltip: must be one line without control or bidirectional formatting characters`]],
    ['right-to-left override', { Label: 'contract\u202Efdp.exe' }, [`${p}.Label: must be one line without control or bidirectional formatting characters`]],
    ['C1 control', { Label: { en: 'a\u0085' } }, [`${p}.Label.en: must be one line without control or bidirectional formatting characters`]],
    ['number', { Label: 42 }, [`${p}.Label: must be a string or an object of language tag to text, e.g. {"nl": "…", "en": "…"} (got number 42)`]],
    ['array', { Tooltip: ['a'] }, [`${p}.Tooltip: must be a string or an object of language tag to text, e.g. {"nl": "…", "en": "…"} (got an array)`]],
    ['not a tag', { Label: { Dutch: 'Plaats' } }, [`${p}.Label: "Dutch" is not a language tag such as "nl", "de-AT" or "en-US"`]],
    ['a tag twice', { Label: { 'nl-NL': 'a', 'NL-nl': 'b' } }, [`${p}.Label.NL-nl: the language is given twice (tags are compared without regard to case)`]],
    ['a text not a string', { Label: { nl: 1 } }, [`${p}.Label.nl: must be a string (got number 1)`]],
    ['no language', { Label: {} }, [`${p}.Label: give the text for at least one language`]],
    ['only nulls', { Tooltip: { nl: null } }, [`${p}.Tooltip: give the text for at least one language`]],
    [
      'too many languages',
      { Label: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`x${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`, 't'])) },
      [`${p}.Label: at most 32 languages (got 33)`],
    ],
  ];
  it.each(cases)('%s', (_name, props, expected) => {
    expect(issuesOf(field(props))).toEqual(expected);
  });

  it('accepts every one-line printable text and refuses it with any refused character inserted (property)', () => {
    const refused = fc.constantFrom('\u0000', '\t', '\n', '\r', '\u001f', '\u007f', '\u0080', '\u009f', '\u061c', '\u200e', '\u200f', '\u2028', '\u2029', '\u202a', '\u202e', '\u2066', '\u2069');
    const text = fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }).filter((t) => t.trim() !== '' && !/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(t));
    fc.assert(
      fc.property(text, refused, fc.nat(), (t, bad, at) => {
        expect(issuesOf(field({ Label: t, Tooltip: { de: t } }))).toEqual([]);
        const chars = [...t];
        chars.splice(at % (chars.length + 1), 0, bad);
        expect(issuesOf(field({ Label: chars.join('') }))).toEqual([`${p}.Label: must be one line without control or bidirectional formatting characters`]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('localisedTextFor', () => {
  const texts = { 'nl-NL': 'Plaats', de: 'Ort', 'en-GB': 'Place', fr: 'Lieu' };

  it('takes the same tag, else the same primary subtag, whatever the case', () => {
    expect(localisedTextFor(texts, ['nl-NL'])).toBe('Plaats');
    expect(localisedTextFor(texts, ['NL-be'])).toBe('Plaats');
    expect(localisedTextFor(texts, ['de-DE'])).toBe('Ort');
    expect(localisedTextFor(texts, ['fr-FR'])).toBe('Lieu');
  });

  it("falls back to the next language (the transaction's), then English, then the first text", () => {
    expect(localisedTextFor(texts, ['pl-PL', 'de-DE'])).toBe('Ort');
    expect(localisedTextFor(texts, ['pl-PL', 'it-IT'])).toBe('Place');
    expect(localisedTextFor({ es: 'Lugar', it: 'Luogo' }, ['pl-PL'])).toBe('Lugar');
  });

  it('gives one text for every language, and nothing for nothing', () => {
    expect(localisedTextFor('Place', ['nl-NL'])).toBe('Place');
    expect(localisedTextFor(undefined, ['nl-NL'])).toBeUndefined();
  });

  it('always returns one of the texts given (property)', () => {
    const tag = fc.constantFrom('nl', 'nl-NL', 'en', 'en-US', 'de', 'de-AT', 'fr-FR', 'pl', 'es-ES', 'it');
    fc.assert(
      fc.property(fc.dictionary(tag, fc.string({ minLength: 1 }), { minKeys: 1 }), fc.array(tag, { maxLength: 3 }), (given, wanted) => {
        expect(Object.values(given)).toContain(localisedTextFor(given, wanted));
        for (const w of wanted.slice(0, 1)) if (Object.hasOwn(given, w)) expect(localisedTextFor(given, wanted)).toBe(given[w]);
      }),
    );
  });

  it("joins Label and Tooltip for the PDF field's alternate name", () => {
    expect(fieldAlternateName({ Label: { nl: 'Plaats', en: 'Place' }, Tooltip: { nl: 'Waar u tekent' } }, ['nl-NL'])).toBe('Plaats — Waar u tekent');
    expect(fieldAlternateName({ Tooltip: 'Where you sign' }, ['nl-NL'])).toBe('Where you sign');
    expect(fieldAlternateName({ Label: 'Place' }, [])).toBe('Place');
    expect(fieldAlternateName({}, ['nl-NL'])).toBeUndefined();
  });
});
