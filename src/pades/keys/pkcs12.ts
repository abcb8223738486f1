/**
 * PKCS#12 (RFC 7292) key stores as `Signer`s: node-forge only decrypts and unpacks the file; the key is handed to
 * WebCrypto as PKCS#8 and the certificates are kept as their original DER. Also the
 * qualified-seal configuration of a PKCS#12 file (docs/design/signatures.md#qualified-seal). What the file may ask
 * forge to compute is bounded first (pkcs12-limits.ts, docs/design/security.md).
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import type forgeTypes from 'node-forge';
import * as pkijs from 'pkijs';
import '../crypto-engine.js';
import { SigningError } from '../../errors.js';
import type { SignatureScheme } from '../types.js';
import { orderCertificateChain } from './certificate-chain.js';
import { checkPkcs12Cost, guardForgeKeyDerivation, type ForgeKeyDerivation, type Pkcs12Limits } from './pkcs12-limits.js';
import { createSoftwareSigner, importPkcs8Key, type SoftwareSigner } from './software.js';

export type { Pkcs12Limits } from './pkcs12-limits.js';

/** Options of `loadPkcs12Signer`: the limits on what opening the file may cost, and the signature scheme. */
export interface Pkcs12Options extends Pkcs12Limits {
  /** Sign with RSA-PSS instead of PKCS#1 v1.5 (RSA keys only). */
  readonly scheme?: SignatureScheme;
}

/** node-forge, loaded by the first `loadPkcs12Signer` (not by `import 'paraph'`, which has no use for it). */
let forge: typeof forgeTypes;

function toBinary(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('binary');
}

function fromBinary(binary: string): Uint8Array {
  return new Uint8Array(Buffer.from(binary, 'binary'));
}

function unpack(bytes: Uint8Array, password: string, limits: Pkcs12Limits): forgeTypes.pkcs12.Pkcs12Pfx {
  checkPkcs12Cost(bytes, limits);
  let asn1: forgeTypes.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(toBinary(bytes));
  } catch (cause) {
    throw new SigningError('PKCS12_INVALID', `The file is not a PKCS#12 (.p12/.pfx) key store: ${(cause as Error).message}.`, { cause });
  }
  // forge re-encodes parsed certificates differently from their original DER (which would break every signature
  // referring to them); with its certificate parser disabled it keeps each certificate as the ASN.1 it read, which
  // re-encodes byte for byte. pkcs12FromAsn1 is synchronous, so the swap cannot leak into other callers.
  const parseCertificate = forge.pki.certificateFromAsn1;
  forge.pki.certificateFromAsn1 = () => {
    throw new Error('kept as ASN.1');
  };
  try {
    return guardForgeKeyDerivation(forge as unknown as ForgeKeyDerivation, limits, () => forge.pkcs12.pkcs12FromAsn1(asn1, false, password));
  } catch (cause) {
    if (cause instanceof SigningError) throw cause;
    const message = cause instanceof Error ? cause.message : String((cause as { message?: unknown } | undefined)?.message ?? cause);
    if (/password|decrypt|MAC/i.test(message)) {
      throw new SigningError('PKCS12_WRONG_PASSWORD', 'The PKCS#12 password is wrong (the file could not be decrypted); check the password.', { cause });
    }
    throw new SigningError('PKCS12_INVALID', `The PKCS#12 key store could not be read: ${message}.`, { cause });
  } finally {
    forge.pki.certificateFromAsn1 = parseCertificate;
  }
}

interface Bag {
  key?: forgeTypes.pki.PrivateKey | null;
  cert?: forgeTypes.pki.Certificate | null;
  asn1?: forgeTypes.asn1.Asn1;
}

function bagsOf(pfx: forgeTypes.pkcs12.Pkcs12Pfx, type: string): Bag[] {
  return (pfx.getBags({ bagType: type })[type] ?? []) as Bag[];
}

function keyToPkcs8(bag: Bag): Uint8Array | undefined {
  if (bag.asn1) return fromBinary(forge.asn1.toDer(bag.asn1).getBytes());
  if (bag.key) {
    const info = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key as forgeTypes.pki.rsa.PrivateKey));
    return fromBinary(forge.asn1.toDer(info).getBytes());
  }
  return undefined;
}

function certToDer(bag: Bag): Uint8Array | undefined {
  return bag.asn1 ? fromBinary(forge.asn1.toDer(bag.asn1).getBytes()) : undefined;
}

function spkiOfCertificate(der: Uint8Array): Buffer {
  return Buffer.from(pkijs.Certificate.fromBER(der).subjectPublicKeyInfo.toSchema().toBER(false));
}

/** What a PKCS#12 file holds: its private keys (PKCS#8 DER) and its certificates (their DER as in the file). */
export interface Pkcs12Contents {
  readonly keys: readonly Uint8Array[];
  readonly certificates: readonly Uint8Array[];
}

/**
 * Decrypts and unpacks a PKCS#12 file within `limits` (checked before any key is derived). Synchronous work on the
 * calling thread: at most the limits' iterations.
 * @throws SigningError `PKCS12_INVALID`, `PKCS12_WRONG_PASSWORD`, `PKCS12_TOO_COSTLY`, `PKCS12_TOO_COMPLEX`
 */
export async function loadPkcs12Contents(bytes: Uint8Array, password: string, limits: Pkcs12Limits = {}): Promise<Pkcs12Contents> {
  forge ??= (await import('node-forge')).default;
  const pfx = unpack(bytes, password, limits);
  const keys = [...bagsOf(pfx, forge.pki.oids.pkcs8ShroudedKeyBag ?? ''), ...bagsOf(pfx, forge.pki.oids.keyBag ?? '')]
    .map(keyToPkcs8)
    .filter((k): k is Uint8Array => k !== undefined);
  if (keys.length === 0) {
    throw new SigningError('PKCS12_NO_KEY', 'The PKCS#12 file holds no private key; export it again including the key.');
  }
  const certificates = bagsOf(pfx, forge.pki.oids.certBag ?? '')
    .map(certToDer)
    .filter((c): c is Uint8Array => c !== undefined);
  return { keys, certificates };
}

function unreadableAsInvalid<T>(read: () => T): T {
  try {
    return read();
  } catch (cause) {
    throw new SigningError('PKCS12_INVALID', `The PKCS#12 key store holds a key or certificate that could not be read: ${cause instanceof Error ? cause.message : String(cause)}.`, { cause });
  }
}

/**
 * The `Signer` of a PKCS#12 file's contents: the first key with its certificate, followed by its issuers found in
 * the file. @throws SigningError `PKCS12_NO_CERTIFICATE`
 */
export async function signerFromPkcs12(contents: Pkcs12Contents, options: Pick<Pkcs12Options, 'scheme'> = {}): Promise<SoftwareSigner> {
  const certs = contents.certificates;
  for (const pkcs8 of contents.keys) {
    const leaf = unreadableAsInvalid(() => {
      const spki = createPublicKey(createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' })).export({ type: 'spki', format: 'der' });
      return certs.find((der) => spkiOfCertificate(der).equals(spki));
    });
    if (!leaf) continue;
    const privateKey = await importPkcs8Key(pkcs8, options.scheme === undefined ? {} : { scheme: options.scheme });
    return createSoftwareSigner({ privateKey, certificateChain: orderCertificateChain(leaf, certs.filter((c) => c !== leaf)) });
  }
  throw new SigningError('PKCS12_NO_CERTIFICATE', 'The PKCS#12 file holds no certificate for its private key; export it again with the signing certificate.');
}

/**
 * Opens a PKCS#12 file (RSA or EC key) and returns a `Signer` with the key's certificate first, followed by its
 * issuers found in the file. A file asking for more key-derivation work than `options.maxIterations` (per
 * derivation, default 100,000) or `options.maxTotalIterations` (default 200,000) is refused before the work is done.
 * Throws `SigningError` with code `PKCS12_WRONG_PASSWORD`, `PKCS12_INVALID`, `PKCS12_TOO_COSTLY`,
 * `PKCS12_TOO_COMPLEX`, `PKCS12_NO_KEY` or `PKCS12_NO_CERTIFICATE`.
 * @example
 * const signer = await loadPkcs12Signer(readFileSync('seal.p12'), 'secret');
 */
export async function loadPkcs12Signer(bytes: Uint8Array, password: string, options: Pkcs12Options = {}): Promise<SoftwareSigner> {
  return signerFromPkcs12(await loadPkcs12Contents(bytes, password, options), options);
}
