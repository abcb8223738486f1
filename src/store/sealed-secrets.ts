/**
 * How a store keeps secrets at rest: a signer's SignUrl token is stored as `SignTokenSealed` and a
 * postback secret sealed in place, both under the master key, and handed back in clear to the use cases. One rule for
 * every store (SQLite, PostgreSQL); without a master key secrets stay in clear.
 */
import type { Transaction } from '../domain/transaction.js';
import { isSealed, type MasterKey } from './master-key.js';
import type { Account } from '../domain/account.js';
import { StoreError } from './store.js';

/** The purposes the master key seals under (a sealed value opens only under its own purpose). */
export const SEAL_PURPOSE = {
  signToken: 'sign-token',
  postbackSecret: 'postback-secret',
  /** The secrets of an account's qualified seal (account-seals.ts seals them; the store only re-seals them). */
  qualifiedSealPkcs12: 'qualified-seal-pkcs12',
  qualifiedSealPassword: 'qualified-seal-password',
  qualifiedSealPin: 'qualified-seal-pin',
} as const;

/** The sealed fields of an account's `QualifiedSeal` and their purposes. */
export const QUALIFIED_SEAL_SEALED_FIELDS = {
  Pkcs12Sealed: SEAL_PURPOSE.qualifiedSealPkcs12,
  PasswordSealed: SEAL_PURPOSE.qualifiedSealPassword,
  PinSealed: SEAL_PURPOSE.qualifiedSealPin,
} as const;

type StoredSigner = Transaction['Signers'][number] & { SignTokenSealed?: string };

/** `tx` as stored: every SignToken sealed into SignTokenSealed (unchanged without a key). */
export function sealSignTokens(tx: Omit<Transaction, 'version'>, key: MasterKey | undefined): unknown {
  if (key === undefined || !tx.Signers.some((s) => s.SignToken !== undefined)) return tx;
  return {
    ...tx,
    Signers: tx.Signers.map((signer) => {
      if (signer.SignToken === undefined) return signer;
      const { SignToken, ...rest } = signer;
      return { ...rest, SignTokenSealed: key.seal(SignToken, SEAL_PURPOSE.signToken) };
    }),
  };
}

/**
 * `tx` as the use cases see it: every SignTokenSealed opened into SignToken.
 *
 * @throws StoreError `MASTER_KEY_REQUIRED` when it holds sealed tokens and no key is given.
 */
export function openSignTokens(tx: Transaction, key: MasterKey | undefined): Transaction {
  const signers = tx.Signers as StoredSigner[];
  if (!signers.some((s) => s.SignTokenSealed !== undefined)) return tx;
  if (key === undefined) throw new StoreError('MASTER_KEY_REQUIRED', 'The store holds sealed secrets: open it with its master key.', { origin: 'internal' });
  return {
    ...tx,
    Signers: signers.map(({ SignTokenSealed, ...signer }) =>
      SignTokenSealed === undefined ? signer : { ...signer, SignToken: key.open(SignTokenSealed, SEAL_PURPOSE.signToken) },
    ),
  };
}

/** The account as stored: its postback secrets (current and previous) sealed (unchanged without a key). */
export function sealAccount(account: Account, key: MasterKey | undefined): Account {
  if (key === undefined) return account;
  const seal = (secret: string | undefined) => (secret === undefined ? secret : key.seal(secret, SEAL_PURPOSE.postbackSecret));
  const sealed = { ...account };
  if (account.PostbackSecret !== undefined) sealed.PostbackSecret = seal(account.PostbackSecret)!;
  if (account.PreviousPostbackSecret !== undefined) sealed.PreviousPostbackSecret = seal(account.PreviousPostbackSecret)!;
  return sealed;
}

/** The account read back from its stored JSON, its postback secrets opened. */
export function readAccount(data: string, key: MasterKey | undefined): Account {
  const account = JSON.parse(data) as Account;
  if (key === undefined) return account;
  if (account.PostbackSecret !== undefined && isSealed(account.PostbackSecret)) account.PostbackSecret = key.open(account.PostbackSecret, SEAL_PURPOSE.postbackSecret);
  if (account.PreviousPostbackSecret !== undefined && isSealed(account.PreviousPostbackSecret)) {
    account.PreviousPostbackSecret = key.open(account.PreviousPostbackSecret, SEAL_PURPOSE.postbackSecret);
  }
  return account;
}

/**
 * Reads accounts on the authentication path, where the same few rows come back on every request: the last text read
 * of each account and what it parsed to are remembered, so an unchanged row is not parsed again. The accounts it
 * hands out are frozen, since every request of the account shares them.
 */
export class AccountReader {
  private readonly read = new Map<string, { readonly data: string; readonly account: Readonly<Account> }>();

  constructor(
    private readonly key: MasterKey | undefined,
    private readonly limit = 1000,
  ) {}

  account(id: string, data: string): Readonly<Account> {
    const known = this.read.get(id);
    if (known !== undefined && known.data === data) return known.account;
    const account = readAccount(data, this.key);
    if (account.Branding !== undefined) Object.freeze(account.Branding);
    if (account.Limits !== undefined) Object.freeze(account.Limits);
    if (account.QualifiedSeal !== undefined) Object.freeze(account.QualifiedSeal);
    Object.freeze(account);
    if (this.read.size >= this.limit) this.read.clear();
    this.read.set(id, { data, account });
    return account;
  }
}
