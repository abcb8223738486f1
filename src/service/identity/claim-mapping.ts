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

/**
 * Defaults per Type, named after each Type's own fields in the API (the standard OpenID Connect claims where one
 * fits); brokers name their claims differently, so each is overridable. A mapped field the Type does not have in the
 * API reaches the evidence only.
 */
const BY_TYPE: Readonly<Record<string, ClaimMapping>> = {
  DigiD: { Bsn: 'bsn' },
  eHerkenning: { EntityConcernIdKvkNr: 'kvk_number' },
  'eIDAS Login': {},
  iDIN: {
    AccountHolderName: 'name',
    AccountHolderAddress1: 'address.street_address',
    AccountHolderAddress2: 'address.postal_code address.locality',
    AccountHolderDateOfBirth: 'birthdate',
  },
  iDeal: { Iban: 'iban', AccountHolderName: 'name', AccountHolderCity: 'address.locality' },
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
 * The read-only fields `claims` give under `mapping`. Only strings and finite numbers are taken; an object claim named
 * whole (an OpenID Connect `address`) gives its `formatted` text. A claim a provider did not send leaves its field out.
 */
export function mapClaims(claims: Readonly<Record<string, unknown>>, mapping: ClaimMapping): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [field, names] of Object.entries(mapping)) {
    const parts = names.split(/\s+/).flatMap((name) => {
      const value = textOf(claimAt(claims, name));
      return value === undefined ? [] : [value];
    });
    if (parts.length > 0) fields[field] = parts.join(' ');
  }
  return fields;
}

/** The claim called `name`, else the member after the first `.` of the object claim before it. */
function claimAt(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  const dot = name.indexOf('.');
  if (dot <= 0) return undefined;
  const parent = claims[name.slice(0, dot)];
  return typeof parent === 'object' && parent !== null && !Array.isArray(parent) ? (parent as Record<string, unknown>)[name.slice(dot + 1)] : undefined;
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'object' && value !== null) return textOf((value as { formatted?: unknown }).formatted);
  return undefined;
}
