/**
 * The composition root of the transaction service (docs/design/storage.md#running-the-service): opens the SQLite store
 * under the data directory, creates or loads the service's CAs and seal, makes sure the bootstrap account and its
 * postback secret exist, and builds the outbox and timer workers. It does not listen: `startServer` (standalone) or
 * `paraphPlugin` (inside a host's fastify app) serve it.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { mailDirectory, securitySettings, type ServiceConfig } from './config.js';
import { EventWorker } from './events/event-worker.js';
import { createMailTransport, MAIL_FILE_PURPOSE, removeMailFiles } from './events/mail-transport.js';
import { notifyOnOutbox } from './events/notify-on-outbox.js';
import { parseAllowedRanges, type ResolveHost } from './service/delivery/postback-target.js';
import type { AppDeps } from './http/app.js';
import { ParaphMetrics } from './http/metrics.js';
import { derToPem } from './pades/keys/ca.js';
import { loadPkcs12Signer } from './pades/keys/pkcs12.js';
import { openPkcs11Signer, type Pkcs11Signer } from './pades/keys/pkcs11.js';
import type { KeyKind } from './pades/keys/software.js';
import { createHttpTimestamper } from './pades/timestamp.js';
import type { Signer, Timestamper } from './pades/types.js';
import { createServiceContext } from './service/context.js';
import { ensureServiceKeys, type ServiceKeys } from './service/keys/service-keys.js';
import type { IdentityProvider, VerificationSenders } from './service/delivery/verification-senders.js';
import { loadIdentityProviders } from './service/identity/identity-provider-config.js';
import { TimerWorker } from './events/timer-worker.js';
import { ensureBootstrapAccount } from './service/bootstrap-account.js';
import { AccountSeals } from './service/keys/account-seals.js';
import { loadCredentialKey } from './service/keys/credentials.js';
import { ADMIN_TOKEN_PURPOSE } from './service/account-admin.js';
import { isSealed } from './store/master-key.js';
import { openServiceStore } from './store/open-store.js';
import type { Store } from './store/store.js';
import { setDefaultIndexLimits } from './pdf/text-index/limits.js';
import { DEFAULT_PDF_WORK_LIMITS } from './service/pdf-jobs/pdf-work.js';
import { setDefaultTextEngine } from './pdf/text-index/text-engine.js';

/** Options a test or an embedding program may add to the configuration. */
export interface ServiceOptions {
  /** Default: the system clock. */
  readonly clock?: () => Date;
  /** Key type of the CAs and seal created on first start (tests use ecdsa-p256 for speed). */
  readonly keyKind?: KeyKind;
  /** Replaces the HTTP time-stamper built from `tsaUrl`. */
  readonly timestamper?: Timestamper;
  /**
   * Standalone (`startServer`): a pino logger or pino options replacing the one built from `logLevel` (false: no
   * logs). The fastify plugin always logs through the host's logger.
   */
  readonly logger?: FastifyBaseLogger | FastifyServerOptions['logger'];
  /** Run the outbox and timer workers (default true); tests that drive them by hand pass false. */
  readonly worker?: boolean;
  /** Senders of the signers' one-time codes (default: SMS codes to the log, e-mail codes through the mail outbox). */
  readonly verificationSenders?: VerificationSenders;
  /** External identity methods (DigiD, iDIN, …); none by default. */
  readonly identityProviders?: readonly IdentityProvider[];
  /**
   * Resolves PostbackUrl host names for the SSRF check, at creation and before each delivery (default: the system
   * resolver). Tests that generate host names answer without DNS.
   */
  readonly resolveHost?: ResolveHost;
}

/** @deprecated Use {@link ServiceOptions}; kept for callers of `startServer(config, options)`. */
export type StartServerOptions = ServiceOptions;

/** Credentials of an account created at start; shown once. */
export interface CreatedCredentials {
  readonly userToken: string;
  readonly appKey: string;
  /** The account's postback secret (generated unless PARAPH_POSTBACK_SECRET gave one). */
  readonly postbackSecret: string;
}

/** The log the workers write to (a pino/fastify logger fits). */
export interface ServiceLog {
  info(data: object, message: string): void;
  /** Something an operator should fix (falls back to `info` for a log without it). */
  warn?(data: object, message: string): void;
  error(data: object, message: string): void;
}

/** A created service: its store, keys and workers, not yet serving. */
export interface ParaphService {
  readonly config: ServiceConfig;
  readonly store: Store;
  /** The service's signing CA, seal CA and seal. */
  readonly keys: ServiceKeys;
  /** Set when this start created the bootstrap account (print it once). */
  readonly createdCredentials?: CreatedCredentials;
  /**
   * Set when this start generated a postback secret for an existing account that had none (data directories of
   * older versions): print it like the credentials.
   */
  readonly generatedPostbackSecret?: string;
  /** Set when PARAPH_POSTBACK_SECRET replaced the stored secret of the bootstrap account (rotation). */
  readonly rotatedPostbackSecret: boolean;
  /** Whether this start created the CAs. */
  readonly createdKeys: boolean;
  /** Where the master key came from; `generatedKeyFile` is set when this start generated it. */
  readonly masterKey: { readonly id: string; readonly source: 'configured' | 'file'; readonly generatedKeyFile?: string };
  /** What the HTTP routes are built from (the workers share it). */
  readonly deps: AppDeps;
  /** The timer worker (expiry, reminders, cleaning). */
  readonly worker: TimerWorker;
  /** The outbox worker (postbacks, mails). */
  readonly events: EventWorker;
  /** Whether the workers run (for /health). */
  readonly workersRunning: boolean;
  /** Starts both workers, logging to `log` (no-op when `worker: false` was given or they run). */
  startWorkers(log: ServiceLog): void;
  /** Base of the links the service writes (SignUrl, Files[].Links). */
  readonly publicUrl: string;
  /** Tells the service the address it listens on; links follow it when no public URL was configured. */
  useListenAddress(url: string): void;
  /** Stops both workers, waiting for the running tick. */
  stopWorkers(): Promise<void>;
  /**
   * Tells long work in progress (signing) that the process is stopping: it ends at its next step, releasing what it
   * holds, so that in-flight requests finish promptly. `close` does it too.
   */
  beginShutdown(): void;
  /** Stops the workers and closes the mail transport, a qualified seal token and the store; safe to call twice. */
  close(): Promise<void>;
  /** The service's metrics registry (Prometheus); serve `metrics.expose()` where the operator scrapes it. */
  readonly metrics: ParaphMetrics;
  /** Marks the service as shutting down: `/health/ready` answers 503 from now on (the work in flight continues). */
  beginDrain(): void;
  /** True after {@link beginDrain}. */
  readonly draining: boolean;
}

/**
 * Creates the service: store, keys, bootstrap account and workers (not started, not listening).
 *
 * @example
 * const service = await createService(loadConfig({ env: process.env }));
 * const app = Fastify({ logger: true });
 * await app.register(paraphPlugin, { service, prefix: '/paraph' });
 */
export async function createService(config: ServiceConfig, options: ServiceOptions = {}): Promise<ParaphService> {
  const clock = options.clock ?? (() => new Date());
  const stopping = new AbortController();
  if (config.textIndexLimits) setDefaultIndexLimits(config.textIndexLimits);
  if (config.textEngine) setDefaultTextEngine(config.textEngine);
  const security = securitySettings(config);
  parseAllowedRanges(security.postbackAllowedRanges);
  const mailDir = mailDirectory(config);
  const opened = await openServiceStore({
    dataDir: config.dataDir,
    ...(config.sqliteDriver !== undefined ? { driver: config.sqliteDriver } : {}),
    ...(security.masterKey !== undefined ? { configuredKey: security.masterKey } : {}),
    ...(config.databaseUrl !== undefined ? { databaseUrl: config.databaseUrl, migrate: config.migrateOnStart === true } : {}),
  });
  const store = opened.store;
  let qualified: (Signer & { close?: () => Promise<void> }) | undefined;
  let tokenKeys: { signingCa: Pkcs11Signer; seal: Pkcs11Signer } | undefined;
  let accountSeals: AccountSeals | undefined;
  const closeTokenKeys = async (): Promise<void> => {
    await tokenKeys?.signingCa.close().catch(() => undefined);
    await tokenKeys?.seal.close().catch(() => undefined);
  };
  try {
    qualified = await openQualifiedSeal(config);
    tokenKeys = await openCaToken(config);
    const ensured = await ensureServiceKeys({
      store,
      now: clock(),
      organizationName: config.organizationName,
      ...(options.keyKind ? { keyKind: options.keyKind } : {}),
      ...(qualified ? { qualifiedSeal: qualified } : {}),
      ...(tokenKeys ? { tokenKeys } : {}),
      masterKey: opened.masterKey,
    });
    // /api/ca/seal.pem must name what a relying party has to trust for the seal in use: with a qualified seal that is
    // the top of its own chain, not the service's (then unused) seal CA.
    const topOfChain = qualified?.certificateChain.at(-1);
    const keys: ServiceKeys = topOfChain ? { ...ensured.keys, sealCaPem: derToPem(topOfChain, 'CERTIFICATE') } : ensured.keys;
    const credentialKey = await loadCredentialKey(store, opened.masterKey);
    const account = await ensureBootstrapAccount(store, config, clock, { credentialKey });
    accountSeals = new AccountSeals({ store, clock, keys, masterKey: opened.masterKey, bootstrapAccountId: account.accountId, organizationName: config.organizationName, ...(options.keyKind ? { keyKind: options.keyKind } : {}) });
    const timestamper = options.timestamper ?? (config.tsaUrl ? createHttpTimestamper({ url: config.tsaUrl, random: randomBytes }) : undefined);
    // Mail files hold live sign links and codes: inside the data directory they are sealed, so a copy of the
    // directory without the master key holds none; a directory the operator names elsewhere gets plain .eml files.
    const sealMail = !isOutside(config.dataDir, mailDir);
    const mailTransport = createMailTransport({
      ...(config.smtpUrl ? { smtpUrl: config.smtpUrl } : {}),
      mailDir,
      ...(sealMail ? { seal: (text: string) => opened.masterKey.seal(text, MAIL_FILE_PURPOSE) } : {}),
    });
    const log = forwardingLog();
    const metrics = new ParaphMetrics({ store, clock });
    let draining = false;
    const runWorkers = options.worker !== false;
    let events: EventWorker | undefined;
    // Mutable for one reason: with PORT=0 and no configured public URL, links name the port the server got.
    const settings = { publicUrl: config.publicUrl, maxFileBytes: config.maxFileBytes, fileReplaceGuardMs: config.fileReplaceGuardMs, retentionDays: config.retentionDays,
      deleteGraceMinutes: config.deleteGraceMinutes,
      postbackSecretOverlapSeconds: config.postbackSecretOverlapSeconds,
      organizationName: config.organizationName,
      pkcs11Modules: config.pkcs11Modules ?? [config.qualifiedSeal?.kind === 'pkcs11' ? config.qualifiedSeal.modulePath : undefined, config.caToken?.modulePath].filter((m): m is string => m !== undefined),
      ...(config.senderName !== undefined ? { senderName: config.senderName } : {}),
      ...(config.mailReplyTo !== undefined ? { mailReplyTo: config.mailReplyTo } : {}),
      postbackPolicy: { allowHttp: security.postbackAllowHttp, allowedRanges: security.postbackAllowedRanges },
      quotas: { maxPages: security.maxPages, accountStorageBytes: security.accountStorageBytes },
      pdfWork: { baseMs: security.pdfWorkMs, maxHeapMb: security.pdfWorkHeapMb, perPageMs: DEFAULT_PDF_WORK_LIMITS.perPageMs },
    };
    // Providers passed in code win over configured ones of the same Type.
    const configuredProviders = config.identityProvidersFile === undefined ? [] : await loadIdentityProviders(config.identityProvidersFile, opened.masterKey, process.env, { publicUrl: () => settings.publicUrl, clock });
    const identityProviders = [
      ...configuredProviders.filter((p) => p.accounts !== undefined || !(options.identityProviders ?? []).some((o) => o.type === p.type && o.accounts === undefined)),
      ...(options.identityProviders ?? []),
    ];
    // One context for the API, the CLI and the workers (the upload guard and identity providers are shared).
    const context = createServiceContext({
      stopping: stopping.signal,
      observer: metrics.observer,
      store: notifyOnOutbox(store, () => events?.wake()),
      clock,
      keys,
      settings,
      ...(timestamper ? { timestamper } : {}),
      ...(identityProviders.length > 0 ? { identityProviders } : {}),
      ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
      secrets: opened.masterKey,
      credentialKey,
      accountSeals,
      ...(config.smtpUrl ? {} : { mailFiles: { remove: (transactionId: string) => removeMailFiles(mailDir, transactionId) } }),
    });
    const deps: AppDeps = {
      store: context.store,
      context,
      clock,
      keys,
      settings,
      ...(timestamper ? { timestamper } : {}),
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
      ...(options.verificationSenders ? { verificationSenders: options.verificationSenders } : {}),
      ...(identityProviders.length > 0 ? { identityProviders } : {}),
      healthy: () => !runWorkers || workersRunning(),
      accountRequestsPerMinute: security.accountRequestsPerMinute,
      logVerificationCodes: security.logVerificationCodes,
      metrics,
      draining: () => draining,
      ...(config.adminToken !== undefined
        ? { adminToken: isSealed(config.adminToken) ? opened.masterKey.open(config.adminToken, ADMIN_TOKEN_PURPOSE) : config.adminToken }
        : {}),
    };
    const worker = new TimerWorker(context, { intervalMs: config.workerIntervalMs, log });
    const warnedAccounts = new Set<string>();
    const mailDeps = {
      transport: mailTransport,
      from: config.mailFrom ?? `paraph <noreply@${new URL(config.publicUrl).hostname}>`,
      // Once per account and process: a notice dropped for want of an address is a setting to fix, not a failure.
      onNoNotificationAddress: (accountId: string): void => {
        if (warnedAccounts.has(accountId)) return;
        warnedAccounts.add(accountId);
        log.warn(
          { accountId },
          'A sender notice was not sent: the account has no NotificationEmail. Set PARAPH_NOTIFICATION_EMAIL (the bootstrap account) to receive sender notices; this is logged once.',
        );
      },
    };
    events = new EventWorker(context, {
      mail: mailDeps,
      log,
      ...(config.outboxLeaseMs !== undefined ? { leaseMs: config.outboxLeaseMs } : {}),
      ...(config.retryBaseMs !== undefined ? { retryBaseMs: config.retryBaseMs } : {}),
    });
    const eventWorker = events;
    // With PostgreSQL the jobs run on graphile-worker, shared by every process (loaded only in that mode).
    const jobs =
      runWorkers && config.databaseUrl !== undefined
        ? new (await import('./events/postgres-job-runner.js')).PostgresJobRunner(context, {
            databaseUrl: config.databaseUrl,
            timerIntervalMs: config.workerIntervalMs,
            mail: mailDeps,
            log,
            ...(config.outboxLeaseMs !== undefined ? { nodeTimeoutMs: config.outboxLeaseMs } : {}),
            ...(config.retryBaseMs !== undefined ? { retryBaseMs: config.retryBaseMs } : {}),
          })
        : undefined;
    const workersRunning = (): boolean => (jobs ? jobs.running : worker.running && eventWorker.running);
    const stopWorkers = async (): Promise<void> => {
      await jobs?.stop();
      await worker.stop();
      await eventWorker.stop();
    };
    let closing: Promise<void> | undefined;
    return {
      config,
      store,
      keys,
      createdKeys: ensured.created,
      masterKey: {
        id: opened.masterKey.id,
        source: opened.keySource,
        ...(opened.keyCreated ? { generatedKeyFile: join(config.dataDir, 'master.key') } : {}),
      },
      ...(account.created ? { createdCredentials: account.created } : {}),
      ...(account.generatedSecret !== undefined ? { generatedPostbackSecret: account.generatedSecret } : {}),
      rotatedPostbackSecret: account.rotated,
      deps,
      worker,
      events: eventWorker,
      get workersRunning() {
        return workersRunning();
      },
      startWorkers(target) {
        log.target = target;
        if (!runWorkers) return;
        if (jobs) {
          void jobs.start();
          return;
        }
        if (worker.running) return;
        worker.start();
        eventWorker.start();
      },
      stopWorkers,
      get publicUrl() {
        return settings.publicUrl;
      },
      useListenAddress(url) {
        if (config.publicUrlFromListenAddress === true) settings.publicUrl = url;
      },
      beginShutdown: () => stopping.abort(),
      metrics,
      beginDrain: () => {
        draining = true;
      },
      get draining() {
        return draining;
      },
      close: () =>
        (closing ??= (async () => {
          draining = true;
          stopping.abort();
          metrics.close();
          await stopWorkers();
          mailTransport.close();
          await accountSeals?.close();
          await qualified?.close?.();
          await closeTokenKeys();
          await store.close();
        })()),
    };
  } catch (error) {
    await accountSeals?.close();
    await qualified?.close?.().catch(() => undefined);
    await closeTokenKeys();
    await store.close().catch(() => undefined);
    throw error;
  }
}

/** A log whose destination is chosen when the workers start (the standalone app's or the host's logger). */
function forwardingLog(): Required<ServiceLog> & { target: ServiceLog | undefined } {
  return {
    target: undefined,
    info(data, message) {
      this.target?.info(data, message);
    },
    warn(data, message) {
      if (this.target?.warn) this.target.warn(data, message);
      else this.target?.info(data, message);
    },
    error(data, message) {
      this.target?.error(data, message);
    },
  };
}

async function openQualifiedSeal(config: ServiceConfig): Promise<(Signer & { close?: () => Promise<void> }) | undefined> {
  const q = config.qualifiedSeal;
  if (q === undefined) return undefined;
  if (q.kind === 'pkcs12') return loadPkcs12Signer(new Uint8Array(await readFile(q.path)), q.password);
  return openPkcs11Signer({
    modulePath: q.modulePath,
    pin: q.pin,
    ...(q.tokenLabel !== undefined ? { tokenLabel: q.tokenLabel } : {}),
    ...(q.slotIndex !== undefined ? { slotIndex: q.slotIndex } : {}),
    ...(q.keyLabel !== undefined ? { keyLabel: q.keyLabel } : {}),
  });
}

/** The signing CA and advanced seal keys of a configured PKCS#11 token (SECURITY.md), certificates read from it. */
async function openCaToken(config: ServiceConfig): Promise<{ signingCa: Pkcs11Signer; seal: Pkcs11Signer } | undefined> {
  const t = config.caToken;
  if (t === undefined) return undefined;
  const open = (keyLabel: string): Promise<Pkcs11Signer> => openPkcs11Signer({ modulePath: t.modulePath, pin: t.pin, tokenLabel: t.tokenLabel, keyLabel });
  const signingCa = await open(t.signingCaKeyLabel);
  try {
    return { signingCa, seal: await open(t.sealKeyLabel) };
  } catch (error) {
    await signingCa.close();
    throw error;
  }
}

/** Whether `path` lies outside `dir` (both absolute). */
function isOutside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel.startsWith('..') || isAbsolute(rel);
}
