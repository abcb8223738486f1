/**
 * Bounds on the work a PKCS#12 file may ask for. A PKCS#12 file states its own key-derivation iteration counts (its
 * MAC, each encrypted part and each encrypted key), and node-forge runs them in JavaScript on the calling thread:
 * a hostile file stating millions of iterations would hold that thread for seconds or minutes. The counts and the
 * structure in clear are read with asn1js before forge runs; what hides inside encrypted parts is checked as forge
 * derives each key ({@link guardForgeKeyDerivation}).
 */
import * as asn1js from 'asn1js';
import { SigningError } from '../../errors.js';

/** Limits on what opening a PKCS#12 file may cost. */
export interface Pkcs12Limits {
  /**
   * The largest iteration count one key derivation may state (the MAC, an encrypted part, an encrypted key). Default
   * 100,000: the defaults of the tools that write PKCS#12 files are 2,048 (OpenSSL 1.x and 3.x) to 10,000 (Java's
   * keytool; Windows and macOS exports use about 2,000).
   */
  readonly maxIterations?: number;
  /** The most iterations of all key derivations of the file together. Default 200,000. */
  readonly maxTotalIterations?: number;
}

const DEFAULT_PKCS12_LIMITS: Required<Pkcs12Limits> = { maxIterations: 100_000, maxTotalIterations: 200_000 };

/** Safe bags in the file at most (a key store holds a key and its chain). */
const MAX_BAGS = 64;
/** Parts (ContentInfos) of the file at most. */
const MAX_PARTS = 16;
/** Safe contents nested in one another (safeContentsBag) at most. */
const MAX_NESTING = 4;

const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  pkcs8ShroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  safeContentsBag: '1.2.840.113549.1.12.10.1.6',
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
} as const;
/** PKCS#12 PBE (1.2.840.113549.1.12.1.x) and PBES1 (1.2.840.113549.1.5.x but PBES2/PBKDF2): params {salt, iterations}. */
const SALT_AND_COUNT = /^1\.2\.840\.113549\.1\.(?:12\.1\.\d+|5\.(?:1|3|4|6|10|11))$/;

const REEXPORT =
  'Export it again with fewer iterations, e.g. with OpenSSL: `openssl pkcs12 -in seal.p12 -nodes -out seal.pem`, then ' +
  '`openssl pkcs12 -export -in seal.pem -out seal-new.p12 -iter 2048` (2,048 is OpenSSL\'s default), and delete seal.pem.';

function resolved(limits: Pkcs12Limits): Required<Pkcs12Limits> {
  const out = { maxIterations: limits.maxIterations ?? DEFAULT_PKCS12_LIMITS.maxIterations, maxTotalIterations: limits.maxTotalIterations ?? DEFAULT_PKCS12_LIMITS.maxTotalIterations };
  for (const [name, value] of Object.entries(out)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`Pkcs12Limits.${name} must be a whole number ≥ 1, got ${String(value)}`);
  }
  return out;
}

function invalid(why: string): SigningError {
  return new SigningError('PKCS12_INVALID', `The file is not a PKCS#12 (.p12/.pfx) key store: ${why}.`);
}

function tooComplex(why: string): SigningError {
  return new SigningError('PKCS12_TOO_COMPLEX', `The PKCS#12 file is refused: ${why}. A key store holds a key and its certificate chain; export only the seal's key and chain.`);
}

/** Counts the iterations of the key derivations of one file against the limits. */
class IterationBudget {
  private total = 0;

  constructor(private readonly limits: Required<Pkcs12Limits>) {}

  spend(count: number, what: string): void {
    if (count > this.limits.maxIterations) {
      throw new SigningError(
        'PKCS12_TOO_COSTLY',
        `The PKCS#12 file asks for ${count.toLocaleString('en')} key-derivation iterations for ${what}, more than the ${this.limits.maxIterations.toLocaleString('en')} allowed. ${REEXPORT}`,
      );
    }
    this.total += count;
    if (this.total > this.limits.maxTotalIterations) {
      throw new SigningError(
        'PKCS12_TOO_COSTLY',
        `The PKCS#12 file asks for more than ${this.limits.maxTotalIterations.toLocaleString('en')} key-derivation iterations in all. ${REEXPORT}`,
      );
    }
  }
}

function children(node: asn1js.AsnType | undefined, what: string): asn1js.AsnType[] {
  if (!(node instanceof asn1js.Sequence) && !(node instanceof asn1js.Set)) throw invalid(`${what} is not a SEQUENCE`);
  return node.valueBlock.value;
}

function oidOf(node: asn1js.AsnType | undefined, what: string): string {
  if (!(node instanceof asn1js.ObjectIdentifier)) throw invalid(`${what} has no object identifier`);
  return node.valueBlock.toString();
}

/** The content of an `[0] EXPLICIT` wrapper. */
function explicit(node: asn1js.AsnType | undefined, what: string): asn1js.AsnType {
  const inner = node instanceof asn1js.Constructed && node.idBlock.tagClass === 3 && node.idBlock.tagNumber === 0 ? node.valueBlock.value[0] : undefined;
  if (inner === undefined) throw invalid(`${what} has no [0] content`);
  return inner;
}

/** The bytes of an OCTET STRING, primitive or constructed (BER allows both). */
function octets(node: asn1js.AsnType | undefined, what: string, depth = 0): Uint8Array {
  if (!(node instanceof asn1js.OctetString) || depth > 8) throw invalid(`${what} is not an OCTET STRING`);
  if (!node.valueBlock.isConstructed) return node.valueBlock.valueHexView;
  return Buffer.concat(node.valueBlock.value.map((part) => octets(part, what, depth + 1)));
}

function count(node: asn1js.AsnType | undefined, what: string): number {
  if (!(node instanceof asn1js.Integer)) throw invalid(`${what} has no iteration count`);
  const value = node.toBigInt();
  if (value < 1n) throw invalid(`${what} states ${value} iterations`);
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

function parse(bytes: Uint8Array, what: string): asn1js.AsnType {
  let parsed: ReturnType<typeof asn1js.fromBER>;
  try {
    parsed = asn1js.fromBER(bytes);
  } catch (cause) {
    throw invalid(`${what} could not be read (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  const { offset, result } = parsed;
  if (offset === -1 || result.error) throw invalid(`${what} is not valid DER (${result.error || 'unreadable'})`);
  return result;
}

/** Spends the iterations an encryption AlgorithmIdentifier states (PKCS#12 PBE, PBES1, PBES2 with PBKDF2). */
function spendAlgorithm(node: asn1js.AsnType | undefined, what: string, budget: IterationBudget): void {
  const [algorithm, params] = children(node, `the encryption of ${what}`);
  const oid = oidOf(algorithm, `the encryption of ${what}`);
  if (SALT_AND_COUNT.test(oid)) {
    budget.spend(count(children(params, `the encryption parameters of ${what}`)[1], `the encryption of ${what}`), what);
  } else if (oid === OID.pbes2) {
    const [kdf] = children(params, `the PBES2 parameters of ${what}`);
    const [kdfOid, kdfParams] = children(kdf, `the key derivation of ${what}`);
    if (oidOf(kdfOid, `the key derivation of ${what}`) !== OID.pbkdf2) throw invalid(`${what} is encrypted with a key derivation other than PBKDF2`);
    budget.spend(count(children(kdfParams, `the PBKDF2 parameters of ${what}`)[1], `the encryption of ${what}`), what);
  }
  // Another algorithm: forge refuses it; whatever it runs is checked by the guard around forge's derivations.
}

interface Walk {
  readonly budget: IterationBudget;
  bags: number;
}

function walkSafeContents(node: asn1js.AsnType, depth: number, walk: Walk): void {
  if (depth > MAX_NESTING) throw tooComplex(`its bags are nested more than ${MAX_NESTING} deep`);
  for (const bag of children(node, 'a SafeContents')) {
    walk.bags += 1;
    if (walk.bags > MAX_BAGS) throw tooComplex(`it holds more than ${MAX_BAGS} bags`);
    const [bagId, value] = children(bag, 'a SafeBag');
    const id = oidOf(bagId, 'a SafeBag');
    if (id === OID.pkcs8ShroudedKeyBag) spendAlgorithm(children(explicit(value, 'a key bag'), 'an encrypted key')[0], 'a private key', walk.budget);
    else if (id === OID.safeContentsBag) walkSafeContents(explicit(value, 'a nested SafeContents'), depth + 1, walk);
  }
}

/**
 * Checks what `bytes` states in clear before any key is derived: the iteration counts of its MAC, of its encrypted
 * parts and of the encrypted keys in its clear parts, and its structure (parts, bags, nesting).
 * @throws SigningError `PKCS12_INVALID`, `PKCS12_TOO_COSTLY`, `PKCS12_TOO_COMPLEX`
 */
export function checkPkcs12Cost(bytes: Uint8Array, limits: Pkcs12Limits = {}): void {
  const budget = new IterationBudget(resolved(limits));
  const [version, authSafe, macData] = children(parse(bytes, 'the file'), 'the file');
  if (!(version instanceof asn1js.Integer)) throw invalid('it has no version');
  const [contentType, content] = children(authSafe, 'its content');
  if (oidOf(contentType, 'its content') !== OID.data) throw invalid('its content is not password-protected data (public-key integrity is not supported)');
  if (macData !== undefined) {
    const [, , iterations] = children(macData, 'its MAC');
    budget.spend(iterations === undefined ? 1 : count(iterations, 'its MAC'), 'its MAC');
  }
  const parts = children(parse(octets(explicit(content, 'its content'), 'its content'), 'its content'), 'its content');
  if (parts.length > MAX_PARTS) throw tooComplex(`it has more than ${MAX_PARTS} parts`);
  const walk: Walk = { budget, bags: 0 };
  for (const part of parts) {
    const [partType, partContent] = children(part, 'a part');
    const type = oidOf(partType, 'a part');
    if (type === OID.data) walkSafeContents(parse(octets(explicit(partContent, 'a part'), 'a part'), 'a part'), 1, walk);
    else if (type === OID.encryptedData) {
      const [, encryptedContentInfo] = children(explicit(partContent, 'an encrypted part'), 'an encrypted part');
      spendAlgorithm(children(encryptedContentInfo, 'an encrypted part')[1], 'an encrypted part', budget);
    }
  }
}

/** The node-forge functions that derive keys from the password, by the names forge calls them through. */
type Derive = (...args: unknown[]) => unknown;
export interface ForgeKeyDerivation {
  pkcs12: { generateKey: Derive };
  pki: { pbe: { generatePkcs12Key: Derive } };
  pkcs5: { pbkdf2: Derive };
}

/**
 * Runs `open` (a synchronous forge call) with each of forge's key derivations checked against `limits` before it
 * runs: the counts inside encrypted parts become visible only as forge decrypts them. A PKCS#12 key and IV derivation
 * (ids 1 and 2) state one count, spent once.
 * @throws SigningError `PKCS12_TOO_COSTLY`
 */
export function guardForgeKeyDerivation<T>(forge: ForgeKeyDerivation, limits: Pkcs12Limits, open: () => T): T {
  const budget = new IterationBudget(resolved(limits));
  const mac = forge.pkcs12.generateKey;
  const pkcs12Key = forge.pki.pbe.generatePkcs12Key;
  const pbkdf2 = forge.pkcs5.pbkdf2;
  const iterations = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : Number.MAX_SAFE_INTEGER);
  forge.pkcs12.generateKey = (...args: unknown[]) => {
    budget.spend(iterations(args[3]), 'its MAC');
    return Reflect.apply(mac, forge.pkcs12, args);
  };
  forge.pki.pbe.generatePkcs12Key = (...args: unknown[]) => {
    if (args[2] !== 2) budget.spend(iterations(args[3]), 'an encrypted part or key');
    return Reflect.apply(pkcs12Key, forge.pki.pbe, args);
  };
  forge.pkcs5.pbkdf2 = (...args: unknown[]) => {
    budget.spend(iterations(args[2]), 'an encrypted part or key');
    return Reflect.apply(pbkdf2, forge.pkcs5, args);
  };
  try {
    return open();
  } finally {
    forge.pkcs12.generateKey = mac;
    forge.pki.pbe.generatePkcs12Key = pkcs12Key;
    forge.pkcs5.pbkdf2 = pbkdf2;
  }
}
