/**
 * Field values a signer submits (docs/design/fields.md#values, docs/design/fields.md#filling): required text fields,
 * Date `YYYY-MM-DD` (real calendar dates), Number `42` / `-3.5` / `0,75`, Check true/false, unknown files and fields
 * named in the message; the signer's Context is `{ fileId: { field: value } }`. Also the default signature field and
 * initials.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Signer, StoredFile, Transaction } from '../../../src/domain/transaction.js';
import type { FieldPlacement } from '../../../src/pdf/resolve-locations.js';
import { signatureFieldNames, signerFields, validateFieldValues } from '../../../src/service/signer/signer-fields.js';
import { initials } from '../../../src/service/signer/sign-as-signer.js';
import { ValidationError } from '../../../src/errors.js';

const place = (field: string, type: FieldPlacement['type'], signerIds: string[], extra: Partial<FieldPlacement> = {}): FieldPlacement => ({
  field,
  formSet: field.split('.')[0] as string,
  fieldKey: field.split('.')[1] as string,
  type,
  signerIds,
  pageNumber: 1,
  left: 10,
  top: 10,
  width: 100,
  height: 20,
  ...extra,
});

const file: StoredFile = {
  FileId: 'doc',
  Original: { sha256: 'a'.repeat(64), size: 1, pages: 1 },
  Placements: [
    place('s1.sig', 'Signature', ['Signer1']),
    place('s1.when', 'Date', ['Signer1']),
    place('s1.amount', 'Number', ['Signer1']),
    place('s1.ok', 'Check', ['Signer1'], { value: 'Agreed' }),
    place('s1.city', 'SingleLine', ['Signer1'], { value: 'Delft' }),
    place('s2.city', 'SingleLine', ['Signer2']),
  ],
};
const signer = { Id: 'Signer1' } as Signer;
const tx = { Id: 't', Files: [file, { FileId: 'plain', Original: { sha256: 'b'.repeat(64), size: 1, pages: 1 } }] } as unknown as Transaction;

function issues(values: Record<string, Record<string, string | boolean | number | null>>): string[] {
  try {
    validateFieldValues(tx, signer, values);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return [...(error as ValidationError).issues];
  }
}

describe('signer fields', () => {
  it('lists only the signer’s fields; signature fields as start placed them (the default one included)', () => {
    expect(signerFields(file, signer).map((f) => f.Name)).toEqual(['s1.sig', 's1.when', 's1.amount', 's1.ok', 's1.city']);
    expect(signatureFieldNames(file, signer)).toEqual(['s1.sig']);
    const plain = {
      FileId: 'plain',
      Placements: [{ field: 'Signer1.Signature', formSet: 'Signer1', fieldKey: 'Signature', type: 'Signature', signerIds: ['Signer1'], pageNumber: 1, left: 0, top: 0, width: 140, height: 70 }],
    } as unknown as StoredFile;
    expect(signatureFieldNames(plain, signer)).toEqual(['Signer1.Signature']);
    expect(signatureFieldNames({ FileId: 'unplaced' }, signer)).toEqual([]);
  });

  it('accepts every real calendar date and refuses impossible ones', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true }), (date) => {
        const text = date.toISOString().slice(0, 10);
        const { context } = validateFieldValues(tx, signer, { doc: { 's1.when': text, 's1.amount': '1' } });
        expect(context).toEqual({ doc: { when: text, amount: 1, ok: false, city: 'Delft' }, plain: {} });
      }),
      { numRuns: 200 },
    );
    for (const bad of ['2026-02-30', '2026-13-01', '21-11-2026', '2026/11/21', 'tomorrow']) {
      expect(issues({ doc: { 's1.when': bad, 's1.amount': '1' } })).toEqual([`Fields.doc.when: ${JSON.stringify(bad)} is not a date; use YYYY-MM-DD, e.g. 2026-11-21.`]);
    }
  });

  it('numbers: integers and decimals with . or , are accepted, anything else is refused', () => {
    fc.assert(
      fc.property(fc.integer(), fc.nat(), fc.constantFrom('.', ','), (whole, frac, sep) => {
        expect(issues({ doc: { 's1.when': '2026-11-21', 's1.amount': `${whole}${sep}${frac}` } })).toEqual([]);
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.string({ minLength: 1 }).filter((t) => t.trim() !== '' && !/^[+-]?(\d+([.,]\d*)?|[.,]\d+)$/.test(t.trim())), (text) => {
        const found = issues({ doc: { 's1.when': '2026-11-21', 's1.amount': text } });
        expect(found.length).toBe(1);
        expect(found[0]).toMatch(/^Fields\.doc\.amount: /);
      }),
      { numRuns: 200 },
    );
  });

  it('required text fields, check box types, unknown fields and files are all reported at once', () => {
    expect(issues({ doc: { 's1.city': ' ', 's1.ok': 'yes', 's2.city': 'x' }, other: {} })).toEqual([
      'Fields.other: there is no document "other" in this transaction.',
      'Fields.doc.s2.city: you have no field of that name in this document.',
      'Fields.doc.when: this field is required.',
      'Fields.doc.amount: this field is required.',
      'Fields.doc.ok: a check box takes true, false or its export value "Agreed".',
      'Fields.doc.city: this field is required.',
    ]);
    const { values } = validateFieldValues(tx, signer, { doc: { 's1.when': '2026-11-21', 's1.amount': '0,75', 's1.ok': true } });
    expect(values.get('doc')).toContainEqual({ name: 's1.ok', type: 'Check', value: true, exportValue: 'Agreed' });
    // Fields not sent keep what the PDF has (a pre-filled value, a pre-set box): nothing is written for them.
    expect(values.get('doc')?.map((v) => v.name)).toEqual(['s1.when', 's1.amount', 's1.ok']);
  });

  it('accepts plain keys, <formset>.<key> and a check box export value; a field sent twice or ambiguously is refused', () => {
    const { values, context } = validateFieldValues(tx, signer, { doc: { when: '2026-11-21', 's1.amount': 42.5, ok: 'Agreed', city: 'Gouda' } });
    expect(context).toEqual({ doc: { when: '2026-11-21', amount: 42.5, ok: true, city: 'Gouda' }, plain: {} });
    expect(values.get('doc')).toContainEqual({ name: 's1.ok', type: 'Check', value: true, exportValue: 'Agreed' });
    expect(values.get('doc')).toContainEqual({ name: 's1.amount', type: 'Number', value: '42.5' });
    expect(validateFieldValues(tx, signer, { doc: { when: '2026-11-21', amount: '1', ok: 'Off', city: null } }).context.doc).toEqual({ when: '2026-11-21', amount: 1, ok: false, city: 'Delft' });
    expect(issues({ doc: { when: '2026-11-21', 's1.when': '2026-11-22', amount: '1' } })).toEqual(['Fields.doc.s1.when: the field is also sent as "when"; send it once.']);
    expect(issues({ doc: { when: '2026-11-21', amount: '1', ok: 'Yes' } })).toEqual(['Fields.doc.ok: a check box takes true, false or its export value "Agreed".']);
  });

  it('qualifies a key in the Context only where two of the signer\'s formsets in one file share it', () => {
    const shared: StoredFile = {
      FileId: 'two',
      Placements: [place('a.city', 'SingleLine', ['Signer1']), place('b.city', 'SingleLine', ['Signer1']), place('b.zip', 'SingleLine', ['Signer1'])],
    };
    const t = { Id: 't', Files: [shared, file] } as unknown as Transaction;
    expect(signerFields(shared, signer).map((f) => f.Key)).toEqual(['a.city', 'b.city', 'zip']);
    const { context } = validateFieldValues(t, signer, { two: { 'a.city': 'A', 'b.city': 'B', zip: '1234' }, doc: { when: '2026-11-21', amount: '1' } });
    expect(context.two).toEqual({ 'a.city': 'A', 'b.city': 'B', zip: '1234' });
    let error: unknown;
    try {
      validateFieldValues(t, signer, { two: { city: 'A' } });
    } catch (e) {
      error = e;
    }
    expect((error as ValidationError).issues).toContain('Fields.two.city: you have no field of that name in this document.');
  });

  it('a radio group is one field keyed by its formset that takes the chosen button\'s export value', () => {
    const radio: StoredFile = {
      FileId: 'r',
      Placements: [
        { ...place('pick.x', 'Radio', ['Signer1'], { value: 'Option A' }), field: 'pick', fieldKey: 'optA' },
        { ...place('pick.x', 'Radio', ['Signer1'], { value: 'optB', checked: true }), field: 'pick', fieldKey: 'optB' },
        { ...place('pick.x', 'Radio', ['Signer1'], { value: '1' }), field: 'pick', fieldKey: 'one' },
      ],
    };
    const t = { Id: 't', Files: [radio] } as unknown as Transaction;
    const [group] = signerFields(radio, signer);
    expect(group).toMatchObject({ Name: 'pick', Key: 'pick', Type: 'Radio', Value: 'optB', Required: false });
    expect(group?.Options?.map((o) => [o.Key, o.Value])).toEqual([['optA', 'Option A'], ['optB', 'optB'], ['one', '1']]);
    expect(validateFieldValues(t, signer, {}).context).toEqual({ r: { pick: 'optB' } });
    expect(validateFieldValues(t, signer, {}).values.size).toBe(0);
    expect(validateFieldValues(t, signer, { r: { pick: 'Option A' } }).values.get('r')).toEqual([{ name: 'pick', type: 'Radio', value: 'Option A' }]);
    expect(validateFieldValues(t, signer, { r: { pick: 1 } }).context).toEqual({ r: { pick: '1' } });
    let error: unknown;
    try {
      validateFieldValues(t, signer, { r: { pick: 'Option C' } });
    } catch (e) {
      error = e;
    }
    expect((error as ValidationError).issues).toEqual(['Fields.r.pick: choose one of "Option A", "optB", "1".']);
  });

  it('initials of names', () => {
    expect(initials('Zoë van Dijk')).toBe('Z.v.D.');
    expect(initials('Ōta')).toBe('Ō.');
  });
});
