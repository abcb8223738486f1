/**
 * Software keys: a `Signer` over a WebCrypto private key held in memory (generated here or imported from PKCS#8).
 * Key algorithms: RSA PKCS#1 v1.5, RSA-PSS (salt length = hash
 * length, RFC 4055 §3.1 / ETSI TS 119 312 recommendation) and ECDSA P-256/P-384, whose WebCrypto output (IEEE P1363
 * r||s) is re-encoded as the DER `ECDSA-Sig-Value` CMS expects (RFC 5753 §7.2).
 */
import { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import { SigningError } from '../../errors.js';
import type { HashAlgorithm, SignatureScheme, Signer } from '../types.js';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
type RsaHashedKeyGenParams = webcrypto.RsaHashedKeyGenParams;
type EcKeyGenParams = webcrypto.EcKeyGenParams;
type RsaHashedImportParams = webcrypto.RsaHashedImportParams;
type EcKeyImportParams = webcrypto.EcKeyImportParams;
type RsaPssParams = webcrypto.RsaPssParams;
type EcdsaParams = webcrypto.EcdsaParams;
type RsaHashedKeyAlgorithm = webcrypto.RsaHashedKeyAlgorithm;

/** The key types paraph can generate. */
export type KeyKind = 'rsa-2048' | 'rsa-3072' | 'rsa-pss-2048' | 'rsa-pss-3072' | 'ecdsa-p256' | 'ecdsa-p384';

/** The RSA-PSS parameters paraph signs with: MGF1 over the same hash, salt length equal to the hash length. */
export interface PssParameters {
  readonly hash: HashAlgorithm;
  readonly saltLength: number;
}

/** A `Signer` backed by an in-memory WebCrypto key; `privateKey` is exposed for callers that must persist it. */
export interface SoftwareSigner extends Signer {
  readonly privateKey: CryptoKey;
  /** For RSA-PSS keys: the PSS parameters used for a given hash (what the CMS SignerInfo must declare). */
  pssParameters(hash: HashAlgorithm): PssParameters;
}

const HASH_LENGTH: Record<HashAlgorithm, number> = { 'SHA-256': 32, 'SHA-384': 48, 'SHA-512': 64 };

/** RSA-PSS parameters for `hash`: MGF1 with the same hash and a salt as long as the digest. */
function pssParametersFor(hash: HashAlgorithm): PssParameters {
  return { hash, saltLength: HASH_LENGTH[hash] };
}

/** The WebCrypto generation parameters and scheme of a `KeyKind`. */
function kindParameters(kind: KeyKind): { scheme: SignatureScheme; algorithm: RsaHashedKeyGenParams | EcKeyGenParams } {
  const rsa = (name: string, modulusLength: number): RsaHashedKeyGenParams => ({
    name,
    modulusLength,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: 'SHA-256',
  });
  switch (kind) {
    case 'rsa-2048':
      return { scheme: 'RSASSA-PKCS1-v1_5', algorithm: rsa('RSASSA-PKCS1-v1_5', 2048) };
    case 'rsa-3072':
      return { scheme: 'RSASSA-PKCS1-v1_5', algorithm: rsa('RSASSA-PKCS1-v1_5', 3072) };
    case 'rsa-pss-2048':
      return { scheme: 'RSA-PSS', algorithm: rsa('RSA-PSS', 2048) };
    case 'rsa-pss-3072':
      return { scheme: 'RSA-PSS', algorithm: rsa('RSA-PSS', 3072) };
    case 'ecdsa-p256':
      return { scheme: 'ECDSA', algorithm: { name: 'ECDSA', namedCurve: 'P-256' } };
    case 'ecdsa-p384':
      return { scheme: 'ECDSA', algorithm: { name: 'ECDSA', namedCurve: 'P-384' } };
    default:
      throw new SigningError('UNSUPPORTED_KEY_KIND', `Unknown key kind "${String(kind)}"; use one of rsa-2048, rsa-3072, rsa-pss-2048, rsa-pss-3072, ecdsa-p256, ecdsa-p384.`);
  }
}

/**
 * Generates an extractable key pair of the given kind (extractable so that a CA can persist its key as PKCS#8).
 */
export async function generateKeyPair(kind: KeyKind): Promise<CryptoKeyPair> {
  const { algorithm } = kindParameters(kind);
  return (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
}

/** The scheme a WebCrypto private key signs with. */
function schemeOfKey(key: CryptoKey): SignatureScheme {
  const name = key.algorithm.name;
  if (name === 'RSASSA-PKCS1-v1_5' || name === 'RSA-PSS' || name === 'ECDSA') return name;
  throw new SigningError('UNSUPPORTED_KEY_ALGORITHM', `Key algorithm "${name}" cannot sign PDFs; use an RSA or ECDSA key.`);
}

const OID_RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const OID_RSASSA_PSS = '1.2.840.113549.1.1.10';
const OID_EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const CURVES: Record<string, 'P-256' | 'P-384' | 'P-521'> = {
  '1.2.840.10045.3.1.7': 'P-256',
  '1.3.132.0.34': 'P-384',
  '1.3.132.0.35': 'P-521',
};

/** Reads the algorithm OID (and EC curve) from a PKCS#8 PrivateKeyInfo without any key parsing. */
function pkcs8Algorithm(pkcs8: Uint8Array): { oid: string; curve?: string } {
  const parsed = asn1js.fromBER(pkcs8);
  const seq = parsed.result;
  if (parsed.offset === -1 || !(seq instanceof asn1js.Sequence)) {
    throw new SigningError('INVALID_PRIVATE_KEY', 'The private key is not DER PKCS#8 (PrivateKeyInfo); export it with `openssl pkcs8 -topk8 -nocrypt`.');
  }
  const algId = seq.valueBlock.value[1];
  const oid = algId instanceof asn1js.Sequence ? algId.valueBlock.value[0] : undefined;
  if (!(oid instanceof asn1js.ObjectIdentifier)) {
    throw new SigningError('INVALID_PRIVATE_KEY', 'The PKCS#8 private key has no algorithm identifier.');
  }
  const param = algId instanceof asn1js.Sequence ? algId.valueBlock.value[1] : undefined;
  const curve = param instanceof asn1js.ObjectIdentifier ? param.valueBlock.toString() : undefined;
  return curve === undefined ? { oid: oid.valueBlock.toString() } : { oid: oid.valueBlock.toString(), curve };
}

/** Converts a PEM block (any label) to DER; passes DER through. */
export function pemToDer(input: Uint8Array | string): Uint8Array {
  const text = typeof input === 'string' ? input : Buffer.from(input).toString('latin1');
  const match = /-----BEGIN [^-]+-----([\s\S]*?)-----END [^-]+-----/.exec(text);
  if (!match) {
    if (typeof input === 'string') {
      throw new SigningError('INVALID_PEM', 'Expected a PEM block ("-----BEGIN ...-----"); got text without one.');
    }
    return input;
  }
  return new Uint8Array(Buffer.from((match[1] ?? '').replace(/\s+/g, ''), 'base64'));
}

/**
 * Imports a PKCS#8 private key (DER or PEM) for signing. RSA keys default to PKCS#1 v1.5; pass
 * `scheme: 'RSA-PSS'` to sign with PSS (keys with the id-RSASSA-PSS OID always sign with PSS).
 */
export async function importPkcs8Key(pkcs8: Uint8Array | string, options: { scheme?: SignatureScheme } = {}): Promise<CryptoKey> {
  const der = pemToDer(pkcs8);
  const { oid, curve } = pkcs8Algorithm(der);
  let algorithm: RsaHashedImportParams | EcKeyImportParams;
  if (oid === OID_RSA_ENCRYPTION || oid === OID_RSASSA_PSS) {
    const name = oid === OID_RSASSA_PSS || options.scheme === 'RSA-PSS' ? 'RSA-PSS' : 'RSASSA-PKCS1-v1_5';
    if (options.scheme === 'ECDSA') {
      throw new SigningError('KEY_SCHEME_MISMATCH', 'The PKCS#8 key is an RSA key but scheme "ECDSA" was requested.');
    }
    algorithm = { name, hash: 'SHA-256' };
  } else if (oid === OID_EC_PUBLIC_KEY) {
    const namedCurve = curve === undefined ? undefined : CURVES[curve];
    if (!namedCurve) {
      throw new SigningError('UNSUPPORTED_KEY_ALGORITHM', `EC curve ${curve ?? '(none)'} is not supported; use P-256 or P-384.`);
    }
    algorithm = { name: 'ECDSA', namedCurve };
  } else {
    throw new SigningError('UNSUPPORTED_KEY_ALGORITHM', `Private key algorithm ${oid} is not supported; use an RSA or ECDSA (P-256/P-384) key.`);
  }
  try {
    return await webcrypto.subtle.importKey('pkcs8', oid === OID_RSASSA_PSS ? asRsaEncryption(der) : der, algorithm, true, ['sign']);
  } catch (cause) {
    throw new SigningError('INVALID_PRIVATE_KEY', `The PKCS#8 private key could not be imported: ${(cause as Error).message}`, { cause });
  }
}

/**
 * WebCrypto only imports RSA keys labelled rsaEncryption; an id-RSASSA-PSS key holds the same RSAPrivateKey, so it
 * is relabelled (the key then signs with PSS, salt = hash length, whatever parameters the label restricted it to).
 */
function asRsaEncryption(pkcs8: Uint8Array): Uint8Array {
  const seq = asn1js.fromBER(pkcs8).result as asn1js.Sequence;
  const [version, , privateKey, ...rest] = seq.valueBlock.value;
  if (!version || !privateKey) throw new SigningError('INVALID_PRIVATE_KEY', 'The PKCS#8 RSA-PSS key is truncated.');
  const algorithm = new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: OID_RSA_ENCRYPTION }), new asn1js.Null()] });
  return new Uint8Array(new asn1js.Sequence({ value: [version, algorithm, privateKey, ...rest] }).toBER(false));
}

/** Minimal unsigned big-endian INTEGER content: strip leading zeros, prefix 0x00 when the top bit is set. */
function derInteger(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const body = bytes.subarray(start);
  return (body[0] ?? 0) & 0x80 ? Uint8Array.of(0, ...body) : Uint8Array.from(body);
}

/** Re-encodes WebCrypto's r||s ECDSA output as DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }`. */
export function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  if (raw.length === 0 || raw.length % 2 !== 0) {
    throw new SigningError('INVALID_ECDSA_SIGNATURE', `An r||s ECDSA signature has an even length; got ${raw.length} bytes.`, { origin: 'internal' });
  }
  const half = raw.length / 2;
  const seq = new asn1js.Sequence({
    value: [
      new asn1js.Integer({ valueHex: derInteger(raw.subarray(0, half)) }),
      new asn1js.Integer({ valueHex: derInteger(raw.subarray(half)) }),
    ],
  });
  return new Uint8Array(seq.toBER(false));
}

/**
 * Wraps a WebCrypto private key and its certificate chain (DER, signer first) as a `Signer`.
 * @example
 * const keys = await generateKeyPair('ecdsa-p256');
 * const signer = createSoftwareSigner({ privateKey: keys.privateKey, certificateChain: [certDer, caDer] });
 */
export function createSoftwareSigner(options: { privateKey: CryptoKey; certificateChain: readonly Uint8Array[] }): SoftwareSigner {
  const { privateKey } = options;
  const scheme = schemeOfKey(privateKey);
  if (options.certificateChain.length === 0) {
    throw new SigningError('MISSING_CERTIFICATE', 'A signer needs its certificate: the certificate chain is empty.');
  }
  const certificateChain = options.certificateChain.map((c) => Uint8Array.from(c));
  return {
    certificateChain,
    scheme,
    privateKey,
    pssParameters: pssParametersFor,
    async sign(toBeSigned: Uint8Array, hash: HashAlgorithm): Promise<Uint8Array> {
      let algorithm: webcrypto.Algorithm | RsaPssParams | EcdsaParams;
      if (scheme === 'ECDSA') algorithm = { name: 'ECDSA', hash };
      else if (scheme === 'RSA-PSS') algorithm = { name: 'RSA-PSS', saltLength: HASH_LENGTH[hash] };
      else algorithm = { name: 'RSASSA-PKCS1-v1_5' };
      // WebCrypto binds the hash to RSA keys at import; re-import under the requested hash when it differs.
      const key = scheme === 'ECDSA' ? privateKey : await keyForHash(privateKey, hash);
      const signature = new Uint8Array(await webcrypto.subtle.sign(algorithm, key, toBeSigned));
      return scheme === 'ECDSA' ? ecdsaRawToDer(signature) : signature;
    },
  };
}

const rehashed = new WeakMap<CryptoKey, Map<HashAlgorithm, CryptoKey>>();

/** The RSA key bound to `hash` (WebCrypto fixes the hash of an RSA key at generation/import). */
async function keyForHash(key: CryptoKey, hash: HashAlgorithm): Promise<CryptoKey> {
  const current = (key.algorithm as RsaHashedKeyAlgorithm).hash.name;
  if (current === hash) return key;
  let cache = rehashed.get(key);
  const cached = cache?.get(hash);
  if (cached) return cached;
  if (!key.extractable) {
    throw new SigningError('KEY_HASH_MISMATCH', `This RSA key is bound to ${current} and not extractable; import it again for ${hash}.`);
  }
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', key);
  const rebound = await webcrypto.subtle.importKey('pkcs8', pkcs8, { name: key.algorithm.name, hash }, false, ['sign']);
  if (!cache) rehashed.set(key, (cache = new Map()));
  cache.set(hash, rebound);
  return rebound;
}
