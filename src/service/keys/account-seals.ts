/**
 * The seal of each account (docs/design/accounts.md#seals): the account's own qualified seal when one is configured
 * (a PKCS#12 file or a PKCS#11 key, kept in the account's data with its secrets sealed by the master key), else the
 * environment's qualified seal when one is configured, else the account's advanced seal, whose certificate names the
 * account's organisation (issued by the service's seal CA on first need). The bootstrap account, and every account
 * when the seal keys live in a token, keep the environment's seal. Opened keys are kept per process; a new
 * configuration (a new `QualifiedSeal.Id`) is opened at the next seal, on every process sharing the store.
 */
import { X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { Account, AccountQualifiedSeal } from '../../domain/account.js';
import { derToPem } from '../../pades/keys/ca.js';
import type { KeyKind } from '../../pades/keys/software.js';
import { openPkcs11Signer } from '../../pades/keys/pkcs11.js';
import type { Signer } from '../../pades/types.js';
import type { MasterKey } from '../../store/master-key.js';
import { SEAL_PURPOSE } from '../../store/sealed-secrets.js';
import type { Store } from '../../store/store.js';
import { openPkcs12OffThread } from './pkcs12-thread.js';
import { ensureAccountAdvancedSeal, type ServiceKeys } from './service-keys.js';
import { ServiceError } from '../service-error.js';

/** The seal an account's documents and receipts are sealed with. */
export interface AccountSeal {
  readonly signer: Signer;
  readonly level: 'advanced' | 'qualified';
  /** The certificate a relying party trusts for it (the top of its chain), PEM. */
  readonly trustPem: string;
  /** Its certificate chain, the seal certificate first, PEM. */
  readonly chainPem: string;
  /** The organisation it seals for, named on the receipt: the account's, or PARAPH_ORGANIZATION for the environment's. */
  readonly organization: string;
}

/** A signer that may hold a token session. */
type OpenedSigner = Signer & { close?: () => Promise<void> };

/** What {@link AccountSeals} works with. */
export interface AccountSealsDeps {
  readonly store: Pick<Store, 'getAccount' | 'getSetting' | 'putSetting' | 'putSettingIfAbsent'>;
  readonly clock: () => Date;
  readonly keys: ServiceKeys;
  readonly masterKey?: MasterKey;
  /** The account that keeps the environment's seal. */
  readonly bootstrapAccountId?: string;
  /** The organisation of the environment's seal (PARAPH_ORGANIZATION). */
  readonly organizationName: string;
  /** Key type of new advanced seal keys (tests pass ecdsa-p256 for speed). */
  readonly keyKind?: KeyKind;
}

/** The seal of `signer`, its chain completed with `trustPem` when the chain does not end with it. */
function sealOf(signer: Signer, level: AccountSeal['level'], organization: string, trustPem?: string): AccountSeal {
  const chain = signer.certificateChain.map((der) => derToPem(der, 'CERTIFICATE'));
  const top = chain.at(-1);
  if (top === undefined) throw new Error('The seal signer has no certificate.');
  const completed = trustPem !== undefined && trustPem.trim() !== top.trim() ? [...chain, trustPem] : chain;
  return { signer, level, organization, trustPem: completed.at(-1) ?? top, chainPem: completed.map((pem) => (pem.endsWith('\n') ? pem : `${pem}\n`)).join('') };
}

/** The environment's seal (PARAPH_QSEAL_* or the service's advanced seal). */
export function environmentSeal(keys: ServiceKeys, organizationName: string): AccountSeal {
  return sealOf(keys.sealSigner, keys.sealLevel, organizationName, keys.sealCaPem);
}

/** The seals of the accounts, opened on first need and kept for the process's life. */
export class AccountSeals {
  private readonly opened = new Map<string, { readonly version: string; readonly seal: Promise<AccountSeal & { close?: () => Promise<void> }> }>();
  /** Keys of replaced configurations: jobs may still be using them, so they are closed with the service. */
  private readonly retired: Promise<{ close?: () => Promise<void> }>[] = [];

  constructor(private readonly deps: AccountSealsDeps) {}

  /** The seal of the account `accountId` now. */
  async forAccount(accountId: string): Promise<AccountSeal> {
    const account = await this.deps.store.getAccount(accountId);
    const qualified = account?.QualifiedSeal;
    const { keys } = this.deps;
    if (qualified === undefined && (account === undefined || keys.sealLevel === 'qualified' || keys.sealCa === undefined || accountId === this.deps.bootstrapAccountId)) {
      return environmentSeal(keys, this.deps.organizationName);
    }
    const version = qualified?.Id ?? 'advanced';
    const known = this.opened.get(accountId);
    if (known?.version === version) return known.seal;
    const seal = qualified !== undefined ? this.openQualified(qualified, (account as Account).Name) : this.openAdvanced(account as Account);
    this.opened.set(accountId, { version, seal });
    if (known !== undefined) this.retired.push(known.seal);
    // A key that could not be opened (a token taken out) is tried again at the next seal.
    seal.catch(() => {
      if (this.opened.get(accountId)?.seal === seal) this.opened.delete(accountId);
    });
    return seal;
  }

  private async openAdvanced(account: Account): Promise<AccountSeal> {
    const { keys } = this.deps;
    if (keys.sealCa === undefined) throw new Error('The service has no seal CA key to issue account seals with.');
    const signer = await ensureAccountAdvancedSeal({
      store: this.deps.store,
      ...(this.deps.masterKey ? { masterKey: this.deps.masterKey } : {}),
      sealCa: keys.sealCa,
      sealCaPem: keys.sealCaPem,
      accountId: account.Id,
      organizationName: account.Name,
      now: this.deps.clock(),
      ...(this.deps.keyKind ? { keyKind: this.deps.keyKind } : {}),
    });
    return sealOf(signer, 'advanced', account.Name);
  }

  private async openQualified(config: AccountQualifiedSeal, organization: string): Promise<AccountSeal & { close?: () => Promise<void> }> {
    try {
      const signer = await openQualifiedSealKey(config, this.deps.masterKey);
      return { ...sealOf(signer, 'qualified', organization), ...(signer.close ? { close: () => (signer.close as () => Promise<void>)() } : {}) };
    } catch (error) {
      throw new ServiceError('QUALIFIED_SEAL_UNAVAILABLE', `The account's qualified seal could not be opened: ${(error as Error).message}`, { origin: 'internal', cause: error });
    }
  }

  /** Closes the token sessions of every opened seal. */
  async close(): Promise<void> {
    const all = [...[...this.opened.values()].map((o) => o.seal), ...this.retired];
    this.opened.clear();
    this.retired.length = 0;
    await Promise.all(all.map(async (seal) => (await seal.catch(() => undefined))?.close?.().catch(() => undefined)));
  }
}

/** Opens the key `config` names, its secrets opened with `masterKey`. */
export async function openQualifiedSealKey(config: AccountQualifiedSeal, masterKey: MasterKey | undefined): Promise<OpenedSigner> {
  const open = (sealed: string, purpose: string): string => {
    if (masterKey === undefined) throw new Error('The qualified seal secrets are sealed: start with the master key.');
    return masterKey.open(sealed, purpose);
  };
  if (config.Kind === 'Pkcs12') {
    // In a worker thread: the key derivations an admin's file asks for never hold the thread serving requests.
    return openPkcs12OffThread(new Uint8Array(Buffer.from(open(config.Pkcs12Sealed, SEAL_PURPOSE.qualifiedSealPkcs12), 'base64')), open(config.PasswordSealed, SEAL_PURPOSE.qualifiedSealPassword));
  }
  return openPkcs11Signer({
    modulePath: config.Module,
    pin: open(config.PinSealed, SEAL_PURPOSE.qualifiedSealPin),
    ...(config.TokenLabel !== undefined ? { tokenLabel: config.TokenLabel } : {}),
    ...(config.SlotIndex !== undefined ? { slotIndex: config.SlotIndex } : {}),
    ...(config.KeyLabel !== undefined ? { keyLabel: config.KeyLabel } : {}),
  });
}

const KEY_USAGE = '2.5.29.15';
/** digitalSignature (bit 0) and nonRepudiation (bit 1) of the first key usage byte. */
const SIGNING_BITS = 0x80 | 0x40;

/**
 * Why the seal certificate `der` cannot seal at `now`, as a stable code and a message, or undefined when it can: it
 * must be valid now and, when it limits its key usage, allow digitalSignature or nonRepudiation.
 */
export function sealCertificateProblem(der: Uint8Array, now: Date): { code: string; message: string } | undefined {
  const cert = new X509Certificate(der);
  const subject = cert.subject.split('\n').filter(Boolean).join(', ');
  if (now.getTime() > Date.parse(cert.validTo)) {
    return { code: 'QUALIFIED_SEAL_EXPIRED', message: `The seal certificate (${subject}) expired on ${new Date(cert.validTo).toISOString()}: configure a seal with a valid certificate.` };
  }
  if (now.getTime() < Date.parse(cert.validFrom)) {
    return { code: 'QUALIFIED_SEAL_NOT_YET_VALID', message: `The seal certificate (${subject}) is valid only from ${new Date(cert.validFrom).toISOString()}: set it once it is valid.` };
  }
  const parsed = pkijs.Certificate.fromBER(der);
  const usage = parsed.extensions?.find((e) => e.extnID === KEY_USAGE);
  if (usage !== undefined) {
    const bits = asn1js.fromBER(usage.extnValue.valueBlock.valueHexView).result;
    const first = bits instanceof asn1js.BitString ? (bits.valueBlock.valueHexView[0] ?? 0) : 0;
    if ((first & SIGNING_BITS) === 0) {
      return {
        code: 'QUALIFIED_SEAL_KEY_USAGE',
        message: `The seal certificate (${subject}) does not allow signing: its key usage has neither digitalSignature nor nonRepudiation. Use a seal certificate issued for signing.`,
      };
    }
  }
  return undefined;
}
