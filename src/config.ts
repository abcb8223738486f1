/**
 * Configuration of the transaction service (docs/design/storage.md#running-the-service): environment variables plus an
 * optional JSON config file (`PARAPH_CONFIG`), validated at start with messages naming the variable or key and the
 * rule. Environment variables win over the file. With nothing set the service runs on 127.0.0.1:8080 with its data
 * under ./data. Pure: the environment and the file's text are handed in.
 */
import { join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { CONFIG_SETTINGS, configSetting, defaultText, type ConfigKey } from './config-settings.js';
import { ValidationError } from './errors.js';
import { SQLITE_DRIVERS, type SqliteDriverName } from './store/sqlite-driver.js';

/**
 * Where a qualified seal key lives (docs/design/signatures.md#qualified-seal); absent: the advanced seal of the
 * service's own seal CA.
 */
export type QualifiedSealConfig =
  | { readonly kind: 'pkcs12'; readonly path: string; readonly password: string }
  | {
      readonly kind: 'pkcs11';
      readonly modulePath: string;
      readonly pin: string;
      readonly tokenLabel?: string;
      readonly slotIndex?: number;
      readonly keyLabel?: string;
    };

/**
 * The service's signing CA and advanced seal kept in a PKCS#11 token instead of the store (SECURITY.md):
 * each key with its certificate (same CKA_ID or CKA_LABEL) and, for the seal, the seal CA's certificate.
 */
export interface CaTokenConfig {
  readonly modulePath: string;
  readonly pin: string;
  readonly tokenLabel: string;
  /** CKA_LABEL of the signing CA's key (default `paraph-signing-ca`). */
  readonly signingCaKeyLabel: string;
  /** CKA_LABEL of the advanced seal's key (default `paraph-seal`). */
  readonly sealKeyLabel: string;
}

/** The bootstrap account read from the environment (docs/design/api.md#authentication). */
export interface BootstrapAccountConfig {
  readonly userToken: string;
  readonly appKey: string;
  /** Address of sender notifications (transactions with SendEmailNotifications). */
  readonly notificationEmail?: string;
}

/** The validated service configuration. */
export interface ServiceConfig {
  readonly host: string;
  readonly port: number;
  /** Absolute path of the data directory (SQLite file, blobs, outbox mails). */
  readonly dataDir: string;
  /** The SQLite driver of the embedded store (default: node:sqlite on Node 24+, better-sqlite3 before). */
  readonly sqliteDriver?: SqliteDriverName;
  /** Base of every absolute link the service writes (SignUrl, Files[].Links), without a trailing slash. */
  readonly publicUrl: string;
  /** True when no public URL was configured: links then follow the address actually listened on (e.g. with PORT=0). */
  readonly publicUrlFromListenAddress?: boolean;
  /** RFC 3161 time-stamp authority; signatures and seals are B-T when set. */
  readonly tsaUrl?: string;
  readonly qualifiedSeal?: QualifiedSealConfig;
  /** Signing CA and advanced seal keys in a PKCS#11 token rather than (sealed) in the store. */
  readonly caToken?: CaTokenConfig;
  /** Days after the end of a transaction before its documents and sensitive data are deleted (0 allowed). */
  readonly retentionDays: number;
  /** How long a replaced postback secret still signs postbacks. */
  readonly postbackSecretOverlapSeconds: number;
  /**
   * Minutes after a DELETE during which documents and the receipt stay downloadable
   * (docs/design/transactions.md#cancellation).
   */
  readonly deleteGraceMinutes: number;
  /** Largest accepted PDF upload, in bytes (413 above it). */
  readonly maxFileBytes: number;
  /** Window after an upload in which a second upload of the same kind for the same fileId answers 409. */
  readonly fileReplaceGuardMs: number;
  /** SMTP server for mails; without it mails are written as .eml files. */
  readonly smtpUrl?: string;
  /**
   * Absolute path of the directory of `.eml` files when no SMTP server is configured (default `<dataDir>/mail`; in
   * PostgreSQL mode there is no default: see {@link mailDirectory}).
   */
  readonly mailDir?: string;
  /** How often the worker looks for due timers (expiry, cleaning). */
  readonly workerIntervalMs: number;
  /** Lease of a claimed outbox row: after a crash its postback or mail is retried this long after the claim (default 120 s). */
  readonly outboxLeaseMs?: number;
  /** Delay before the first retry of a postback or mail, doubled for each later one (default 30 s). */
  readonly retryBaseMs?: number;
  /** `postgres://…`: all state in PostgreSQL (docs/design/storage.md#scale-out) instead of SQLite under `dataDir`. */
  readonly databaseUrl?: string;
  /** Apply missing PostgreSQL migrations on start (`PARAPH_MIGRATE=1`); otherwise run `paraph migrate` first. */
  readonly migrateOnStart?: boolean;
  /** From address of the service's mails (default `paraph <noreply@<public URL host>>`). */
  readonly mailFrom?: string;
  /** Organization named by the advanced seal certificate (created on first start) and shown in seals. */
  readonly organizationName: string;
  /** The sender's name shown on the signing page and in mails (`PARAPH_SENDER_NAME`); none by default. */
  readonly senderName?: string;
  /** PKCS#11 modules the admin API may name for an account's qualified seal (`PARAPH_PKCS11_MODULES`). */
  readonly pkcs11Modules?: readonly string[];
  /** Reply-To of the mails to signers and receivers (`PARAPH_MAIL_REPLY_TO`); default the account's NotificationEmail. */
  readonly mailReplyTo?: string;
  /** Absolute path of the JSON file of identity providers (docs/verifications.md#configuration); none by default. */
  readonly identityProvidersFile?: string;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * The admin API's token (docs/design/accounts.md#admin-api): in clear (at least 32 characters) or sealed with the
   * master key (`paraph seal-secret --for admin-token`). Without it the admin API answers 401 to everything.
   */
  readonly adminToken?: string;
  /** Bearer token of `GET /metrics` on the service's address; without it the address serves no metrics. */
  readonly metricsToken?: string;
  /** A separate address serving only `/metrics` (the token applies there too when set). */
  readonly metricsListen?: { readonly host: string; readonly port: number };
  /** Seconds a SIGTERM waits for requests in flight before stopping signing at its next step (default 25). */
  readonly drainSeconds?: number;
  readonly bootstrapAccount?: BootstrapAccountConfig;
  /**
   * Postback secret of the bootstrap account (docs/design/events.md#checksum). Honoured alone too: on an existing data
   * directory it replaces the stored secret, which is how a secret is rotated. Never empty: without it one is
   * generated.
   */
  readonly postbackSecret?: string;
  /**
   * Where the bootstrap account's sender notices go (`SendEmailNotifications`), with configured or generated keys.
   * Honoured on every start: on an existing data directory it replaces the stored address.
   */
  readonly notificationEmail?: string;
  /**
   * Limits of every text extraction of uploaded PDFs that differ from the defaults of src/pdf/text-index/limits.ts
   * (20,000 pages, 15 s a page, 1024 MB heap, 3072 MB process); past one: 400 PDF_TOO_COMPLEX naming the page.
   */
  /** Text engine of Search locations (`PARAPH_TEXT_ENGINE`); unset: PDFium. */
  readonly textEngine?: 'pdfjs' | 'pdfium';
  readonly textIndexLimits?: {
    maxPages?: number;
    pageMs?: number;
    maxHeapMb?: number;
    maxRssMb?: number;
    maxWidgetsPerLocation?: number;
    maxWidgetsPerDocument?: number;
    maxSignaturesPerSigner?: number;
  };
  /** The security settings that were set; {@link securitySettings} adds the defaults. */
  readonly security?: Partial<SecuritySettings>;
}

/** Limits against hostile clients, postback targets and secrets at rest (SECURITY.md). */
export interface SecuritySettings {
  /** Time to receive a request's headers. */
  readonly headersTimeoutMs: number;
  /** Time to receive a request body of up to 1 MiB; larger bodies get `size / minUploadBytesPerSecond` more. */
  readonly bodyTimeoutMs: number;
  /** Slowest accepted upload rate: a PDF upload may take `bodyTimeoutMs + maxFileBytes / rate`. */
  readonly minUploadBytesPerSecond: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  readonly maxRequestsPerConnection: number;
  /** Open connections in total; more are closed at once. */
  readonly maxConnections: number;
  /** Open connections from one client address; more are closed at once. */
  readonly maxConnectionsPerAddress: number;
  /** Accept `http:` PostbackUrls (default: `https:` only). */
  readonly postbackAllowHttp: boolean;
  /** Address ranges (CIDR or single addresses) postbacks may reach although they are loopback/private/reserved. */
  readonly postbackAllowedRanges: readonly string[];
  /** Master key (32 bytes, base64 or hex) that encrypts private keys and sign tokens at rest; default: a key file in the data directory. */
  readonly masterKey?: string;
  /** Most pages an uploaded PDF may have. */
  readonly maxPages: number;
  /** Time one pdf-lib step of an upload or start may take, ms (plus 20 ms a page when the page count is known); then 400 PDF_TOO_COMPLEX. */
  readonly pdfWorkMs: number;
  /** Heap of the threads that run those steps, MB; past it 400 PDF_TOO_COMPLEX. */
  readonly pdfWorkHeapMb: number;
  /** Bytes of uploads one account may keep stored (429 above). */
  readonly accountStorageBytes: number;
  /** API requests per minute per account (429 with Retry-After above). */
  readonly accountRequestsPerMinute: number;
  /** Development only: write SMS one-time codes to the log. */
  readonly logVerificationCodes: boolean;
}

/** What {@link securitySettings} uses for every key that was not set: the defaults of src/config-settings.ts. */
export const DEFAULT_SECURITY_SETTINGS: SecuritySettings = {
  headersTimeoutMs: CONFIG_SETTINGS.headersTimeoutMs.default,
  bodyTimeoutMs: CONFIG_SETTINGS.bodyTimeoutMs.default,
  minUploadBytesPerSecond: CONFIG_SETTINGS.minUploadBytesPerSecond.default,
  keepAliveTimeoutMs: CONFIG_SETTINGS.keepAliveTimeoutMs.default,
  maxRequestsPerConnection: CONFIG_SETTINGS.maxRequestsPerConnection.default,
  maxConnections: CONFIG_SETTINGS.maxConnections.default,
  maxConnectionsPerAddress: CONFIG_SETTINGS.maxConnectionsPerAddress.default,
  postbackAllowHttp: CONFIG_SETTINGS.postbackAllowHttp.default,
  postbackAllowedRanges: [],
  maxPages: CONFIG_SETTINGS.maxPages.default,
  pdfWorkMs: CONFIG_SETTINGS.pdfWorkMs.default,
  pdfWorkHeapMb: CONFIG_SETTINGS.pdfWorkHeapMb.default,
  accountStorageBytes: CONFIG_SETTINGS.accountStorageBytes.default,
  accountRequestsPerMinute: CONFIG_SETTINGS.accountRequestsPerMinute.default,
  logVerificationCodes: CONFIG_SETTINGS.logVerificationCodes.default,
};

/** The security settings of `config` with the defaults filled in. */
export function securitySettings(config: Pick<ServiceConfig, 'security'>): SecuritySettings {
  return { ...DEFAULT_SECURITY_SETTINGS, ...config.security };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const FILE_KEYS = new Set(Object.values(CONFIG_SETTINGS).map((k) => k.file.split('.')[0] as string));

/**
 * PostgreSQL mode keeps no state on local disk, and mails written as files on one machine would be found
 * by nobody on the others: it needs an SMTP server, or a mail directory named on purpose (development, a shared mount).
 */
function pgMailIssue(config: { readonly smtpUrl?: string | undefined; readonly mailDir?: string | undefined }, where: string): string | undefined {
  if (config.smtpUrl !== undefined || config.mailDir !== undefined) return undefined;
  return (
    `${where}: PostgreSQL mode keeps nothing on local disk, so mails need ${CONFIG_SETTINGS.smtpUrl.env} (smtp://…); ` +
    `to write them as .eml files instead, name a directory with ${CONFIG_SETTINGS.mailDir.env}`
  );
}

/**
 * Where `.eml` mails go when no SMTP server is configured: `mailDir`, else `<dataDir>/mail` on the embedded store.
 *
 * @throws ValidationError `INVALID_CONFIG` in PostgreSQL mode without SMTP server and mail directory (a configuration
 *   built without {@link loadConfig}).
 */
export function mailDirectory(config: ServiceConfig): string {
  const issue = config.databaseUrl === undefined ? undefined : pgMailIssue(config, CONFIG_SETTINGS.databaseUrl.env);
  if (issue !== undefined) throw new ValidationError([`configuration: ${issue}`], 'INVALID_CONFIG');
  return config.mailDir ?? join(config.dataDir, 'mail');
}

/** Inputs of {@link loadConfig}. */
export interface LoadConfigInput {
  /** The process environment (or a test's). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Text of the JSON config file named by `PARAPH_CONFIG`, when there is one. */
  readonly fileText?: string;
  /** Name of that file, for messages. */
  readonly fileName?: string;
  /** Base for relative paths (default: the current directory). */
  readonly cwd?: string;
}

/**
 * Reads and validates the configuration. Every problem is collected; the ValidationError lists them all.
 *
 * @throws ValidationError `INVALID_CONFIG` naming each bad variable or key.
 * @example
 * const config = loadConfig({ env: process.env });
 */
export function loadConfig(input: LoadConfigInput): ServiceConfig {
  const issues: string[] = [];
  const fileValues = parseFile(input, issues);
  const cwd = input.cwd ?? process.cwd();

  const raw = (key: ConfigKey): { value: string | number | boolean; where: string } | undefined => {
    const spec = CONFIG_SETTINGS[key];
    const envValue = input.env[spec.env];
    if (envValue !== undefined && envValue !== '') return { value: envValue, where: spec.env };
    const fileValue = fileValues.get(spec.file);
    if (fileValue !== undefined) return { value: fileValue, where: `${input.fileName ?? 'config file'}: ${spec.file}` };
    return undefined;
  };
  const str = (key: ConfigKey): string | undefined => {
    const r = raw(key);
    if (r === undefined) return undefined;
    if (typeof r.value !== 'string' || r.value.trim() === '') {
      issues.push(`${r.where}: must be a non-empty string`);
      return undefined;
    }
    return r.value;
  };
  /** An integer setting within its declared bounds; absent (or invalid, with an issue noted): its declared default. */
  const int = (key: ConfigKey): number => {
    const { min = 0, max = Number.MAX_SAFE_INTEGER, default: declared } = configSetting(key);
    const fallback = typeof declared === 'number' ? declared : min;
    const r = raw(key);
    if (r === undefined) return fallback;
    const n = typeof r.value === 'number' ? r.value : typeof r.value === 'string' && /^-?\d+$/.test(r.value.trim()) ? Number(r.value) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      issues.push(`${r.where}: must be an integer from ${min} to ${max} (got ${JSON.stringify(r.value)})`);
      return fallback;
    }
    return n;
  };

  const host = str('host') ?? CONFIG_SETTINGS.host.default;
  const port = int('port');
  const dataDir = resolve(cwd, str('dataDir') ?? CONFIG_SETTINGS.dataDir.default);
  const sqliteDriver = str('sqliteDriver');
  if (sqliteDriver !== undefined && !SQLITE_DRIVERS.includes(sqliteDriver as SqliteDriverName)) {
    issues.push(`${raw('sqliteDriver')?.where ?? ''}: must be one of ${SQLITE_DRIVERS.join(', ')} (got ${JSON.stringify(sqliteDriver)})`);
  }
  let publicUrl = str('publicUrl') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  publicUrl = checkUrl(publicUrl, raw('publicUrl')?.where ?? CONFIG_SETTINGS.publicUrl.env, ['http:', 'https:'], issues).replace(/\/+$/, '');
  const tsaRaw = str('tsaUrl');
  const tsaUrl = tsaRaw === undefined ? undefined : checkUrl(tsaRaw, raw('tsaUrl')?.where ?? '', ['http:', 'https:'], issues);
  const smtpRaw = str('smtpUrl');
  const smtpUrl = smtpRaw === undefined ? undefined : checkUrl(smtpRaw, raw('smtpUrl')?.where ?? '', ['smtp:', 'smtps:'], issues);
  const retentionDays = int('retentionDays');
  const postbackSecretOverlapSeconds = int('postbackSecretOverlapSeconds');
  const deleteGraceMinutes = int('deleteGraceMinutes');
  const maxFileBytes = int('maxFileBytes');
  const fileReplaceGuardMs = int('fileReplaceGuardMs');
  const workerIntervalMs = int('workerIntervalMs');
  const outboxLeaseMs = raw('outboxLeaseMs') === undefined ? undefined : int('outboxLeaseMs');
  const retryBaseMs = raw('retryBaseMs') === undefined ? undefined : int('retryBaseMs');
  const mailFrom = str('mailFrom');
  const databaseUrl = str('databaseUrl');
  // The URL may hold a password: never echoed in a message.
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    issues.push(`${raw('databaseUrl')?.where ?? CONFIG_SETTINGS.databaseUrl.env}: must be a postgres:// or postgresql:// URL`);
  }
  const mailDirRaw = str('mailDir');
  const mailDir = mailDirRaw === undefined ? undefined : resolve(cwd, mailDirRaw);
  const mailIssue = databaseUrl === undefined ? undefined : pgMailIssue({ smtpUrl: smtpRaw, mailDir }, raw('databaseUrl')?.where ?? CONFIG_SETTINGS.databaseUrl.env);
  if (mailIssue !== undefined) issues.push(mailIssue);
  const migrateRaw = raw('migrateOnStart');
  const migrateText = migrateRaw === undefined ? undefined : String(migrateRaw.value);
  if (migrateRaw !== undefined && !['0', '1', 'true', 'false'].includes(migrateText ?? '')) {
    issues.push(`${migrateRaw.where}: must be 1 or 0 (got ${JSON.stringify(migrateRaw.value)})`);
  }
  const migrateOnStart = migrateText === '1' || migrateText === 'true';
  const limit = (key: ConfigKey): number | undefined => (raw(key) === undefined ? undefined : int(key));
  const textIndexLimits = Object.fromEntries(
    Object.entries({
      maxPages: limit('textMaxPages'),
      pageMs: limit('textPageMs'),
      maxHeapMb: limit('textMaxHeapMb'),
      maxRssMb: limit('textMaxRssMb'),
      maxWidgetsPerLocation: limit('maxWidgetsPerLocation'),
      maxWidgetsPerDocument: limit('maxWidgetsPerDocument'),
      maxSignaturesPerSigner: limit('maxSignaturesPerSigner'),
    }).filter(([, v]) => v !== undefined),
  );
  const engineText = str('textEngine');
  let textEngine: ServiceConfig['textEngine'];
  if (engineText === 'pdfjs' || engineText === 'pdfium') textEngine = engineText;
  else if (engineText !== undefined) issues.push(`${raw('textEngine')?.where ?? ''}: must be pdfjs or pdfium (got ${JSON.stringify(engineText)})`);
  const organizationName = str('organizationName') ?? CONFIG_SETTINGS.organizationName.default;
  const senderName = str('senderName');
  const pkcs11Modules = str('pkcs11Modules')?.split(',').map((m) => m.trim()).filter((m) => m !== '');
  const identityProvidersRaw = str('identityProvidersFile');
  const identityProvidersFile = identityProvidersRaw === undefined ? undefined : resolve(cwd, identityProvidersRaw);
  const mailReplyTo = str('mailReplyTo');
  if (mailReplyTo !== undefined && !/^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/.test(mailReplyTo)) {
    issues.push(`${raw('mailReplyTo')?.where ?? CONFIG_SETTINGS.mailReplyTo.env}: must be one e-mail address such as contracts@example.com (got ${JSON.stringify(mailReplyTo)})`);
  }
  const level = str('logLevel') ?? CONFIG_SETTINGS.logLevel.default;
  let logLevel: ServiceConfig['logLevel'] = 'info';
  if ((LOG_LEVELS as readonly string[]).includes(level)) logLevel = level as ServiceConfig['logLevel'];
  else issues.push(`${raw('logLevel')?.where ?? ''}: must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(level)})`);

  const metricsToken = str('metricsToken');
  const adminToken = str('adminToken');
  if (adminToken !== undefined && !adminToken.startsWith('pmk1.') && adminToken.length < 32) {
    issues.push(`${raw('adminToken')?.where ?? CONFIG_SETTINGS.adminToken.env}: at least 32 characters (e.g. openssl rand -base64 32), or a value sealed with paraph seal-secret --for admin-token`);
  }
  const metricsListen = readListenAddress(str('metricsListen'), raw('metricsListen')?.where ?? '', issues);
  const drainSeconds = raw('drainSeconds') === undefined ? undefined : int('drainSeconds');

  const qualifiedSeal = readQualifiedSeal(str, int, raw, cwd, issues);
  const caModule = str('caPkcs11Module');
  let caToken: CaTokenConfig | undefined;
  if (caModule !== undefined) {
    const pin = str('caPkcs11Pin');
    const tokenLabel = str('caPkcs11Token');
    if (pin === undefined) issues.push(`${CONFIG_SETTINGS.caPkcs11Pin.env}: required with ${CONFIG_SETTINGS.caPkcs11Module.env}`);
    if (tokenLabel === undefined) issues.push(`${CONFIG_SETTINGS.caPkcs11Token.env}: required with ${CONFIG_SETTINGS.caPkcs11Module.env}`);
    caToken = {
      modulePath: caModule,
      pin: pin ?? '',
      tokenLabel: tokenLabel ?? '',
      signingCaKeyLabel: str('caPkcs11SigningKey') ?? CONFIG_SETTINGS.caPkcs11SigningKey.default,
      sealKeyLabel: str('caPkcs11SealKey') ?? CONFIG_SETTINGS.caPkcs11SealKey.default,
    };
  }

  const userToken = str('userToken');
  const appKey = str('appKey');
  const postbackSecret = str('postbackSecret');
  const notificationEmail = str('notificationEmail');
  let bootstrapAccount: BootstrapAccountConfig | undefined;
  if ((userToken === undefined) !== (appKey === undefined)) {
    issues.push(`${CONFIG_SETTINGS.userToken.env} and ${CONFIG_SETTINGS.appKey.env}: set both or neither`);
  } else if (userToken !== undefined && appKey !== undefined) {
    bootstrapAccount = {
      userToken,
      appKey,
      ...(notificationEmail !== undefined ? { notificationEmail } : {}),
    };
  }

  const security = readSecurity(raw, str, int, issues);

  if (issues.length > 0) throw new ValidationError(issues.map((i) => `configuration: ${i}`), 'INVALID_CONFIG');
  return {
    host,
    port,
    dataDir,
    ...(sqliteDriver !== undefined && SQLITE_DRIVERS.includes(sqliteDriver as SqliteDriverName) ? { sqliteDriver: sqliteDriver as SqliteDriverName } : {}),
    publicUrl,
    ...(raw('publicUrl') === undefined ? { publicUrlFromListenAddress: true } : {}),
    ...(tsaUrl !== undefined ? { tsaUrl } : {}),
    ...(qualifiedSeal !== undefined ? { qualifiedSeal } : {}),
    ...(caToken !== undefined ? { caToken } : {}),
    retentionDays,
    postbackSecretOverlapSeconds,
    deleteGraceMinutes,
    maxFileBytes,
    fileReplaceGuardMs,
    ...(smtpUrl !== undefined ? { smtpUrl } : {}),
    ...(mailDir !== undefined ? { mailDir } : {}),
    workerIntervalMs,
    ...(outboxLeaseMs !== undefined ? { outboxLeaseMs } : {}),
    ...(retryBaseMs !== undefined ? { retryBaseMs } : {}),
    ...(databaseUrl !== undefined ? { databaseUrl } : {}),
    ...(migrateOnStart ? { migrateOnStart } : {}),
    ...(mailFrom !== undefined ? { mailFrom } : {}),
    organizationName,
    ...(senderName !== undefined ? { senderName } : {}),
    ...(pkcs11Modules !== undefined ? { pkcs11Modules } : {}),
    ...(mailReplyTo !== undefined ? { mailReplyTo } : {}),
    ...(identityProvidersFile !== undefined ? { identityProvidersFile } : {}),
    logLevel,
    ...(metricsToken !== undefined ? { metricsToken } : {}),
    ...(adminToken !== undefined ? { adminToken } : {}),
    ...(metricsListen !== undefined ? { metricsListen } : {}),
    ...(drainSeconds !== undefined ? { drainSeconds } : {}),
    ...(bootstrapAccount !== undefined ? { bootstrapAccount } : {}),
    ...(postbackSecret !== undefined ? { postbackSecret } : {}),
    ...(notificationEmail !== undefined ? { notificationEmail } : {}),
    ...(Object.keys(textIndexLimits).length > 0 ? { textIndexLimits } : {}),
    ...(textEngine ? { textEngine } : {}),
    ...(Object.keys(security).length > 0 ? { security } : {}),
  };
}

/** Seconds a SIGTERM lets requests in flight finish (a Kubernetes pod gets 30 s before SIGKILL by default). */
export const DEFAULT_DRAIN_SECONDS: number = CONFIG_SETTINGS.drainSeconds.default;

/** `host:port`, `[ipv6]:port` or a bare port (on 127.0.0.1). */
function readListenAddress(text: string | undefined, where: string, issues: string[]): { host: string; port: number } | undefined {
  if (text === undefined) return undefined;
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65535) {
    issues.push(`${where}: must be host:port, [ipv6]:port or a port (got ${JSON.stringify(text)})`);
    return undefined;
  }
  return { host: (match[1] ?? '127.0.0.1').replace(/^\[|\]$/g, ''), port };
}

/** The security keys that were set; absent keys stay absent so the defaults apply. */
function readSecurity(
  raw: (key: ConfigKey) => { value: string | number | boolean; where: string } | undefined,
  str: (key: ConfigKey) => string | undefined,
  int: (key: ConfigKey) => number,
  issues: string[],
): Partial<SecuritySettings> {
  const out: { -readonly [K in keyof SecuritySettings]?: SecuritySettings[K] } = {};
  const intKeys = [
    'headersTimeoutMs', 'bodyTimeoutMs', 'minUploadBytesPerSecond', 'keepAliveTimeoutMs', 'maxRequestsPerConnection', 'maxConnections',
    'maxConnectionsPerAddress', 'maxPages', 'pdfWorkMs', 'pdfWorkHeapMb', 'accountStorageBytes', 'accountRequestsPerMinute',
  ] as const satisfies readonly (keyof SecuritySettings & ConfigKey)[];
  for (const key of intKeys) {
    if (raw(key) !== undefined) out[key] = int(key);
  }
  for (const key of ['postbackAllowHttp', 'logVerificationCodes'] as const) {
    const r = raw(key);
    if (r === undefined) continue;
    const text = String(r.value).trim().toLowerCase();
    if (text === 'true' || text === '1') out[key] = true;
    else if (text === 'false' || text === '0') out[key] = false;
    else issues.push(`${r.where}: must be true or false (got ${JSON.stringify(r.value)})`);
  }
  const ranges = str('postbackAllowedRanges');
  if (ranges !== undefined) {
    out.postbackAllowedRanges = ranges.split(',').map((r) => r.trim()).filter((r) => r !== '');
    for (const range of out.postbackAllowedRanges) {
      if (!(range.includes('/') ? ipaddr.isValidCIDR(range) : ipaddr.isValid(range))) {
        issues.push(`${raw('postbackAllowedRanges')?.where ?? ''}: ${JSON.stringify(range)} is not an IP address or CIDR range`);
      }
    }
  }
  const masterKey = str('masterKey');
  if (masterKey !== undefined) out.masterKey = masterKey;
  return out;
}

/** One line per setting, for `paraph serve --help`: variable, meaning, default, config file key. */
export function describeConfig(): string {
  const settings = (Object.keys(CONFIG_SETTINGS) as ConfigKey[]).map(configSetting);
  const width = Math.max(...settings.map((k) => k.env.length));
  return settings.map((k) => `  ${k.env.padEnd(width)}  ${k.description} (default ${defaultText(k)}) [file: ${k.file}]`).join('\n');
}

function readQualifiedSeal(
  str: (key: ConfigKey) => string | undefined,
  int: (key: ConfigKey) => number,
  raw: (key: ConfigKey) => { where: string } | undefined,
  cwd: string,
  issues: string[],
): QualifiedSealConfig | undefined {
  const p12 = str('qsealP12');
  const module = str('qsealPkcs11Module');
  if (p12 !== undefined && module !== undefined) {
    issues.push(`${CONFIG_SETTINGS.qsealP12.env} and ${CONFIG_SETTINGS.qsealPkcs11Module.env}: configure one qualified seal, not both`);
    return undefined;
  }
  if (p12 !== undefined) {
    const password = str('qsealP12Password');
    if (password === undefined) issues.push(`${CONFIG_SETTINGS.qsealP12Password.env}: required with ${CONFIG_SETTINGS.qsealP12.env}`);
    return { kind: 'pkcs12', path: resolve(cwd, p12), password: password ?? '' };
  }
  if (module !== undefined) {
    const pin = str('qsealPkcs11Pin');
    if (pin === undefined) issues.push(`${CONFIG_SETTINGS.qsealPkcs11Pin.env}: required with ${CONFIG_SETTINGS.qsealPkcs11Module.env}`);
    const tokenLabel = str('qsealPkcs11Token');
    const keyLabel = str('qsealPkcs11Key');
    const slotGiven = raw('qsealPkcs11Slot') !== undefined;
    const slotIndex = int('qsealPkcs11Slot');
    if (tokenLabel === undefined && !slotGiven) {
      issues.push(`${CONFIG_SETTINGS.qsealPkcs11Token.env} or ${CONFIG_SETTINGS.qsealPkcs11Slot.env}: one is required with ${CONFIG_SETTINGS.qsealPkcs11Module.env}`);
    }
    return {
      kind: 'pkcs11',
      modulePath: module,
      pin: pin ?? '',
      ...(tokenLabel !== undefined ? { tokenLabel } : {}),
      ...(slotGiven ? { slotIndex } : {}),
      ...(keyLabel !== undefined ? { keyLabel } : {}),
    };
  }
  return undefined;
}

function checkUrl(value: string, where: string, protocols: readonly string[], issues: string[]): string {
  try {
    const url = new URL(value);
    if (!protocols.includes(url.protocol)) {
      issues.push(`${where}: must be a ${protocols.join(' or ')} URL (got ${JSON.stringify(value)})`);
    }
  } catch {
    issues.push(`${where}: not a valid URL (got ${JSON.stringify(value)})`);
  }
  return value;
}

function parseFile(input: LoadConfigInput, issues: string[]): Map<string, string | number | boolean> {
  const values = new Map<string, string | number | boolean>();
  if (input.fileText === undefined) return values;
  const name = input.fileName ?? 'config file';
  let parsed: unknown;
  try {
    parsed = JSON.parse(input.fileText);
  } catch (error) {
    issues.push(`${name}: not valid JSON (${(error as Error).message})`);
    return values;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    issues.push(`${name}: must be a JSON object`);
    return values;
  }
  const walk = (obj: Record<string, unknown>, prefix: string): void => {
    for (const [key, value] of Object.entries(obj)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (!prefix && !FILE_KEYS.has(key)) {
        issues.push(`${name}: unknown key "${key}" (known: ${[...FILE_KEYS].join(', ')})`);
      } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        walk(value as Record<string, unknown>, path);
      } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
        if (!Object.values(CONFIG_SETTINGS).some((k) => k.file === path)) issues.push(`${name}: unknown key "${path}"`);
        else values.set(path, value);
      } else {
        issues.push(`${name}: ${path} must be a string or a number`);
      }
    }
  };
  walk(parsed as Record<string, unknown>, '');
  return values;
}
