/**
 * Field values a signer submits (decisions.md §4, §6): required text fields, Date `YYYY-MM-DD` (real calendar
 * dates), Number `42` / `-3.5` / `0,75`, Check true/false, unknown files and fields named in the message; the
 * signer's Context is `{ fileId: { field: value } }`. Also the default signature field and initials.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Signer, StoredFile, Transaction } from '../../../src/domain/transaction.js';
import type { FieldPlacement } from '../../../src/pdf/locate.js';
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

function issues(values: Record<string, Record<string, string | boolean>>): string[] {
  try {
    validateFieldValues(tx, signer, values);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return [...(error as ValidationError).issues];
  }
}

describe('signer fields', () => {
  it('lists only the signer’s fields; default signature field only without a metadata Signature field', () => {
    expect(signerFields(file, signer).map((f) => f.name)).toEqual(['s1.sig', 's1.when', 's1.amount', 's1.ok', 's1.city']);
    expect(signatureFieldNames(file, signer)).toEqual(['s1.sig']);
    expect(signatureFieldNames({ FileId: 'plain' }, signer)).toEqual(['Signer1.Signature']);
  });

  it('accepts every real calendar date and refuses impossible ones', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true }), (date) => {
        const text = date.toISOString().slice(0, 10);
        const { context } = validateFieldValues(tx, signer, { doc: { 's1.when': text, 's1.amount': '1' } });
        expect(context).toEqual({ doc: { 's1.when': text, 's1.amount': '1', 's1.ok': false, 's1.city': 'Delft' } });
      }),
      { numRuns: 200 },
    );
    for (const bad of ['2026-02-30', '2026-13-01', '21-11-2026', '2026/11/21', 'tomorrow']) {
      expect(issues({ doc: { 's1.when': bad, 's1.amount': '1' } })).toEqual([`Fields.doc.s1.when: ${JSON.stringify(bad)} is not a date; use YYYY-MM-DD, e.g. 2026-11-21.`]);
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
      fc.property(fc.string({ minLength: 1 }).filter((t) => t.trim() !== '' && !/^-?\d+([.,]\d+)?$/.test(t.trim())), (text) => {
        const found = issues({ doc: { 's1.when': '2026-11-21', 's1.amount': text } });
        expect(found.length).toBe(1);
        expect(found[0]).toMatch(/^Fields\.doc\.s1\.amount: /);
      }),
      { numRuns: 200 },
    );
  });

  it('required text fields, check box types, unknown fields and files are all reported at once', () => {
    expect(issues({ doc: { 's1.city': ' ', 's1.ok': 'yes', 's2.city': 'x' }, other: {} })).toEqual([
      'Fields.other: there is no document "other" in this transaction.',
      'Fields.doc.s2.city: you have no field of that name in this document.',
      'Fields.doc.s1.when: this field is required.',
      'Fields.doc.s1.amount: this field is required.',
      'Fields.doc.s1.ok: a check box takes true or false.',
      'Fields.doc.s1.city: this field is required.',
    ]);
    const { values } = validateFieldValues(tx, signer, { doc: { 's1.when': '2026-11-21', 's1.amount': '0,75', 's1.ok': true } });
    expect(values.get('doc')).toContainEqual({ name: 's1.ok', type: 'Check', value: true, exportValue: 'Agreed' });
    expect(values.get('doc')).toContainEqual({ name: 's1.city', type: 'SingleLine', value: 'Delft' });
  });

  it('initials of names', () => {
    expect(initials('Zoë van Dijk')).toBe('Z.v.D.');
    expect(initials('Ōta')).toBe('Ō.');
  });
});
