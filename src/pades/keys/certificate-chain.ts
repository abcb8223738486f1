/**
 * Orders loose certificates (from a PKCS#12 file or a PKCS#11 token) into the chain a CMS SignedData embeds:
 * the signer's certificate first, then each next certificate the issuer of the previous (RFC 5280 §6.1 path order).
 */
import * as pkijs from 'pkijs';
import '../crypto-engine.js';

/**
 * Returns `[leaf, issuer of leaf, its issuer, …]` picked from `others` by subject/issuer name; certificates that
 * are not part of the leaf's chain are left out. Stops at a self-signed certificate.
 */
export function orderCertificateChain(leaf: Uint8Array, others: readonly Uint8Array[]): Uint8Array[] {
  const parsed = others.flatMap((der) => {
    try {
      return [{ der, cert: pkijs.Certificate.fromBER(der) }];
    } catch {
      return [];
    }
  });
  const chain = [leaf];
  let current = pkijs.Certificate.fromBER(leaf);
  const used = new Set<number>();
  while (!current.issuer.isEqual(current.subject)) {
    const next = parsed.findIndex((p, i) => !used.has(i) && p.cert.subject.isEqual(current.issuer) && !Buffer.from(p.der).equals(Buffer.from(leaf)));
    const found = parsed[next];
    if (!found) break;
    used.add(next);
    chain.push(found.der);
    current = found.cert;
  }
  return chain;
}
