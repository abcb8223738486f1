/**
 * The bootstrap account (docs/design/api.md#authentication), made safe for processes that start together on one
 * empty database: without configured keys, the processes elect one account Id through the store's settings
 * (`putSettingIfAbsent`), so they end up with one account instead of one each.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { formatTime } from '../domain/transaction.js';
import { StoreError, type Account, type Store } from '../store/store.js';
import type { CredentialKind } from '../domain/account.js';
import { candidateHashes, credentialHash, type CredentialKey } from './keys/credentials.js';

/** The setting that holds the elected Id of a zero-config bootstrap account. */
export const BOOTSTRAP_ACCOUNT_SETTING = 'bootstrapAccountId';

/** What of the service's configuration decides the bootstrap account (a `ServiceConfig` fits). */
export interface BootstrapAccountConfig {
  readonly bootstrapAccount?: { readonly userToken: string; readonly appKey: string; readonly notificationEmail?: string };
  readonly postbackSecret?: string;
  /** Where the bootstrap account's sender notices go, whether its keys are configured or generated. */
  readonly notificationEmail?: string;
}

/** Credentials of an account created at start; shown once. */
export interface BootstrapCredentials {
  readonly userToken: string;
  readonly appKey: string;
  readonly postbackSecret: string;
}

/** What {@link ensureBootstrapAccount} did: at most one of `created` and `generatedSecret`, to be printed. */
export interface EnsuredAccount {
  readonly accountId: string;
  readonly created?: BootstrapCredentials;
  readonly generatedSecret?: string;
  readonly rotated: boolean;
}

/** How long a process that lost the creation of the elected account waits for it to become readable. */
export interface BootstrapWait {
  readonly timeoutMs: number;
  readonly pollMs: number;
}

const DEFAULT_WAIT: BootstrapWait = { timeoutMs: 10_000, pollMs: 50 };

/** Options of {@link ensureBootstrapAccount}. */
export interface BootstrapOptions {
  readonly wait?: BootstrapWait;
  /** The key of the credentials' keyed hashes (credentials.ts); plain SHA-256 without it. */
  readonly credentialKey?: CredentialKey;
}

/** A new random postback secret (192 bits, base64url). */
function newPostbackSecret(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The bootstrap account: the one named by `config.bootstrapAccount` (created when its keys are new), else the oldest
 * account, else a new one with random keys under the Id elected in the store. Its postback secret is never empty:
 * `config.postbackSecret` when given (also replacing a stored one: that is how it is rotated), else the stored one,
 * else a generated one that is returned to be printed.
 *
 * @example
 * const account = await ensureBootstrapAccount(store, config, () => new Date());
 * if (account.created) console.log(account.created.userToken);
 */
export async function ensureBootstrapAccount(
  store: Store,
  config: BootstrapAccountConfig,
  clock: () => Date,
  options: BootstrapOptions = {},
): Promise<EnsuredAccount> {
  const wait = options.wait ?? DEFAULT_WAIT;
  const hash = (secret: string): string => credentialHash(options, secret);
  const boot = config.bootstrapAccount;
  const wantedSecret = config.postbackSecret;
  const wantedEmail = config.notificationEmail ?? boot?.notificationEmail;
  const existing = boot !== undefined ? await configuredAccount(store, boot, options, clock) : (await store.listAccounts())[0];
  if (existing === undefined) {
    const userToken = boot?.userToken ?? randomBytes(24).toString('base64url');
    const appKey = boot?.appKey ?? randomBytes(24).toString('base64url');
    const postbackSecret = wantedSecret ?? newPostbackSecret();
    // Configured keys make a second account impossible (they are unique); random ones need one Id for every process.
    const id = boot !== undefined ? randomUUID() : await electAccountId(store);
    try {
      await store.createAccount({
        Id: id,
        Name: 'bootstrap',
        UserTokenHash: hash(userToken),
        AppKeyHash: hash(appKey),
        PostbackSecret: postbackSecret,
        ...(wantedEmail !== undefined ? { NotificationEmail: wantedEmail } : {}),
        CreatedDateTime: formatTime(clock()),
      });
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'ACCOUNT_EXISTS')) throw error;
      // Another process sharing the database created it at the same moment: use theirs.
      if (boot !== undefined) return ensureBootstrapAccount(store, config, clock, options);
      return ensureSettings(store, await awaitAccount(store, id, wait), wantedSecret, wantedEmail);
    }
    await store.appendAdminAudit({ at: clock(), actor: 'bootstrap', action: 'account.created', accountId: id, data: { Name: 'bootstrap', configuredKeys: boot !== undefined } });
    // Configured keys are known to the operator; only generated ones (and a generated secret) need printing.
    if (boot === undefined) return { accountId: id, created: { userToken, appKey, postbackSecret }, rotated: false };
    return wantedSecret === undefined ? { accountId: id, generatedSecret: postbackSecret, rotated: false } : { accountId: id, rotated: false };
  }
  return ensureSettings(store, existing, wantedSecret, wantedEmail);
}

/**
 * The account of the configured keys: the one that holds either of them (in any state: a key an admin revoked stays
 * revoked, it does not make a new account). The other key, when the operator changed it, is added to that account.
 */
async function configuredAccount(
  store: Store,
  boot: { readonly userToken: string; readonly appKey: string },
  keyed: { readonly credentialKey?: CredentialKey },
  clock: () => Date,
): Promise<Account | undefined> {
  const wanted: Array<{ kind: CredentialKind; hashes: string[]; secret: string }> = [
    { kind: 'user-token', secret: boot.userToken, hashes: candidateHashes(keyed, boot.userToken) },
    { kind: 'app-key', secret: boot.appKey, hashes: candidateHashes(keyed, boot.appKey) },
  ];
  const found = await store.findCredentialsByHash(wanted.flatMap((w) => w.hashes));
  const matches = (w: (typeof wanted)[number]) => found.filter((c) => c.kind === w.kind && w.hashes.includes(c.hash));
  const accountId = wanted.map((w) => matches(w)[0]?.accountId).find((id) => id !== undefined);
  if (accountId === undefined) return undefined;
  for (const w of wanted) {
    if (matches(w).some((c) => c.accountId === accountId)) continue;
    const credentialId = randomUUID();
    await store.addCredential({ id: credentialId, accountId, kind: w.kind, hash: credentialHash(keyed, w.secret), label: 'configured', createdAt: clock() });
    await store.appendAdminAudit({ at: clock(), actor: 'bootstrap', action: 'credential.issued', accountId, credentialId, data: { kind: w.kind, label: 'configured' } });
  }
  return store.getAccount(accountId);
}

/**
 * The Id of the zero-config bootstrap account: this process's proposal, or the one a process sharing the store
 * proposed first. Every process then creates the account under that Id; the first insert wins.
 */
async function electAccountId(store: Store): Promise<string> {
  const elected = await store.putSettingIfAbsent(BOOTSTRAP_ACCOUNT_SETTING, randomUUID());
  if (typeof elected !== 'string') throw new StoreError('ACCOUNT_NOT_FOUND', `The setting ${BOOTSTRAP_ACCOUNT_SETTING} does not hold an account Id.`, { origin: 'internal' });
  return elected;
}

/** The account another process has just created (bounded wait: a store may show it a moment later). */
async function awaitAccount(store: Store, id: string, wait: BootstrapWait): Promise<Account> {
  const deadline = Date.now() + wait.timeoutMs;
  for (;;) {
    const account = await store.getAccount(id);
    if (account !== undefined) return account;
    if (Date.now() >= deadline) {
      throw new StoreError('ACCOUNT_NOT_FOUND', `The bootstrap account ${id} was created by another process but cannot be read after ${wait.timeoutMs} ms.`, {
        origin: 'internal',
      });
    }
    await new Promise((resolve) => setTimeout(resolve, wait.pollMs));
  }
}

/**
 * Applies the configured notification address (a configured one replaces the stored one; none configured leaves
 * it as it is) and postback secret to an existing account.
 */
async function ensureSettings(store: Store, account: Account, wantedSecret: string | undefined, wantedEmail: string | undefined): Promise<EnsuredAccount> {
  if (wantedEmail !== undefined && account.NotificationEmail !== wantedEmail) await store.setNotificationEmail(account.Id, wantedEmail);
  return ensureSecret(store, account, wantedSecret);
}

/** Applies the configured postback secret, or generates one for an account without. */
async function ensureSecret(store: Store, account: Account, wantedSecret: string | undefined): Promise<EnsuredAccount> {
  const accountId = account.Id;
  if (wantedSecret !== undefined) {
    if (account.PostbackSecret === wantedSecret) return { accountId, rotated: false };
    await store.setPostbackSecret(accountId, wantedSecret);
    return { accountId, rotated: account.PostbackSecret !== undefined && account.PostbackSecret !== '' };
  }
  if (account.PostbackSecret !== undefined && account.PostbackSecret !== '') return { accountId, rotated: false };
  const generatedSecret = newPostbackSecret();
  await store.setPostbackSecret(accountId, generatedSecret);
  return { accountId, generatedSecret, rotated: false };
}
