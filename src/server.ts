/**
 * The embedded transaction service (decisions.md §9–§10, issue 5 "Running it"): opens the SQLite store under the
 * data directory, creates or loads the service's CAs and seal, makes sure an account exists (from the environment,
 * or a new one whose credentials are returned once to be printed), builds the app, starts the timer worker and
 * listens. `close()` shuts down gracefully: stop accepting, let in-flight requests finish, stop the worker, close
 * the store.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { securitySettings, type ServiceConfig } from './config.js';
import { applyConnectionLimits } from './http/connection-limits.js';
import { parseAllowedRanges } from './events/postback-target.js';
import { formatTime } from './domain/transaction.js';
import { EventWorker } from './events/event-worker.js';
import { createMailTransport } from './events/mail-transport.js';
import { notifyOnOutbox } from './events/notify-on-outbox.js';
import { buildApp, createServiceContext, loggerOptions, type AppDeps } from './http/app.js';
import type { KeyKind } from './pades/keys/software.js';
import { loadPkcs12Signer } from './pades/keys/pkcs12.js';
import { openPkcs11Signer } from './pades/keys/pkcs11.js';
import { createHttpTimestamper } from './pades/timestamp.js';
import type { Signer, Timestamper } from './pades/types.js';
import { sha256Hex } from './service/context.js';
import { ensureServiceKeys } from './service/service-keys.js';
import { TimerWorker } from './service/timer-worker.js';
import { openProtectedStore } from './store/protected-store.js';
import type { Store } from './store/store.js';

/** Options a test or an embedding program may add to the configuration. */
export interface StartServerOptions {
  /** Default: the system clock. */
  readonly clock?: () => Date;
  /** Key type of the CAs and seal created on first start (tests use ecdsa-p256 for speed). */
  readonly keyKind?: KeyKind;
  /** Replaces the HTTP time-stamper built from `tsaUrl`. */
  readonly timestamper?: Timestamper;
  /** Replaces the pino logger built from `logLevel` (false: no logs). */
  readonly logger?: AppDeps['logger'];
  /** Start the timer worker (default true). */
  readonly worker?: boolean;
  /** Senders of the signers' one-time codes (default: SMS codes to the log, e-mail codes through the mail outbox). */
  readonly verificationSenders?: AppDeps['verificationSenders'];
  /** External identity methods (DigiD, iDIN, …); none by default. */
  readonly identityProviders?: AppDeps['identityProviders'];
}

/** Credentials of an account created at start; shown once. */
export interface CreatedCredentials {
  readonly userToken: string;
  readonly appKey: string;
}

/** A listening service. */
export interface RunningServer {
  /** `http://host:port` actually listened on. */
  readonly url: string;
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly worker: TimerWorker;
  /** The outbox worker (postbacks, mails). */
  readonly events: EventWorker;
  /** Set when this start created the bootstrap account. */
  readonly createdCredentials?: CreatedCredentials;
  /** Whether this start created the CAs. */
  readonly createdKeys: boolean;
  /** Where the master key came from; `generatedKeyFile` is set when this start generated it (issue 13). */
  readonly masterKey: { readonly id: string; readonly source: 'configured' | 'file'; readonly generatedKeyFile?: string };
  /** Graceful shutdown; safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts the service.
 *
 * @example
 * const server = await startServer(loadConfig({ env: process.env }));
 * console.log(`listening on ${server.url}`);
 */
export async function startServer(config: ServiceConfig, options: StartServerOptions = {}): Promise<RunningServer> {
  const clock = options.clock ?? (() => new Date());
  const security = securitySettings(config);
  parseAllowedRanges(security.postbackAllowedRanges);
  const opened = await openProtectedStore({ dataDir: config.dataDir, ...(security.masterKey !== undefined ? { configuredKey: security.masterKey } : {}) });
  const store = opened.store;
  let qualified: (Signer & { close?: () => Promise<void> }) | undefined;
  try {
    qualified = await openQualifiedSeal(config);
    const { keys, created: createdKeys } = await ensureServiceKeys({
      store,
      now: clock(),
      organizationName: config.organizationName,
      ...(options.keyKind ? { keyKind: options.keyKind } : {}),
      ...(qualified ? { qualifiedSeal: qualified } : {}),
      masterKey: opened.masterKey,
    });
    const createdCredentials = await ensureAccount(store, config, clock);
    const timestamper = options.timestamper ?? (config.tsaUrl ? createHttpTimestamper({ url: config.tsaUrl, random: randomBytes }) : undefined);
    const settings = {
      publicUrl: config.publicUrl,
      maxFileBytes: config.maxFileBytes,
      fileReplaceGuardMs: config.fileReplaceGuardMs,
      retentionDays: config.retentionDays,
      postbackPolicy: { allowHttp: security.postbackAllowHttp, allowedRanges: security.postbackAllowedRanges },
      quotas: { maxPages: security.maxPages, accountStorageBytes: security.accountStorageBytes },
    };
    let worker: TimerWorker | undefined;
    let events: EventWorker | undefined;
    const mailTransport = createMailTransport({ ...(config.smtpUrl ? { smtpUrl: config.smtpUrl } : {}), mailDir: join(config.dataDir, 'mail') });
    const deps: AppDeps = {
      store: notifyOnOutbox(store, () => events?.wake()),
      clock,
      keys,
      settings,
      ...(timestamper ? { timestamper } : {}),
      logger: options.logger ?? loggerOptions(config.logLevel),
      ...(options.verificationSenders ? { verificationSenders: options.verificationSenders } : {}),
      ...(options.identityProviders ? { identityProviders: options.identityProviders } : {}),
      healthy: () => options.worker === false || (worker?.running === true && events?.running === true),
      accountRequestsPerMinute: security.accountRequestsPerMinute,
      logVerificationCodes: security.logVerificationCodes,
    };
    const app = await buildApp(deps);
    worker = new TimerWorker(createServiceContext(deps), { intervalMs: config.workerIntervalMs, log: app.log });
    events = new EventWorker(createServiceContext(deps), {
      mail: { transport: mailTransport, from: config.mailFrom ?? `paraph <noreply@${new URL(config.publicUrl).hostname}>` },
      log: app.log,
      ...(config.outboxLeaseMs !== undefined ? { leaseMs: config.outboxLeaseMs } : {}),
    });
    applyServerLimits(app, config);
    await app.listen({ host: config.host, port: config.port });
    if (options.worker !== false) {
      worker.start();
      events.start();
    }
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    let closing: Promise<void> | undefined;
    const running: RunningServer = {
      url: `http://${host}:${port}`,
      app,
      store,
      worker,
      events,
      createdKeys,
      masterKey: {
        id: opened.masterKey.id,
        source: opened.keySource,
        ...(opened.keyCreated ? { generatedKeyFile: join(config.dataDir, 'master.key') } : {}),
      },
      ...(createdCredentials ? { createdCredentials } : {}),
      close: () =>
        (closing ??= (async () => {
          await app.close();
          await worker?.stop();
          await events?.stop();
          mailTransport.close();
          await qualified?.close?.();
          await store.close();
        })()),
    };
    return running;
  } catch (error) {
    await qualified?.close?.().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The server-level limits of issue 13 (timeouts, keep-alive, connection caps; SECURITY.md "Connections"), applied
 * to the app's HTTP server before it listens. The upload budget follows from the PDF size limit.
 */
export function applyServerLimits(app: FastifyInstance, config: ServiceConfig): void {
  const security = securitySettings(config);
  applyConnectionLimits(app.server, {
    headersTimeoutMs: security.headersTimeoutMs,
    bodyTimeoutMs: security.bodyTimeoutMs,
    minUploadBytesPerSecond: security.minUploadBytesPerSecond,
    keepAliveTimeoutMs: security.keepAliveTimeoutMs,
    maxRequestsPerConnection: security.maxRequestsPerConnection,
    maxConnections: security.maxConnections,
    maxConnectionsPerAddress: security.maxConnectionsPerAddress,
    maxBodyBytes: config.maxFileBytes,
  });
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

/**
 * The bootstrap account of decisions.md §9: the one named by PARAPH_USER_TOKEN / PARAPH_APP_KEY (created when its
 * keys are new), or, when none is configured and the store has no account, a new one with random keys.
 */
async function ensureAccount(store: Store, config: ServiceConfig, clock: () => Date): Promise<CreatedCredentials | undefined> {
  const boot = config.bootstrapAccount;
  if (boot !== undefined) {
    const userTokenHash = sha256Hex(boot.userToken);
    const appKeyHash = sha256Hex(boot.appKey);
    if ((await store.findAccountByCredentials(userTokenHash, appKeyHash)) === undefined) {
      await store.createAccount({
        Id: randomUUID(),
        Name: 'bootstrap',
        UserTokenHash: userTokenHash,
        AppKeyHash: appKeyHash,
        ...(boot.postbackSecret !== undefined ? { PostbackSecret: boot.postbackSecret } : {}),
        ...(boot.notificationEmail !== undefined ? { NotificationEmail: boot.notificationEmail } : {}),
        CreatedDateTime: formatTime(clock()),
      });
    }
    return undefined;
  }
  if ((await store.countAccounts()) > 0) return undefined;
  const credentials = { userToken: randomBytes(24).toString('base64url'), appKey: randomBytes(24).toString('base64url') };
  await store.createAccount({
    Id: randomUUID(),
    Name: 'bootstrap',
    UserTokenHash: sha256Hex(credentials.userToken),
    AppKeyHash: sha256Hex(credentials.appKey),
    PostbackSecret: randomBytes(24).toString('base64url'),
    CreatedDateTime: formatTime(clock()),
  });
  return credentials;
}
