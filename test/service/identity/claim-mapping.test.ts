import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VERIFICATION_FIELDS } from '../../../src/domain/transaction-schema.js';
import { claimMapping, mapClaims } from '../../../src/service/identity/claim-mapping.js';

/** The login-based Types an OpenID provider serves, and the string fields a login establishes or is compared on. */
const LOGIN_TYPES = ['DigiD', 'eHerkenning', 'eIDAS Login', 'iDIN', 'iDeal', 'itsme Identification', 'SURFnet'] as const;
/** Fields no claim fills: the assurance level comes from `acr`, `Attributes` is an object, `SecureDownload` is the sender's. */
const NOT_FROM_CLAIMS = new Set(['Level', 'Betrouwbaarheidsniveau', 'Attributes', 'SecureDownload']);

/** What a full login of the standard claims (plus the Dutch ones the defaults name) answers. */
const FULL_LOGIN = {
  sub: 'subject-1',
  name: 'E. de Vries',
  given_name: 'Els',
  family_name: 'de Vries',
  birthdate: '1970-01-31',
  email: 'els@example.com',
  phone_number: '+32470123456',
  address: { formatted: 'Dorpsstraat 1\n1234 AB Utrecht', street_address: 'Dorpsstraat 1', postal_code: '1234 AB', locality: 'Utrecht' },
  bsn: '111222333',
  kvk_number: '12345678',
  iban: 'NL91ABNA0417164300',
  eduperson_principal_name: 'els@university.example',
};

describe('default claim mapping', () => {
  it.each(LOGIN_TYPES)('%s: every field of the Type that a login establishes or is checked on has a default claim', (type) => {
    const fields = Object.keys(VERIFICATION_FIELDS[type]).filter((field) => !NOT_FROM_CLAIMS.has(field));
    const mapped = mapClaims(FULL_LOGIN, claimMapping(type));
    for (const field of fields) expect(mapped[field], `${type}.${field}`).toBeTypeOf('string');
  });

  it('iDIN: the account holder fields from the standard name, address and birthdate claims', () => {
    const mapped = mapClaims(FULL_LOGIN, claimMapping('iDIN'));
    expect(mapped).toMatchObject({
      AccountHolderName: 'E. de Vries',
      AccountHolderAddress1: 'Dorpsstraat 1',
      AccountHolderAddress2: '1234 AB Utrecht',
      AccountHolderDateOfBirth: '1970-01-31',
    });
  });

  it('iDeal: the account, its holder and the holder\'s city', () => {
    expect(mapClaims(FULL_LOGIN, claimMapping('iDeal'))).toMatchObject({ Iban: 'NL91ABNA0417164300', AccountHolderName: 'E. de Vries', AccountHolderCity: 'Utrecht' });
  });

  it('a claim named whole wins over a member path, an override replaces a default and "" drops it', () => {
    const mapping = claimMapping('iDeal', { AccountHolderCity: 'address.locality', AccountHolderName: '' });
    const mapped = mapClaims({ 'address.locality': 'Gent', address: { locality: 'Utrecht' }, name: 'X' }, mapping);
    expect(mapped.AccountHolderCity).toBe('Gent');
    expect(mapped).not.toHaveProperty('AccountHolderName');
  });

  it('a missing part of a joined field leaves the rest; a missing claim leaves the field out', () => {
    const mapped = mapClaims({ address: { locality: 'Utrecht' } }, claimMapping('iDIN'));
    expect(mapped.AccountHolderAddress2).toBe('Utrecht');
    expect(mapped).not.toHaveProperty('AccountHolderAddress1');
  });

  it('whatever a provider sends, only non-empty strings come out and nothing throws', () => {
    const types = fc.constantFrom(...LOGIN_TYPES, 'OpenID Providers', 'itsme sign');
    fc.assert(
      fc.property(types, fc.dictionary(fc.constantFrom(...Object.keys(FULL_LOGIN), '__proto__', 'constructor', 'address.locality'), fc.jsonValue()), (type, claims) => {
        const mapped = mapClaims(claims, claimMapping(type));
        for (const value of Object.values(mapped)) {
          expect(typeof value).toBe('string');
          expect(value.trim()).not.toBe('');
        }
      }),
    );
  });
});
