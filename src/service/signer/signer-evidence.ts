/**
 * What the receipt says about a signer's journey (docs/design/receipt.md#contents: the signers' verifications, IP
 * addresses and user agents, the certificates used), read from the audit chain the signer use cases wrote:
 * `verification.performed`, `signer.signed` and `signer.rejected` entries. Pure.
 */
import type { AuditEntry } from '../../receipt/audit-log.js';
import type { ReceiptSigner, ReceiptVerification } from '../../receipt/types.js';
import type { Signer } from '../../domain/transaction.js';

/** The receipt fields of `signer` that come from the audit chain. */
export type SignerEvidence = Pick<ReceiptSigner, 'verifications'> & Partial<Pick<ReceiptSigner, 'ipAddress' | 'userAgent' | 'certificate' | 'rejectReason' | 'rejectedAt'>>;

/**
 * The verifications of `signer` in the order of its `Verifications` (each matched with the first unused audit entry of
 * its type; `IPAddress` from the signing entry), and IP, user agent and certificate of the signing or rejection.
 */
export function signerEvidence(signer: Signer, chain: readonly AuditEntry[]): SignerEvidence {
  const performed = chain.filter((e) => e.type === 'verification.performed' && e.data.signerId === signer.Id);
  const signed = chain.find((e) => e.type === 'signer.signed' && e.data.signerId === signer.Id);
  const rejected = chain.find((e) => e.type === 'signer.rejected' && e.data.signerId === signer.Id);
  const used = new Set<AuditEntry>();
  const verifications = signer.Verifications.map((v): ReceiptVerification => {
    if (v.Type === 'IPAddress' && signed?.type === 'signer.signed') {
      return { type: v.Type, result: 'passed', at: new Date(signed.at), evidence: { IPAddress: signed.data.ip } };
    }
    const entry = performed.find((e) => !used.has(e) && e.type === 'verification.performed' && e.data.verification === v.Type);
    if (entry === undefined || entry.type !== 'verification.performed') return { type: v.Type, result: 'not performed', evidence: {} };
    used.add(entry);
    return { type: v.Type, result: entry.data.result, at: new Date(entry.at), evidence: { ...entry.data.evidence } };
  });
  const evidence: SignerEvidence = { verifications };
  const last = signed ?? rejected;
  if (last?.type === 'signer.signed') Object.assign(evidence, { ipAddress: last.data.ip, userAgent: last.data.userAgent, certificate: last.data.certificate });
  if (last?.type === 'signer.rejected') {
    Object.assign(evidence, { ipAddress: last.data.ip, userAgent: last.data.userAgent, rejectReason: last.data.reason, rejectedAt: new Date(last.at) });
  }
  return evidence;
}
