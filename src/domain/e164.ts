/**
 * E.164 telephone numbers (`Mobile`, the PhoneNumber verification and authentication, the Belgian mobile identity;
 * docs/design/signer-api.md#verification-types).
 */

/**
 * True for `+` followed by a country code not starting with 0 and 7 to 15 digits in all, nothing else (no spaces,
 * no punctuation): the form an SMS gateway accepts.
 *
 * @example isE164('+31612345678') === true
 */
export function isE164(value: string): boolean {
  return /^\+[1-9]\d{6,14}$/.test(value);
}

/**
 * True for an E.164 number with the Belgian country calling code +32 (the only one itsme supports,
 * docs/design/signer-api.md#verification-types).
 */
export function isBelgianE164(value: string): boolean {
  return isE164(value) && value.startsWith('+32');
}
