/**
 * Which claim of an OpenID Connect login fills which read-only field of a Verification (docs/verifications.md#claims),
 * per verification Type; a provider's configuration can replace or add entries. The assurance level (`Level`) comes
 * from the ID token's `acr`, not from a claim mapping.
 */

/** Field name → claim name. */
export type ClaimMapping = Readonly<Record<string, string>>;

/** Every login: the subject and the person's name, date of birth, phone number and e-mail when given. */
const COMMON: ClaimMapping = {
  Uid: 'sub',
  FirstName: 'given_name',
  LastName: 'family_name',
  DateOfBirth: 'birthdate',
};

/** Defaults per Type; brokers name their claims differently, so each is overridable. */
const BY_TYPE: Readonly<Record<string, ClaimMapping>> = {
  DigiD: { Bsn: 'bsn' },
  eHerkenning: { EntityConcernIdKvkNr: 'kvk_number' },
  'eIDAS Login': {},
  iDIN: { Name: 'name', Address: 'address' },
  iDeal: { Iban: 'iban', AccountHolderName: 'name' },
  'itsme Identification': { PhoneNumber: 'phone_number' },
  'itsme sign': { PhoneNumber: 'phone_number' },
  SURFnet: { Uid: 'eduperson_principal_name', Email: 'email' },
  'OpenID Providers': { Email: 'email', Name: 'name' },
};

/** The mapping for `type`: the common fields, the Type's own, then the configured `overrides` (a value "" drops a field). */
export function claimMapping(type: string, overrides: ClaimMapping = {}): ClaimMapping {
  const merged: Record<string, string> = { ...COMMON, ...(BY_TYPE[type] ?? {}), ...overrides };
  return Object.fromEntries(Object.entries(merged).filter(([, claim]) => claim !== ''));
}

/**
 * The read-only fields `claims` give under `mapping`. Only strings and numbers are taken; an `address` claim (an object
 * per OpenID Connect) becomes its `formatted` text. A claim a provider did not send leaves its field out.
 */
export function mapClaims(claims: Readonly<Record<string, unknown>>, mapping: ClaimMapping): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [field, claim] of Object.entries(mapping)) {
    const value = claims[claim];
    if (typeof value === 'string' && value !== '') fields[field] = value;
    else if (typeof value === 'number' && Number.isFinite(value)) fields[field] = String(value);
    else if (typeof value === 'object' && value !== null && typeof (value as { formatted?: unknown }).formatted === 'string') {
      fields[field] = (value as { formatted: string }).formatted;
    }
  }
  return fields;
}
