/**
 * The service's own keys (docs/design/signatures.md#signing-ca): an advanced signing CA (issues the
 * per-signature certificates of signers) and a seal CA with the organizational seal certificate under it. Created on
 * first start with the CA toolkit of src/pades/keys/ca.ts and kept in the store's settings (PEM certificate + PKCS#8
 * key), so every later start, and every process sharing the store, uses the same ones. A configured qualified seal
 * (PKCS#12 or PKCS#11) replaces the advanced seal for sealing; the CAs stay. With a master key the private keys are
 * stored sealed (`privateKeySealed`, purpose `setting:<key>.privateKeySealed`, as the rotation re-seals them); keys
 * stored in clear by an earlier version are sealed on the first start with a key. Keys kept in a PKCS#11 token
 * (`tokenKeys`) replace the stored signing CA and advanced seal: they never enter the process or the store.
 */
import { randomBytes } from 'node:crypto';
import { webcrypto } from 'node:crypto';
import { createRootCertificate, derToPem, issueCertificate, randomSerialNumber, type CertificateAuthority } from '../../pades/keys/ca.js';
import { createSoftwareSigner, generateKeyPair, importPkcs8Key, pemToDer, type KeyKind } from '../../pades/keys/software.js';
import type { Signer } from '../../pades/types.js';
import type { JsonValue } from '../../domain/transaction.js';
import type { Store } from '../../store/store.js';
import type { MasterKey } from '../../store/master-key.js';

/** Settings keys under which the keys are kept. */
export const KEY_SETTINGS = { signingCa: 'ca.signing', sealCa: 'ca.seal', seal: 'seal.advanced' } as const;

/** A certificate with its key, as kept in the settings. */
interface StoredKey {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

/** The keys the use cases sign with. */
export interface ServiceKeys {
  /** The advanced signing CA. */
  readonly signingCa: CertificateAuthority;
  readonly signingCaPem: string;
  readonly sealCaPem: string;
  /** Seals documents and receipts. */
  readonly sealSigner: Signer;
  /** Advanced: the service's own seal CA; qualified: a configured QSeal. */
  readonly sealLevel: 'advanced' | 'qualified';
  /**
   * The service's seal CA with its key, which issues each account's advanced seal certificate (account-seals.ts);
   * absent when the seal keys live in a PKCS#11 token: every account then seals with the token's seal.
   */
  readonly sealCa?: CertificateAuthority;
}

/** Options of {@link ensureServiceKeys}. */
export interface EnsureServiceKeysOptions {
  readonly store: Pick<Store, 'getSetting' | 'putSetting' | 'putSettingIfAbsent'>;
  /** Start of the certificates' validity (the injected clock). */
  readonly now: Date;
  /** Organization named by the seal certificate and shown in the seal's appearance. */
  readonly organizationName: string;
  /** Key type of new keys (default rsa-3072 for the CAs, rsa-2048 for the seal); tests pass ecdsa-p256 for speed. */
  readonly keyKind?: KeyKind;
  /** A qualified seal that replaces the advanced one. */
  readonly qualifiedSeal?: Signer;
  /** Seals the private keys at rest; without it they are stored in clear (library use, old tests). */
  readonly masterKey?: MasterKey;
  /**
   * Keys in a PKCS#11 token (`openPkcs11Signer`, certificate chain read from the token): the signing CA (its chain's
   * first certificate is the CA certificate) and the advanced seal (its chain ends with the seal CA). They take the
   * place of the stored ones, which are then neither created nor read.
   */
  readonly tokenKeys?: { readonly signingCa: Signer; readonly seal: Signer };
}

const YEAR_MS = 365.25 * 86_400_000;

/**
 * Loads the service keys from the store, creating whichever is missing. Returns whether anything was created.
 *
 * @example
 * const { keys } = await ensureServiceKeys({ store, now: clock(), organizationName: 'Acme B.V.' });
 */
export async function ensureServiceKeys(options: EnsureServiceKeysOptions): Promise<{ keys: ServiceKeys; created: boolean }> {
  const { store, now } = options;
  let created = false;
  const keyStore = storedKeys(store, options.masterKey);
  const load = async (key: string, make: () => Promise<StoredKey>): Promise<StoredKey> => {
    const loaded = await keyStore.load(key, make);
    if (loaded.created) created = true;
    return loaded.key;
  };
  const caKind = options.keyKind ?? 'rsa-3072';
  const leafKind = options.keyKind ?? 'rsa-2048';
  const org = options.organizationName;

  const token = options.tokenKeys;
  if (token) {
    const caCertificate = token.signingCa.certificateChain[0];
    const sealTop = token.seal.certificateChain.at(-1);
    if (caCertificate === undefined || sealTop === undefined) throw new Error('The PKCS#11 CA keys need their certificates on the token.');
    return {
      created,
      keys: {
        signingCa: { certificate: caCertificate, keySigner: token.signingCa },
        signingCaPem: derToPem(caCertificate, 'CERTIFICATE'),
        sealCaPem: derToPem(sealTop, 'CERTIFICATE'),
        sealSigner: options.qualifiedSeal ?? token.seal,
        sealLevel: options.qualifiedSeal ? 'qualified' : 'advanced',
      },
    };
  }
  const signingCa = await load(KEY_SETTINGS.signingCa, () => makeRoot(`${org} Advanced Signing CA`, org, caKind, now));
  const sealCa = await load(KEY_SETTINGS.sealCa, () => makeRoot(`${org} Seal CA`, org, caKind, now));
  const sealCaAuthority = await toAuthority(sealCa);
  const seal = await load(KEY_SETTINGS.seal, () => makeSeal(org, sealCaAuthority, leafKind, now));

  const sealSigner =
    options.qualifiedSeal ??
    createSoftwareSigner({
      privateKey: await importPkcs8Key(seal.privateKeyPem),
      certificateChain: [pemToDer(seal.certificatePem), pemToDer(sealCa.certificatePem)],
    });
  return {
    created,
    keys: {
      signingCa: await toAuthority(signingCa),
      signingCaPem: signingCa.certificatePem,
      sealCaPem: sealCa.certificatePem,
      sealSigner,
      sealLevel: options.qualifiedSeal ? 'qualified' : 'advanced',
      sealCa: sealCaAuthority,
    },
  };
}

/** Where an account's advanced seal is kept in the settings. */
function accountSealSetting(accountId: string): string {
  return `${KEY_SETTINGS.seal}.account.${accountId}`;
}

/** Options of {@link ensureAccountAdvancedSeal}. */
export interface AccountAdvancedSealOptions {
  readonly store: Pick<Store, 'getSetting' | 'putSetting' | 'putSettingIfAbsent'>;
  readonly masterKey?: MasterKey;
  readonly sealCa: CertificateAuthority;
  readonly sealCaPem: string;
  readonly accountId: string;
  /** The account's organisation, named by the certificate (O and CN). */
  readonly organizationName: string;
  readonly now: Date;
  readonly keyKind?: KeyKind;
}

/**
 * The account's advanced seal: a key and a certificate naming the account's organisation, issued by the service's
 * seal CA on first need and kept in the settings (sealed like the service's keys); processes issuing at once agree on
 * the first one stored. A later change of the account's name does not re-issue it (a certificate is not renamed).
 */
export async function ensureAccountAdvancedSeal(options: AccountAdvancedSealOptions): Promise<Signer> {
  const { key } = await storedKeys(options.store, options.masterKey).load(accountSealSetting(options.accountId), () =>
    makeSeal(options.organizationName, options.sealCa, options.keyKind ?? 'rsa-2048', options.now),
  );
  return createSoftwareSigner({
    privateKey: await importPkcs8Key(key.privateKeyPem),
    certificateChain: [pemToDer(key.certificatePem), pemToDer(options.sealCaPem)],
  });
}

/** Keys kept in the settings, their private keys sealed with the master key when there is one. */
function storedKeys(store: Pick<Store, 'getSetting' | 'putSetting' | 'putSettingIfAbsent'>, masterKey: MasterKey | undefined) {
  const field = 'privateKeySealed';
  const encode = (key: string, value: StoredKey): JsonValue =>
    masterKey === undefined
      ? { certificatePem: value.certificatePem, privateKeyPem: value.privateKeyPem }
      : { certificatePem: value.certificatePem, [field]: masterKey.seal(value.privateKeyPem, `setting:${key}.${field}`) };
  /** The stored key, opened; undefined when there is none. */
  const decode = (key: string, stored: JsonValue | undefined): StoredKey | undefined => {
    if (isSealedKey(stored)) {
      if (masterKey === undefined) throw new Error(`The service key ${key} is sealed: start with the data directory's master key.`);
      return { certificatePem: stored.certificatePem, privateKeyPem: masterKey.open(stored.privateKeySealed, `setting:${key}.${field}`) };
    }
    return isStoredKey(stored) ? stored : undefined;
  };
  return {
    async load(key: string, make: () => Promise<StoredKey>): Promise<{ key: StoredKey; created: boolean }> {
      const existing = await store.getSetting(key);
      const opened = decode(key, existing);
      if (opened !== undefined) {
        if (masterKey !== undefined && !isSealedKey(existing)) await store.putSetting(key, encode(key, opened));
        return { key: opened, created: false };
      }
      // Processes starting at once on an empty shared database each make a key: the first stored wins, the others
      // use it (and drop theirs), so every process signs under the same CA.
      const fresh = await make();
      const winner = decode(key, await store.putSettingIfAbsent(key, encode(key, fresh)));
      if (winner === undefined) throw new Error(`The service key ${key} is stored in a form this paraph does not read.`);
      return { key: winner, created: winner.certificatePem === fresh.certificatePem };
    },
  };
}

async function makeSeal(organization: string, issuer: CertificateAuthority, kind: KeyKind, now: Date): Promise<StoredKey> {
  const pair = await generateKeyPair(kind);
  const certificate = await issueCertificate({
    profile: 'seal',
    subject: { organization, commonName: organization },
    publicKey: pair.publicKey,
    issuer,
    serialNumber: randomSerialNumber(randomBytes),
    notBefore: now,
    notAfter: new Date(now.getTime() + 3 * YEAR_MS),
  });
  return { certificatePem: derToPem(certificate, 'CERTIFICATE'), privateKeyPem: await exportPkcs8Pem(pair.privateKey) };
}

function isSealedKey(value: unknown): value is { certificatePem: string; privateKeySealed: string } {
  const v = value as { certificatePem?: unknown; privateKeySealed?: unknown } | undefined;
  return typeof v === 'object' && v !== null && typeof v.certificatePem === 'string' && typeof v.privateKeySealed === 'string';
}

function isStoredKey(value: unknown): value is StoredKey {
  const v = value as Partial<StoredKey> | undefined;
  return typeof v === 'object' && v !== null && typeof v.certificatePem === 'string' && typeof v.privateKeyPem === 'string';
}

async function makeRoot(commonName: string, organization: string, kind: KeyKind, now: Date): Promise<StoredKey> {
  const pair = await generateKeyPair(kind);
  const certificate = await createRootCertificate({
    subject: { organization, commonName },
    keyPair: pair,
    serialNumber: randomSerialNumber(randomBytes),
    notBefore: now,
    notAfter: new Date(now.getTime() + 20 * YEAR_MS),
  });
  return { certificatePem: derToPem(certificate, 'CERTIFICATE'), privateKeyPem: await exportPkcs8Pem(pair.privateKey) };
}

async function toAuthority(stored: StoredKey): Promise<CertificateAuthority> {
  return { certificate: pemToDer(stored.certificatePem), privateKey: await importPkcs8Key(stored.privateKeyPem) };
}

async function exportPkcs8Pem(key: webcrypto.CryptoKey): Promise<string> {
  return derToPem(new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', key)), 'PRIVATE KEY');
}
