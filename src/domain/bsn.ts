/**
 * The Dutch citizen service number (BSN) check, the "11-proef" (a `Bsn` must pass it,
 * docs/design/signer-api.md#external-identity-methods).
 */

/**
 * True when `value` is 9 digits (8 are accepted with a leading zero added, as the number is often written without
 * it), not all zeros, and 9·d1 + 8·d2 + … + 2·d8 − 1·d9 is divisible by 11.
 *
 * @example isValidBsn('111222333') === true
 */
export function isValidBsn(value: string): boolean {
  if (!/^\d{8,9}$/.test(value)) return false;
  const digits = value.padStart(9, '0');
  if (/^0+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(digits[i]) * (9 - i);
  sum -= Number(digits[8]);
  return sum % 11 === 0;
}
