/**
 * The checks on what an identity provider established (docs/verifications.md#checks): BSN by the 11-proef and equal to
 * the sender's, KvK number and IBAN equal to the sender's, a Belgian number for itsme only; absent requirements pass.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findIdentityMismatch } from '../../src/domain/identity-checks.js';

describe('findIdentityMismatch', () => {
  it('BSN: must pass the 11-proef and equal the one the sender gave', () => {
    expect(findIdentityMismatch('DigiD', { Bsn: '111222333' }, { Bsn: '111222333' })).toBeUndefined();
    expect(findIdentityMismatch('DigiD', { Bsn: '111222333' }, { Bsn: '123456782' })?.field).toBe('Bsn');
    expect(findIdentityMismatch('DigiD', { Bsn: '111222333' }, {})?.reason).toMatch(/did not give a BSN/);
    expect(findIdentityMismatch('DigiD', {}, { Bsn: '123456789' })?.reason).toMatch(/11-proef/);
  });

  it('KvK number and IBAN: equal to the sender\'s (IBAN spacing and case aside)', () => {
    expect(findIdentityMismatch('eHerkenning', { EntityConcernIdKvkNr: '12345678' }, { EntityConcernIdKvkNr: '12345678' })).toBeUndefined();
    expect(findIdentityMismatch('eHerkenning', { EntityConcernIdKvkNr: '12345678' }, { EntityConcernIdKvkNr: '87654321' })?.field).toBe('EntityConcernIdKvkNr');
    expect(findIdentityMismatch('iDeal', { Iban: 'NL91ABNA0417164300' }, { Iban: 'nl91 abna 0417 1643 00' })).toBeUndefined();
    expect(findIdentityMismatch('iDeal', { Iban: 'NL91ABNA0417164300' }, { Iban: 'NL02RABO0123456789' })?.field).toBe('Iban');
    expect(findIdentityMismatch('iDeal', { Iban: 'NL91ABNA0417164300' }, {})?.field).toBe('Iban');
  });

  it('+32 only for the Belgian mobile identity', () => {
    expect(findIdentityMismatch('itsme Identification', {}, { PhoneNumber: '+32470123456' })).toBeUndefined();
    expect(findIdentityMismatch('itsme Identification', {}, { PhoneNumber: '+31612345678' })?.field).toBe('PhoneNumber');
    expect(findIdentityMismatch('itsme Identification', { PhoneNumber: '+32470123456' }, { PhoneNumber: '+32470999999' })?.field).toBe('PhoneNumber');
    expect(findIdentityMismatch('SURFnet', {}, { PhoneNumber: '+31612345678' })).toBeUndefined();
  });

  it('a Verification that asks for nothing accepts any established values without a BSN', () => {
    fc.assert(
      fc.property(fc.constantFrom('SURFnet', 'eIDAS Login', 'OpenID Providers', 'iDIN'), fc.dictionary(fc.constantFrom('Uid', 'FirstName', 'LastName', 'Level'), fc.string()), (type, fields) => {
        expect(findIdentityMismatch(type, {}, fields)).toBeUndefined();
      }),
    );
  });
});
