/**
 * PKCS#11 tokens and HSMs as `Signer`s (a qualified seal on a token,
 * docs/design/signatures.md#qualified-seal), through `pkcs11js`. The key never leaves the token: RSA signs with
 * CKM_SHA*_RSA_PKCS or CKM_SHA*_RSA_PKCS_PSS (MGF1 with the same hash, salt = hash length), ECDSA with CKM_ECDSA over a
 * digest computed here, its r||s output re-encoded as DER (PKCS#11 v2.40 §2.3.1). The certificate comes from the token
 * (same CKA_ID, else same CKA_LABEL as the key) or is handed in. Keys marked CKA_ALWAYS_AUTHENTICATE get the PIN again
 * (context-specific login) for every signature.
 */
import { createHash } from 'node:crypto';
import type pkcs11jsModule from 'pkcs11js';
import { SigningError } from '../../errors.js';
import { lazyNativeModule } from '../../load-native-module.js';
import type { HashAlgorithm, SignatureScheme, Signer } from '../types.js';
import { orderCertificateChain } from './certificate-chain.js';
import { ecdsaRawToDer } from './software.js';

/** Options of `openPkcs11Signer`. Give `tokenLabel` or `slotIndex`, and `keyLabel` and/or `keyId`. */
export interface Pkcs11SignerOptions {
  /** Path of the PKCS#11 module, e.g. `/usr/lib/softhsm/libsofthsm2.so`. */
  readonly modulePath: string;
  /** Label of the token to use. */
  readonly tokenLabel?: string;
  /** Index in the list of slots that hold a token (0-based), when no label is given. */
  readonly slotIndex?: number;
  /** User PIN. */
  readonly pin: string;
  /** CKA_LABEL of the private key. */
  readonly keyLabel?: string;
  /** CKA_ID of the private key (bytes or hex). */
  readonly keyId?: Uint8Array | string;
  /** DER chain, signer first; by default the key's certificate and its issuers are read from the token. */
  readonly certificateChain?: readonly Uint8Array[];
  /** Sign with RSA-PSS instead of PKCS#1 v1.5 (RSA keys only). */
  readonly scheme?: SignatureScheme;
}

/** A signer on a PKCS#11 token; `close()` logs out and releases the session (and the module when last). */
export interface Pkcs11Signer extends Signer {
  close(): Promise<void>;
}

type Pkcs11js = typeof pkcs11jsModule;

/** pkcs11js is a native addon without prebuilt binaries: loaded on the first `openPkcs11Signer`, never by `import 'paraph'`. */
const loadPkcs11js = lazyNativeModule<Pkcs11js>('pkcs11js', 'PKCS#11 signing', async () => (await import('pkcs11js')).default);

function rsaMechanism(pkcs11js: Pkcs11js, hash: HashAlgorithm): number {
  return { 'SHA-256': pkcs11js.CKM_SHA256_RSA_PKCS, 'SHA-384': pkcs11js.CKM_SHA384_RSA_PKCS, 'SHA-512': pkcs11js.CKM_SHA512_RSA_PKCS }[hash];
}

function pssMechanism(pkcs11js: Pkcs11js, hash: HashAlgorithm): [mechanism: number, hash: number, mgf: number, salt: number] {
  const table: Record<HashAlgorithm, [number, number, number, number]> = {
    'SHA-256': [pkcs11js.CKM_SHA256_RSA_PKCS_PSS, pkcs11js.CKM_SHA256, pkcs11js.CKG_MGF1_SHA256, 32],
    'SHA-384': [pkcs11js.CKM_SHA384_RSA_PKCS_PSS, pkcs11js.CKM_SHA384, pkcs11js.CKG_MGF1_SHA384, 48],
    'SHA-512': [pkcs11js.CKM_SHA512_RSA_PKCS_PSS, pkcs11js.CKM_SHA512, pkcs11js.CKG_MGF1_SHA512, 64],
  };
  return table[hash];
}

/** One loaded module, shared by every signer on it: C_Initialize once, C_Finalize when the last one closes. */
interface LoadedModule {
  readonly pkcs11: pkcs11jsModule.PKCS11;
  users: number;
}
const modules = new Map<string, LoadedModule>();

function acquireModule(pkcs11js: Pkcs11js, modulePath: string): LoadedModule {
  const existing = modules.get(modulePath);
  if (existing) {
    existing.users++;
    return existing;
  }
  const pkcs11 = new pkcs11js.PKCS11();
  try {
    pkcs11.load(modulePath);
  } catch (cause) {
    throw new SigningError('PKCS11_MODULE_NOT_LOADED', `The PKCS#11 module ${modulePath} could not be loaded: ${(cause as Error).message}. Check the path.`, { cause });
  }
  try {
    pkcs11.C_Initialize();
  } catch (cause) {
    if (!/CKR_CRYPTOKI_ALREADY_INITIALIZED/.test((cause as Error).message)) {
      throw new SigningError('PKCS11_INIT_FAILED', `The PKCS#11 module ${modulePath} failed to initialize: ${(cause as Error).message}.`, { cause, origin: 'internal' });
    }
  }
  const loaded = { pkcs11, users: 1 };
  modules.set(modulePath, loaded);
  return loaded;
}

function releaseModule(modulePath: string): void {
  const loaded = modules.get(modulePath);
  if (!loaded) return;
  loaded.users--;
  if (loaded.users > 0) return;
  modules.delete(modulePath);
  try {
    loaded.pkcs11.C_Finalize();
  } finally {
    loaded.pkcs11.close();
  }
}

function findSlot(pkcs11: pkcs11jsModule.PKCS11, options: Pkcs11SignerOptions): pkcs11jsModule.Handle {
  const slots = pkcs11.C_GetSlotList(true);
  if (options.tokenLabel !== undefined) {
    const labels: string[] = [];
    for (const slot of slots) {
      const label = pkcs11.C_GetTokenInfo(slot).label.trim();
      if (label === options.tokenLabel) return slot;
      labels.push(`"${label}"`);
    }
    throw new SigningError('PKCS11_TOKEN_NOT_FOUND', `No PKCS#11 token is labelled "${options.tokenLabel}"; tokens present: ${labels.join(', ') || 'none'}.`);
  }
  const index = options.slotIndex ?? 0;
  const slot = slots[index];
  if (!slot) throw new SigningError('PKCS11_TOKEN_NOT_FOUND', `There is no token in slot index ${index}: ${slots.length} slot(s) hold a token.`);
  return slot;
}

function findObjects(pkcs11: pkcs11jsModule.PKCS11, session: pkcs11jsModule.Handle, template: pkcs11jsModule.Template): pkcs11jsModule.Handle[] {
  pkcs11.C_FindObjectsInit(session, template);
  try {
    return pkcs11.C_FindObjects(session, 100);
  } finally {
    pkcs11.C_FindObjectsFinal(session);
  }
}

function attribute(pkcs11: pkcs11jsModule.PKCS11, session: pkcs11jsModule.Handle, object: pkcs11jsModule.Handle, type: number): Buffer | undefined {
  try {
    const [attr] = pkcs11.C_GetAttributeValue(session, object, [{ type }]);
    return attr?.value instanceof Buffer ? attr.value : undefined;
  } catch {
    return undefined;
  }
}

function keyIdBytes(id: Uint8Array | string): Buffer {
  return typeof id === 'string' ? Buffer.from(id.replace(/[^0-9a-f]/gi, ''), 'hex') : Buffer.from(id);
}

/**
 * Opens a session on the token, logs in and finds the key (and its certificate). Throws SigningError with
 * `PKCS11_MODULE_NOT_LOADED`, `PKCS11_TOKEN_NOT_FOUND`, `PKCS11_LOGIN_FAILED` (wrong PIN), `PKCS11_KEY_NOT_FOUND`,
 * `PKCS11_KEY_AMBIGUOUS` or `PKCS11_CERTIFICATE_NOT_FOUND`.
 * @example
 * const signer = await openPkcs11Signer({ modulePath: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'seal',
 *   pin: process.env.SEAL_PIN!, keyLabel: 'seal' });
 * try { await sealPdf(pdf, { signer, ... }); } finally { await signer.close(); }
 */
export async function openPkcs11Signer(options: Pkcs11SignerOptions): Promise<Pkcs11Signer> {
  const pkcs11js = await loadPkcs11js();
  const { pkcs11 } = acquireModule(pkcs11js, options.modulePath);
  let session: pkcs11jsModule.Handle | undefined;
  const closeSession = (): void => {
    if (session) {
      try {
        pkcs11.C_CloseSession(session);
      } catch {
        // The session may already be gone (token removed); releasing the module is what matters.
      }
      session = undefined;
    }
    releaseModule(options.modulePath);
  };
  try {
    const slot = findSlot(pkcs11, options);
    session = pkcs11.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION);
    try {
      pkcs11.C_Login(session, pkcs11js.CKU_USER, options.pin);
    } catch (cause) {
      const message = (cause as Error).message;
      if (!/CKR_USER_ALREADY_LOGGED_IN/.test(message)) {
        const code = /CKR_PIN_INCORRECT|CKR_PIN_LEN_RANGE/.test(message) ? 'the PIN is wrong' : message;
        throw new SigningError('PKCS11_LOGIN_FAILED', `Logging in to the PKCS#11 token failed: ${code}.`, { cause });
      }
    }
    const template: pkcs11jsModule.Template = [{ type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY }];
    if (options.keyLabel !== undefined) template.push({ type: pkcs11js.CKA_LABEL, value: options.keyLabel });
    if (options.keyId !== undefined) template.push({ type: pkcs11js.CKA_ID, value: keyIdBytes(options.keyId) });
    const keys = findObjects(pkcs11, session, template);
    const wanted = options.keyLabel !== undefined ? `labelled "${options.keyLabel}"` : options.keyId !== undefined ? `with id ${keyIdBytes(options.keyId).toString('hex')}` : 'at all';
    if (keys.length === 0) throw new SigningError('PKCS11_KEY_NOT_FOUND', `The token has no private key ${wanted}.`);
    if (keys.length > 1) throw new SigningError('PKCS11_KEY_AMBIGUOUS', `The token has ${keys.length} private keys ${wanted}; give keyLabel or keyId to pick one.`);
    const key = keys[0] as pkcs11jsModule.Handle;
    const keyType = attribute(pkcs11, session, key, pkcs11js.CKA_KEY_TYPE)?.readUInt32LE(0);
    // Keys of qualified signature devices often demand the PIN again for every signature (PKCS#11 v2.40 §4.9).
    const alwaysAuthenticate = attribute(pkcs11, session, key, pkcs11js.CKA_ALWAYS_AUTHENTICATE)?.[0] === 1;
    let scheme: SignatureScheme;
    if (keyType === pkcs11js.CKK_EC) {
      if (options.scheme !== undefined && options.scheme !== 'ECDSA') throw new SigningError('KEY_SCHEME_MISMATCH', `The token key is an EC key; scheme "${options.scheme}" needs an RSA key.`);
      scheme = 'ECDSA';
    } else if (keyType === pkcs11js.CKK_RSA) {
      if (options.scheme === 'ECDSA') throw new SigningError('KEY_SCHEME_MISMATCH', 'The token key is an RSA key; scheme "ECDSA" needs an EC key.');
      scheme = options.scheme ?? 'RSASSA-PKCS1-v1_5';
    } else {
      throw new SigningError('UNSUPPORTED_KEY_ALGORITHM', `The token key has key type ${String(keyType)}; only RSA and EC keys can sign PDFs.`);
    }
    const certificateChain = options.certificateChain?.map((c) => Uint8Array.from(c)) ?? readChain(pkcs11js, pkcs11, session, key);
    if (certificateChain.length === 0) throw new SigningError('MISSING_CERTIFICATE', 'A signer needs its certificate: the certificate chain is empty.');

    const openSession = session;
    let queue: Promise<unknown> = Promise.resolve();
    const signOnce = async (toBeSigned: Uint8Array, hash: HashAlgorithm): Promise<Uint8Array> => {
      let mechanism: pkcs11jsModule.Mechanism;
      let input: Buffer;
      if (scheme === 'ECDSA') {
        mechanism = { mechanism: pkcs11js.CKM_ECDSA };
        input = createHash(hash.replace('-', '').toLowerCase()).update(toBeSigned).digest();
      } else if (scheme === 'RSA-PSS') {
        const [pss, hashAlg, mgf, saltLen] = pssMechanism(pkcs11js, hash);
        mechanism = { mechanism: pss, parameter: { type: pkcs11js.CK_PARAMS_RSA_PSS, hashAlg, mgf, saltLen } as pkcs11jsModule.RsaPSS };
        input = Buffer.from(toBeSigned);
      } else {
        mechanism = { mechanism: rsaMechanism(pkcs11js, hash) };
        input = Buffer.from(toBeSigned);
      }
      pkcs11.C_SignInit(openSession, mechanism, key);
      if (alwaysAuthenticate) pkcs11.C_Login(openSession, pkcs11js.CKU_CONTEXT_SPECIFIC, options.pin);
      const signature = await pkcs11.C_SignAsync(openSession, input, Buffer.alloc(1024));
      return scheme === 'ECDSA' ? ecdsaRawToDer(new Uint8Array(signature)) : new Uint8Array(signature);
    };
    let closed = false;
    return {
      certificateChain,
      scheme,
      sign(toBeSigned: Uint8Array, hash: HashAlgorithm): Promise<Uint8Array> {
        if (closed) return Promise.reject(new SigningError('PKCS11_CLOSED', 'This PKCS#11 signer was closed; open it again.'));
        // One operation at a time per session (PKCS#11 §5.2): chain the calls.
        const result = queue.then(() => signOnce(toBeSigned, hash));
        queue = result.catch(() => undefined);
        return result.catch((cause: unknown) => {
          throw cause instanceof SigningError ? cause : new SigningError('PKCS11_SIGN_FAILED', `The PKCS#11 token failed to sign: ${(cause as Error).message}.`, { cause, origin: 'internal' });
        });
      },
      async close(): Promise<void> {
        if (closed) return;
        closed = true;
        await queue;
        try {
          pkcs11.C_Logout(openSession);
        } catch {
          // Logging out fails when another session of this process already did; closing still releases it.
        }
        closeSession();
      },
    };
  } catch (error) {
    closeSession();
    throw error;
  }
}

/** The key's certificate (same CKA_ID, else same CKA_LABEL) followed by the issuers found on the token. */
function readChain(pkcs11js: Pkcs11js, pkcs11: pkcs11jsModule.PKCS11, session: pkcs11jsModule.Handle, key: pkcs11jsModule.Handle): Uint8Array[] {
  const all = findObjects(pkcs11, session, [{ type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_CERTIFICATE }]).map((handle) => ({
    der: attribute(pkcs11, session, handle, pkcs11js.CKA_VALUE),
    id: attribute(pkcs11, session, handle, pkcs11js.CKA_ID),
    label: attribute(pkcs11, session, handle, pkcs11js.CKA_LABEL)?.toString('utf8'),
  }));
  const keyId = attribute(pkcs11, session, key, pkcs11js.CKA_ID);
  const keyLabel = attribute(pkcs11, session, key, pkcs11js.CKA_LABEL)?.toString('utf8');
  const leaf =
    (keyId && keyId.length > 0 ? all.find((c) => c.id?.equals(keyId)) : undefined) ?? (keyLabel ? all.find((c) => c.label === keyLabel) : undefined);
  if (!leaf?.der) {
    throw new SigningError('PKCS11_CERTIFICATE_NOT_FOUND', 'The token holds no certificate with the key\'s CKA_ID or label; store it on the token or hand in certificateChain.');
  }
  const others = all.filter((c) => c !== leaf && c.der).map((c) => new Uint8Array(c.der as Buffer));
  return orderCertificateChain(new Uint8Array(leaf.der), others);
}
