/**
 * What the receipt keeps of an external login, whatever the protocol: who vouched (protocol, provider, issuer,
 * subject), the assurance level, and the identifying fields. A BSN is kept as its last three digits only: the sender
 * gave the full number and the check compared it; the receipt travels further.
 */

/** Fields that identify the person and go into the evidence as they are. */
const IDENTIFYING = ['Uid', 'FirstName', 'LastName', 'DateOfBirth', 'EntityConcernIdKvkNr', 'Iban', 'PhoneNumber', 'Email'] as const;

/** The evidence of a passed login: `head` (protocol, provider, issuer, subject), the level and the identifying fields. */
export function identityEvidence(head: Readonly<Record<string, string>>, level: string | undefined, fields: Readonly<Record<string, string>>): Record<string, string> {
  const evidence: Record<string, string> = { ...head };
  if (level !== undefined) evidence.level = level;
  for (const key of IDENTIFYING) {
    const value = fields[key];
    if (value !== undefined) evidence[key] = value;
  }
  if (fields.Bsn !== undefined) evidence.Bsn = `…${fields.Bsn.slice(-3)}`;
  return evidence;
}
