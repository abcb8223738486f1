/**
 * The checks on what an identity provider established about a signer (docs/verifications.md#checks), whatever the
 * protocol that carried it: the mapped values are compared with what the sender asked for in the signer's
 * Verification. Pure: values in, the first mismatch (or none) out.
 */
import { isValidBsn } from './bsn.js';
import { isBelgianE164 } from './e164.js';
import { isValidIban } from './transaction-rules.js';

/** Verification types whose phone number must be Belgian (the Belgian mobile identity). */
const BELGIAN_MOBILE_TYPES: ReadonlySet<string> = new Set(['itsme Identification', 'itsme sign']);

/** A value the provider established that does not fit: the field, and why (English; never the values themselves). */
export interface IdentityMismatch {
  readonly field: string;
  readonly reason: string;
}

/**
 * The first mismatch between the provider's `mapped` values and the signer's `verification`, or undefined.
 * `type` is the verification Type; `mapped` holds the read-only fields the claim mapping produced.
 */
export function findIdentityMismatch(
  type: string,
  verification: Readonly<Record<string, unknown>>,
  mapped: Readonly<Record<string, string>>,
): IdentityMismatch | undefined {
  const bsn = mapped.Bsn;
  if (bsn !== undefined && !isValidBsn(bsn)) return { field: 'Bsn', reason: 'the BSN of the login does not pass the 11-proef' };
  if (typeof verification.Bsn === 'string') {
    if (bsn === undefined) return { field: 'Bsn', reason: 'the login did not give a BSN' };
    if (bsn !== verification.Bsn) return { field: 'Bsn', reason: 'the BSN of the login is not the one the sender gave' };
  }
  const kvk = typeof verification.EntityConcernIdKvkNr === 'string' ? verification.EntityConcernIdKvkNr : undefined;
  if (kvk !== undefined) {
    if (mapped.EntityConcernIdKvkNr === undefined) return { field: 'EntityConcernIdKvkNr', reason: 'the login did not give a KvK number' };
    if (mapped.EntityConcernIdKvkNr.trim() !== kvk.trim()) return { field: 'EntityConcernIdKvkNr', reason: 'the KvK number of the login is not the one the sender gave' };
  }
  const iban = mapped.Iban;
  if (iban !== undefined && !isValidIban(normalizeIban(iban))) return { field: 'Iban', reason: 'the account the provider named is not a valid IBAN' };
  if (typeof verification.Iban === 'string') {
    if (iban === undefined) return { field: 'Iban', reason: 'the provider did not name the account' };
    if (normalizeIban(iban) !== normalizeIban(verification.Iban)) return { field: 'Iban', reason: 'the account is not the one the sender gave' };
  }
  const phone = mapped.PhoneNumber;
  if (BELGIAN_MOBILE_TYPES.has(type)) {
    if (phone !== undefined && !isBelgianE164(phone)) return { field: 'PhoneNumber', reason: 'the phone number of the login is not Belgian (+32)' };
    if (typeof verification.PhoneNumber === 'string' && phone !== undefined && phone !== verification.PhoneNumber) {
      return { field: 'PhoneNumber', reason: 'the phone number of the login is not the one the sender gave' };
    }
  }
  return undefined;
}

/** An IBAN without spaces, upper case: the form both sides are compared in. */
function normalizeIban(value: string): string {
  return value.replace(/\s+/g, '').toUpperCase();
}
