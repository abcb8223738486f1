/**
 * The contracts between the PAdES modules and whatever holds keys or talks to the network. Implementations live
 * in src/pades/keys (software, PKCS#12, PKCS#11) and src/pades/timestamp.ts / revocation.ts; callers may bring
 * their own (an HSM, a remote signing service, a TSA client with authentication).
 */

/** Digest algorithms paraph signs with. */
export type HashAlgorithm = 'SHA-256' | 'SHA-384' | 'SHA-512';

/** The signature scheme of a key. ECDSA covers P-256 and P-384. */
export type SignatureScheme = 'RSASSA-PKCS1-v1_5' | 'RSA-PSS' | 'ECDSA';

/**
 * Something that can sign: a certificate chain plus one async `sign` method (compare pyHanko's `async_sign_raw`).
 * `sign` receives the DER encoding of the CMS signed attributes (a few hundred bytes, never the document) and
 * returns the signature value exactly as it goes into the CMS SignerInfo (for ECDSA: the DER `ECDSA-Sig-Value`,
 * not WebCrypto's raw r||s).
 */
export interface Signer {
  /** DER certificates: the signer's own first, then its issuers (the root may be left out). */
  readonly certificateChain: readonly Uint8Array[];
  readonly scheme: SignatureScheme;
  sign(toBeSigned: Uint8Array, hash: HashAlgorithm): Promise<Uint8Array>;
}

/**
 * Asks a time-stamp authority (RFC 3161) for a token whose message imprint is `digest` (already computed with
 * `hash`: the hash of a signature value for a signature time-stamp, of the signed byte ranges for a document
 * time-stamp). Returns the DER TimeStampToken (a CMS ContentInfo), already checked against the request
 * (status granted, imprint and nonce match).
 */
export type Timestamper = (digest: Uint8Array, hash: HashAlgorithm) => Promise<Uint8Array>;

/**
 * Fetches bytes over the network for revocation checks (OCSP POST, CRL GET). Handed in so that the core
 * never opens a connection itself; tests hand in a fetcher bound to servers on 127.0.0.1.
 */
export interface RevocationFetcher {
  /** POSTs an OCSP request (DER) to `url` and returns the DER OCSP response. */
  ocsp(url: string, request: Uint8Array): Promise<Uint8Array>;
  /** GETs the DER CRL at `url`. */
  crl(url: string): Promise<Uint8Array>;
}
