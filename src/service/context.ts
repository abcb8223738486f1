/**
 * What every use case of the transaction service is handed: the store, the clock, the id and token
 * source, the service keys, the optional time-stamp authority and the settings. No use case reads the environment
 * or the system clock itself, so tests run them at fixed dates.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Account } from '../domain/account.js';
import type { MasterKey } from '../store/master-key.js';
import type { CredentialKey } from './keys/credentials.js';
import type { Store } from '../store/store.js';
import type { Transaction } from '../domain/transaction.js';
import type { Timestamper } from '../pades/types.js';
import type { ServiceKeys } from './keys/service-keys.js';
import type { AccountSeals } from './keys/account-seals.js';
import { ServiceError } from './service-error.js';
import { SharedUploadGuard, UploadGuard, type UploadGuards } from './policies/upload-guard.js';
import type { IdentityProvider } from './delivery/verification-senders.js';
import type { PostbackPolicy, ResolveHost } from './delivery/postback-target.js';
import type { PdfWorkLimits } from './pdf-jobs/pdf-work.js';
import type { ServiceObserver } from './observability/service-observer.js';

/** Where new ids and secrets come from. */
export interface IdSource {
  /** A new transaction Id (a UUID). */
  transactionId(): string;
  /** A new SignUrl token: at least 128 random bits, URL-safe. */
  signToken(): string;
  /** A new Id for an activity or a receiver. */
  id(): string;
}

/** Ids from the operating system's random source. */
const randomIds: IdSource = {
  transactionId: () => randomUUID(),
  signToken: () => randomBytes(24).toString('base64url'),
  id: () => randomUUID(),
};

/** Settings of the use cases. */
export interface ServiceSettings {
  /** Base of absolute links, without a trailing slash. */
  readonly publicUrl: string;
  readonly maxFileBytes: number;
  readonly fileReplaceGuardMs: number;
  readonly retentionDays: number;
  /** Minutes a DELETEd transaction's documents and receipt stay downloadable before the clean job removes them (default 15). */
  readonly deleteGraceMinutes?: number;
  /** How long a replaced postback secret still signs postbacks (PARAPH_POSTBACK_SECRET_OVERLAP_SECONDS); default a day. */
  readonly postbackSecretOverlapSeconds?: number;
  /** Where postbacks may go; default: https and public addresses only. */
  readonly postbackPolicy?: PostbackPolicy;
  /** Limits of uploads and accounts; default: DEFAULT_SECURITY_SETTINGS. */
  readonly quotas?: ServiceQuotas;
  /** Who the signing page and the e-mails say is asking (PARAPH_ORGANIZATION) when the account's branding names no one; default `paraph`. */
  readonly organizationName?: string;
  /** The sender's name on the signing page and in the e-mails (PARAPH_SENDER_NAME). */
  readonly senderName?: string;
  /** Reply-To of the e-mails to signers and receivers (PARAPH_MAIL_REPLY_TO); default the account's NotificationEmail. */
  readonly mailReplyTo?: string;
  /** PKCS#11 modules the admin API may name for an account's qualified seal; none by default. */
  readonly pkcs11Modules?: readonly string[];
  /** Heap and time of the pdf-lib steps of uploads and starts (pdf-work.ts); default DEFAULT_PDF_WORK_LIMITS. */
  readonly pdfWork?: PdfWorkLimits;
}

/** Per-upload and per-account limits. */
export interface ServiceQuotas {
  /** Most pages of an uploaded PDF. */
  readonly maxPages: number;
  /** Bytes of uploads one account may keep stored. */
  readonly accountStorageBytes: number;
}

/** The dependencies of every use case. */
export interface ServiceContext {
  readonly store: Store;
  readonly clock: () => Date;
  readonly ids: IdSource;
  readonly keys: ServiceKeys;
  readonly timestamper?: Timestamper;
  readonly settings: ServiceSettings;
  /**
   * In-flight and recent uploads, for 409 (docs/design/files.md#replace-guard): in the store when it has a shared
   * guard, else in memory.
   */
  readonly uploads: UploadGuards;
  /** External identity methods by verification Type (docs/design/signer-api.md#verification-types); none by default. */
  readonly identityProviders?: ReadonlyMap<string, IdentityProvider>;
  /** An account's own providers by Type, which win over {@link identityProviders} (identity-provider-for.ts). */
  readonly accountIdentityProviders?: ReadonlyMap<string, ReadonlyMap<string, IdentityProvider>>;
  /** Resolves PostbackUrl host names at creation and before each delivery (default: the system resolver). */
  readonly resolveHost?: ResolveHost;
  /** Aborted when the process is shutting down: long work (signing) stops at its next step rather than holding it up. */
  readonly stopping?: AbortSignal;
  /**
   * The data directory's master key, for secrets the use cases keep outside the store's own sealing (one-time codes
   * in the outbox, their keyed hashes). Without it they are kept as before: codes in clear, hashed with SHA-256.
   */
  readonly secrets?: MasterKey;
  /** The mail files written without SMTP, removed when their transaction is cleaned (none with SMTP). */
  readonly mailFiles?: MailFiles;
  /** Where countable events go (the service's metrics); none by default. */
  readonly observer?: ServiceObserver;
  /** The key of the account credentials' keyed hashes (credentials.ts); plain SHA-256 without it. */
  readonly credentialKey?: CredentialKey;
  /** Each account's seal (account-seals.ts); without it every account seals with the environment's seal. */
  readonly accountSeals?: AccountSeals;
  /**
   * With tracing on, the W3C traceparent of the work this context serves (an HTTP request, a delivery): the service's
   * spans (PDF jobs, store commits) become its children. Set on a copy per request by the HTTP layer.
   */
  readonly trace?: string | undefined;
}

/** `ctx` serving the work of `traceparent` (itself when there is none). */
export function withTrace(ctx: ServiceContext, traceparent: string | undefined): ServiceContext {
  return traceparent === undefined ? ctx : { ...ctx, trace: traceparent };
}

/** The mail files of transactions (mail-transport.ts writes them). */
export interface MailFiles {
  /** Deletes every mail file written for `transactionId`. */
  remove(transactionId: string): Promise<void>;
}

/** What a {@link ServiceContext} is built from (the composition root hands these over). */
export interface ServiceContextDeps {
  readonly store: Store;
  readonly clock: () => Date;
  readonly ids?: IdSource;
  readonly keys: ServiceKeys;
  readonly timestamper?: Timestamper;
  readonly settings: ServiceSettings;
  readonly identityProviders?: readonly IdentityProvider[];
  readonly resolveHost?: ResolveHost;
  readonly stopping?: AbortSignal;
  readonly secrets?: MasterKey;
  readonly mailFiles?: MailFiles;
  readonly observer?: ServiceObserver;
  readonly credentialKey?: CredentialKey;
  readonly accountSeals?: AccountSeals;
}

/**
 * The one context HTTP, CLI and workers share: built once by the composition root (create-service.ts), so that,
 * say, the upload guard of the API is the one the workers see.
 */
export function createServiceContext(deps: ServiceContextDeps): ServiceContext {
  const ids = deps.ids ?? randomIds;
  const window = deps.settings.fileReplaceGuardMs;
  return {
    store: deps.store,
    clock: deps.clock,
    ids,
    keys: deps.keys,
    ...(deps.timestamper ? { timestamper: deps.timestamper } : {}),
    settings: deps.settings,
    uploads: deps.store.uploadSlots ? new SharedUploadGuard(deps.store.uploadSlots, window, () => ids.id()) : new UploadGuard(window),
    ...identityProviderMaps(deps.identityProviders ?? []),
    ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
    ...(deps.stopping ? { stopping: deps.stopping } : {}),
    ...(deps.secrets ? { secrets: deps.secrets } : {}),
    ...(deps.mailFiles ? { mailFiles: deps.mailFiles } : {}),
    ...(deps.observer ? { observer: deps.observer } : {}),
    ...(deps.credentialKey ? { credentialKey: deps.credentialKey } : {}),
    ...(deps.accountSeals ? { accountSeals: deps.accountSeals } : {}),
    // Present (and last) from the start, so that a request's copy with its traceparent (withTrace) has the shape of
    // this context: copying it is then a fast clone, and the use cases see one shape, not two.
    trace: undefined,
  };
}

/** Lowercase hex SHA-256 of a UTF-8 string or bytes (keys are stored hashed, docs/design/api.md#authentication). */
export function sha256Hex(value: string | Uint8Array): string {
  return createHash('sha256').update(value).digest('hex');
}

/** The transaction `id` (for workers: no account check); `TRANSACTION_NOT_FOUND` (internal) when it does not exist. */
export async function loadTransaction(ctx: ServiceContext, id: string): Promise<Transaction> {
  const tx = await ctx.store.getTransaction(id);
  if (tx === undefined) throw new ServiceError('TRANSACTION_NOT_FOUND', `Transaction ${id} does not exist.`, { origin: 'internal' });
  return tx;
}

/**
 * The transaction `id` of `account`, or a ServiceError: `TRANSACTION_NOT_FOUND` (401, the same answer as for another
 * account's transaction, docs/design/api.md#authentication).
 */
export async function loadOwnTransaction(ctx: ServiceContext, account: Account, id: string): Promise<Transaction> {
  const tx = await ctx.store.getTransaction(id);
  if (tx === undefined || tx.AccountId !== account.Id) {
    throw new ServiceError('TRANSACTION_NOT_FOUND', 'Authorization has been denied for this request.');
  }
  return tx;
}

/** The service-wide providers by Type, and each account's own (a provider naming `accounts`). */
function identityProviderMaps(providers: readonly IdentityProvider[]): Pick<ServiceContext, 'identityProviders' | 'accountIdentityProviders'> {
  const shared = new Map<string, IdentityProvider>();
  const byAccount = new Map<string, Map<string, IdentityProvider>>();
  for (const provider of providers) {
    if (provider.accounts === undefined) shared.set(provider.type, provider);
    else for (const account of provider.accounts) byAccount.set(account, (byAccount.get(account) ?? new Map()).set(provider.type, provider));
  }
  return { ...(shared.size > 0 ? { identityProviders: shared } : {}), ...(byAccount.size > 0 ? { accountIdentityProviders: byAccount } : {}) };
}
