/**
 * Every setting of the transaction service, declared once: its environment variable, its key in the JSON config file,
 * its type, unit, bounds, default and meaning. loadConfig (src/config.ts) reads and checks the settings by this table,
 * `paraph serve --help` prints it, and the settings tables of docs/configuration.md, SECURITY.md and the README are
 * generated from it (`npx tsx scripts/generate-config-doc.ts`; test/config-doc.test.ts fails when they drift).
 * Defaults owned by the module that applies them (limits of PDF work, text extraction, quotas, retries) are
 * referenced here, not copied.
 */
import { DEFAULT_NODE_TIMEOUT_MS, DEFAULT_OUTBOX_LEASE_MS, RETRY_BASE_MS } from './events/backoff.js';
import { DEFAULT_INDEX_LIMITS } from './pdf/text-index/limits.js';
import { DEFAULT_PDF_WORK_LIMITS } from './service/pdf-jobs/pdf-work.js';
import { DEFAULT_SERVICE_QUOTAS } from './service/policies/service-quotas.js';

/** What a setting's value is. */
export type ConfigSettingType = 'text' | 'integer' | 'boolean' | 'url' | 'path' | 'choice' | 'address' | 'list' | 'secret' | 'email';

/** One setting. */
export interface ConfigSetting {
  /** Environment variable. */
  readonly env: string;
  /** Dotted key in the JSON config file. */
  readonly file: string;
  readonly type: ConfigSettingType;
  /** Unit of an integer. */
  readonly unit?: 'ms' | 'seconds' | 'minutes' | 'days' | 'bytes' | 'bytes/s' | 'MB' | 'pages' | 'count' | 'per minute';
  /** Smallest and largest accepted integer. */
  readonly min?: number;
  readonly max?: number;
  /** The value used when the setting is absent. */
  readonly default?: number | string | boolean;
  /** How the default reads when it is computed, generated or absent (instead of {@link default}). */
  readonly defaultText?: string;
  /** One line: `paraph serve --help` and the docs tables. */
  readonly description: string;
  /** More for the docs tables only. */
  readonly details?: string;
  /** `security`: limits against hostile clients and secrets at rest, listed in SECURITY.md too. */
  readonly section: 'service' | 'security';
  /** Listed in the README's short table. */
  readonly essential?: true;
}

const MS = { type: 'integer', unit: 'ms' } as const;

/** The settings, in the order help and docs list them. */
export const CONFIG_SETTINGS = {
  host: { env: 'HOST', file: 'host', type: 'text', default: '127.0.0.1', description: 'interface to listen on', section: 'service', essential: true },
  port: { env: 'PORT', file: 'port', type: 'integer', min: 0, max: 65535, default: 8080, description: 'TCP port to listen on; 0 picks a free port (links then use the real one)', section: 'service', essential: true },
  dataDir: { env: 'PARAPH_DATA_DIR', file: 'dataDir', type: 'path', default: './data', description: 'data directory: SQLite database, documents, .eml mails (created 0700, files 0600)', section: 'service', essential: true },
  sqliteDriver: {
    env: 'PARAPH_SQLITE_DRIVER', file: 'sqliteDriver', type: 'choice', defaultText: 'node:sqlite on Node 24+, else better-sqlite3', description: 'SQLite driver of the embedded store: better-sqlite3 or node:sqlite',
    details: 'on Node 24.19 and later, native addons built on node::ObjectWrap (better-sqlite3 12) can abort the process when the garbage collector frees their objects, so Node 24 uses the built-in driver, which needs no native build',
    section: 'service',
  },
  publicUrl: { env: 'PARAPH_PUBLIC_URL', file: 'publicUrl', type: 'url', defaultText: 'http://HOST:PORT', description: 'public base URL of SignUrl, ShowUrl, ReceiptUrl and file Links', section: 'service', essential: true },
  userToken: { env: 'PARAPH_USER_TOKEN', file: 'bootstrapAccount.userToken', type: 'secret', defaultText: 'generated, printed once', description: 'user token of the bootstrap account (set it together with PARAPH_APP_KEY)', section: 'service', essential: true },
  appKey: { env: 'PARAPH_APP_KEY', file: 'bootstrapAccount.appKey', type: 'secret', defaultText: 'generated, printed once', description: 'application key of the bootstrap account', section: 'service', essential: true },
  postbackSecret: { env: 'PARAPH_POSTBACK_SECRET', file: 'postbackSecret', type: 'secret', defaultText: 'generated, printed once', description: 'postback secret of the bootstrap account; honoured alone, also on an existing data directory: set a new one and restart to rotate it', section: 'service', essential: true },
  postbackSecretOverlapSeconds: {
    env: 'PARAPH_POSTBACK_SECRET_OVERLAP_SECONDS', file: 'postbackSecretOverlapSeconds', type: 'integer', unit: 'seconds', min: 0, max: 2_592_000, default: 86_400,
    description: 'after an account gets a new postback secret, how long postbacks are also signed with the old one (receivers switch within it); 0 drops the old one at once',
    section: 'service',
  },
  notificationEmail: {
    env: 'PARAPH_NOTIFICATION_EMAIL', file: 'bootstrapAccount.notificationEmail', type: 'email', defaultText: 'none', description: "where the bootstrap account's sender notices (SendEmailNotifications) go, with configured or generated keys; honoured on every start",
    details: 'without an address notices are not sent, and the first one is logged as a warning', section: 'service',
  },
  tsaUrl: { env: 'PARAPH_TSA_URL', file: 'tsaUrl', type: 'url', defaultText: 'none', description: 'RFC 3161 time-stamp authority: signatures and seals become PAdES B-T', section: 'service', essential: true },
  qsealP12: { env: 'PARAPH_QSEAL_P12', file: 'qualifiedSeal.pkcs12', type: 'path', defaultText: 'none', description: 'PKCS#12 file of a qualified seal (every seal then uses it)', section: 'service' },
  qsealP12Password: { env: 'PARAPH_QSEAL_P12_PASSWORD', file: 'qualifiedSeal.password', type: 'secret', defaultText: 'none', description: 'password of that PKCS#12 file', section: 'service' },
  qsealPkcs11Module: { env: 'PARAPH_QSEAL_PKCS11_MODULE', file: 'qualifiedSeal.pkcs11Module', type: 'path', defaultText: 'none', description: 'PKCS#11 module of a qualified seal token', section: 'service' },
  qsealPkcs11Pin: { env: 'PARAPH_QSEAL_PKCS11_PIN', file: 'qualifiedSeal.pin', type: 'secret', defaultText: 'none', description: 'user PIN of that token', section: 'service' },
  qsealPkcs11Token: { env: 'PARAPH_QSEAL_PKCS11_TOKEN', file: 'qualifiedSeal.tokenLabel', type: 'text', defaultText: 'none', description: 'label of that token', section: 'service' },
  qsealPkcs11Slot: { env: 'PARAPH_QSEAL_PKCS11_SLOT', file: 'qualifiedSeal.slotIndex', type: 'integer', unit: 'count', min: 0, max: 1023, defaultText: 'none', description: 'slot index of that token when no token label is given', section: 'service' },
  qsealPkcs11Key: { env: 'PARAPH_QSEAL_PKCS11_KEY', file: 'qualifiedSeal.keyLabel', type: 'text', defaultText: 'the first key', description: 'CKA_LABEL of the qualified seal key', section: 'service' },
  pkcs11Modules: {
    env: 'PARAPH_PKCS11_MODULES', file: 'pkcs11Modules', type: 'list', defaultText: 'the modules of PARAPH_QSEAL_PKCS11_MODULE and PARAPH_CA_PKCS11_MODULE', description: "comma-separated paths of the PKCS#11 modules the admin API may name for an account's qualified seal (docs/design/accounts.md#seals)",
    details: 'the service loads the module an admin names: only these, never an arbitrary library', section: 'security',
  },
  caPkcs11Module: { env: 'PARAPH_CA_PKCS11_MODULE', file: 'caToken.pkcs11Module', type: 'path', defaultText: 'none: keys in the store', description: 'PKCS#11 module of the token holding the signing CA and advanced seal keys instead of the store', section: 'security' },
  caPkcs11Pin: { env: 'PARAPH_CA_PKCS11_PIN', file: 'caToken.pin', type: 'secret', defaultText: 'none', description: 'user PIN of that token', section: 'security' },
  caPkcs11Token: { env: 'PARAPH_CA_PKCS11_TOKEN', file: 'caToken.tokenLabel', type: 'text', defaultText: 'none', description: 'label of that token', section: 'security' },
  caPkcs11SigningKey: { env: 'PARAPH_CA_PKCS11_SIGNING_KEY', file: 'caToken.signingCaKeyLabel', type: 'text', default: 'paraph-signing-ca', description: 'CKA_LABEL of the signing CA key on that token', section: 'security' },
  caPkcs11SealKey: { env: 'PARAPH_CA_PKCS11_SEAL_KEY', file: 'caToken.sealKeyLabel', type: 'text', default: 'paraph-seal', description: 'CKA_LABEL of the advanced seal key on that token', section: 'security' },
  organizationName: { env: 'PARAPH_ORGANIZATION', file: 'organizationName', type: 'text', default: 'paraph', description: 'organization named by the advanced seal certificate, in seals, and, for accounts without a branding DisplayName, in mails ("<organization> via paraph") and on the signing page', section: 'service', essential: true },
  senderName: { env: 'PARAPH_SENDER_NAME', file: 'senderName', type: 'text', defaultText: 'none', description: 'person or team who sends the signing requests, shown on the signing page and in mails with the notification address', section: 'service' },
  identityProvidersFile: { env: 'PARAPH_IDENTITY_PROVIDERS_FILE', file: 'identityProvidersFile', type: 'path', defaultText: 'none', description: 'JSON file of the OpenID Connect identity providers per verification Type (docs/verifications.md#configuration)', section: 'service' },
  mailReplyTo: { env: 'PARAPH_MAIL_REPLY_TO', file: 'mailReplyTo', type: 'email', defaultText: "the account's notification address", description: 'Reply-To address of mails to signers and receivers of accounts without a branding ReplyTo', section: 'service' },
  retentionDays: { env: 'PARAPH_RETENTION_DAYS', file: 'retentionDays', type: 'integer', unit: 'days', min: 0, max: 36_500, default: 30, description: 'days after the end of a transaction before its documents and sensitive data are cleaned (0 allowed)', section: 'service', essential: true },
  deleteGraceMinutes: { env: 'PARAPH_DELETE_GRACE_MINUTES', file: 'deleteGraceMinutes', type: 'integer', unit: 'minutes', min: 0, max: 10_080, default: 15, description: 'after DELETE, how long documents and the receipt stay downloadable', section: 'service' },
  maxFileBytes: { env: 'PARAPH_MAX_FILE_BYTES', file: 'maxFileBytes', type: 'integer', unit: 'bytes', min: 1024, max: 2 ** 32, default: 50 * 1024 * 1024, description: 'largest PDF upload (413 above)', section: 'service', essential: true },
  fileReplaceGuardMs: { env: 'PARAPH_FILE_REPLACE_GUARD_MS', file: 'fileReplaceGuardMs', ...MS, min: 0, max: 3_600_000, default: 1000, description: 'window in which a repeated upload of the same file answers 409', section: 'service' },
  smtpUrl: { env: 'PARAPH_SMTP_URL', file: 'smtpUrl', type: 'url', defaultText: 'none: .eml files', description: 'smtp://user:pass@host:port of the mail server; required with PARAPH_DATABASE_URL unless PARAPH_MAIL_DIR is set', section: 'service', essential: true },
  mailFrom: { env: 'PARAPH_MAIL_FROM', file: 'mailFrom', type: 'text', defaultText: 'paraph <noreply@public URL host>', description: 'From address of mails', section: 'service' },
  mailDir: { env: 'PARAPH_MAIL_DIR', file: 'mailDir', type: 'path', defaultText: '<data dir>/mail; none on PostgreSQL', description: 'directory of .eml files when no mail server is configured', section: 'service' },
  workerIntervalMs: { env: 'PARAPH_WORKER_INTERVAL_MS', file: 'workerIntervalMs', ...MS, min: 10, max: 3_600_000, default: 5000, description: 'how often the worker looks for due timers (expiry, cleaning)', section: 'service' },
  outboxLeaseMs: {
    env: 'PARAPH_OUTBOX_LEASE_MS', file: 'outboxLeaseMs', ...MS, min: 1000, max: 3_600_000, default: DEFAULT_OUTBOX_LEASE_MS, description: 'lease of a postback or mail being delivered: after a crash it is retried this long after the claim',
    details: `on PostgreSQL: how long a silent process keeps its jobs (default ${DEFAULT_NODE_TIMEOUT_MS})`, section: 'service',
  },
  retryBaseMs: { env: 'PARAPH_RETRY_BASE_MS', file: 'retryBaseMs', ...MS, min: 100, max: 3_600_000, default: RETRY_BASE_MS, description: 'first retry of a failed postback or mail after 50–100 % of this, then doubling up to an hour apart, for 72 h', section: 'service' },
  databaseUrl: { env: 'PARAPH_DATABASE_URL', file: 'databaseUrl', type: 'url', defaultText: 'none: SQLite in the data directory', description: 'postgres:// URL: all state in PostgreSQL, shared by many processes', section: 'service' },
  migrateOnStart: { env: 'PARAPH_MIGRATE', file: 'migrate', type: 'boolean', default: false, description: 'apply missing PostgreSQL migrations on start (otherwise an old schema is refused: run paraph migrate)', section: 'service' },
  logLevel: { env: 'PARAPH_LOG_LEVEL', file: 'logLevel', type: 'choice', default: 'info', description: 'log level: fatal, error, warn, info, debug, trace or silent', section: 'service' },
  adminToken: { env: 'PARAPH_ADMIN_TOKEN', file: 'admin.token', type: 'secret', defaultText: 'none: the admin API answers 401', description: 'token of the admin API under /api/admin: at least 32 characters, or sealed with paraph seal-secret --for admin-token (docs/design/accounts.md#admin-api)', section: 'service' },
  metricsToken: { env: 'PARAPH_METRICS_TOKEN', file: 'metrics.token', type: 'secret', defaultText: 'none: no /metrics there', description: 'bearer token of GET /metrics on the service address (docs/operations.md#metrics)', section: 'service' },
  metricsListen: { env: 'PARAPH_METRICS_LISTEN', file: 'metrics.listen', type: 'address', defaultText: 'none', description: 'host:port of a separate listener serving only /metrics (the token applies there too when set)', section: 'service' },
  drainSeconds: { env: 'PARAPH_DRAIN_SECONDS', file: 'drainSeconds', type: 'integer', unit: 'seconds', min: 0, max: 3600, default: 25, description: 'on SIGTERM, how long requests in flight may finish before signing still in progress is stopped', section: 'service' },
  textEngine: { env: 'PARAPH_TEXT_ENGINE', file: 'textIndex.engine', type: 'choice', default: 'pdfium', description: 'text engine of Search locations: pdfium (PDFium in WebAssembly) or pdfjs; same boxes within 1 pt', section: 'service' },
  textMaxPages: { env: 'PARAPH_TEXT_MAX_PAGES', file: 'textIndex.maxPages', type: 'integer', unit: 'pages', min: 1, max: 1_000_000, default: DEFAULT_INDEX_LIMITS.maxPages, description: "most pages of a PDF whose text is read (400 PDF_TOO_COMPLEX above)", section: 'security' },
  textPageMs: { env: 'PARAPH_TEXT_PAGE_MS', file: 'textIndex.pageMs', ...MS, min: 100, max: 3_600_000, default: DEFAULT_INDEX_LIMITS.pageMs, description: 'time reading one page\'s text may take (400 PDF_TOO_COMPLEX naming the page past it)', section: 'security' },
  textMaxHeapMb: { env: 'PARAPH_TEXT_MAX_HEAP_MB', file: 'textIndex.maxHeapMb', type: 'integer', unit: 'MB', min: 64, max: 65_536, default: DEFAULT_INDEX_LIMITS.maxHeapMb, description: 'heap of the text extraction thread for a heavy page', section: 'security' },
  textMaxRssMb: { env: 'PARAPH_TEXT_MAX_RSS_MB', file: 'textIndex.maxRssMb', type: 'integer', unit: 'MB', min: 128, max: 1_048_576, default: DEFAULT_INDEX_LIMITS.maxRssMb, description: 'process memory past which a text extraction is stopped; also the memory PDF jobs are admitted within', section: 'security' },
  maxWidgetsPerLocation: { env: 'PARAPH_MAX_WIDGETS_PER_LOCATION', file: 'textIndex.maxWidgetsPerLocation', type: 'integer', unit: 'count', min: 1, max: 1_000_000, default: DEFAULT_INDEX_LIMITS.maxWidgetsPerLocation, description: 'widgets one Location without Occurence may get, one per Search match (400 naming the field and the count above)', section: 'security' },
  maxWidgetsPerDocument: { env: 'PARAPH_MAX_WIDGETS_PER_DOCUMENT', file: 'textIndex.maxWidgetsPerDocument', type: 'integer', unit: 'count', min: 1, max: 1_000_000, default: DEFAULT_INDEX_LIMITS.maxWidgetsPerDocument, description: "widgets of all fields of one document, its own fields included (400 DOCUMENT_TOO_MANY_WIDGETS above)", section: 'security' },
  maxSignaturesPerSigner: { env: 'PARAPH_MAX_SIGNATURES_PER_SIGNER', file: 'textIndex.maxSignaturesPerSigner', type: 'integer', unit: 'count', min: 1, max: 10_000, default: DEFAULT_INDEX_LIMITS.maxSignaturesPerSigner, description: 'Signature fields one signer signs in one document (400 SIGNER_TOO_MANY_SIGNATURES above)', section: 'security' },
  headersTimeoutMs: { env: 'PARAPH_HEADERS_TIMEOUT_MS', file: 'security.headersTimeoutMs', ...MS, min: 100, max: 3_600_000, default: 10_000, description: "time to receive a request's headers (408, then closed)", section: 'security' },
  bodyTimeoutMs: {
    env: 'PARAPH_BODY_TIMEOUT_MS', file: 'security.bodyTimeoutMs', ...MS, min: 100, max: 3_600_000, default: 15_000, description: 'time to receive a request body of up to 1 MiB; larger bodies get size / PARAPH_MIN_UPLOAD_BYTES_PER_SECOND more',
    details: 'every request body gets it, whatever length it declares and however it is chunked; the largest PDF upload gets 15 s + 49 MiB / 64 KiB/s ≈ 13.5 min', section: 'security',
  },
  minUploadBytesPerSecond: { env: 'PARAPH_MIN_UPLOAD_BYTES_PER_SECOND', file: 'security.minUploadBytesPerSecond', type: 'integer', unit: 'bytes/s', min: 1, max: 2 ** 32, default: 64 * 1024, description: 'slowest accepted upload rate', section: 'security' },
  keepAliveTimeoutMs: { env: 'PARAPH_KEEP_ALIVE_TIMEOUT_MS', file: 'security.keepAliveTimeoutMs', ...MS, min: 100, max: 3_600_000, default: 5_000, description: 'an idle keep-alive connection is closed after this', section: 'security' },
  maxRequestsPerConnection: { env: 'PARAPH_MAX_REQUESTS_PER_CONNECTION', file: 'security.maxRequestsPerConnection', type: 'integer', unit: 'count', min: 1, max: 1_000_000, default: 1_000, description: 'requests on one keep-alive connection', section: 'security' },
  maxConnections: { env: 'PARAPH_MAX_CONNECTIONS', file: 'security.maxConnections', type: 'integer', unit: 'count', min: 1, max: 1_000_000, default: 2_048, description: 'open connections in total; at the cap a new one takes the slot of the oldest stalled or idle connection', section: 'security' },
  maxConnectionsPerAddress: { env: 'PARAPH_MAX_CONNECTIONS_PER_ADDRESS', file: 'security.maxConnectionsPerAddress', type: 'integer', unit: 'count', min: 1, max: 1_000_000, default: 64, description: 'open connections per client (IPv4 address, IPv6 /64); more are closed at once', section: 'security' },
  postbackAllowHttp: { env: 'PARAPH_POSTBACK_ALLOW_HTTP', file: 'security.postbackAllowHttp', type: 'boolean', default: false, description: 'accept http: PostbackUrls and account logo URLs (otherwise https: only)', section: 'security' },
  postbackAllowedRanges: { env: 'PARAPH_POSTBACK_ALLOWED_RANGES', file: 'security.postbackAllowedRanges', type: 'list', defaultText: 'none', description: 'comma-separated CIDRs postbacks and account logo fetches may reach although loopback/private (development and tests only, e.g. 127.0.0.0/8)', section: 'security' },
  masterKey: { env: 'PARAPH_MASTER_KEY', file: 'security.masterKey', type: 'secret', defaultText: 'generated into <data dir>/master.key', description: '32 bytes, base64 or hex (openssl rand -base64 32), encrypting private keys and sign tokens at rest; required on PostgreSQL', section: 'security', essential: true },
  maxPages: { env: 'PARAPH_MAX_PAGES', file: 'security.maxPages', type: 'integer', unit: 'pages', min: 1, max: 10_000_000, default: DEFAULT_SERVICE_QUOTAS.maxPages, description: 'most pages of an uploaded PDF', section: 'security' },
  pdfWorkMs: {
    env: 'PARAPH_PDF_WORK_MS', file: 'security.pdfWorkMs', ...MS, min: 100, max: 3_600_000, default: DEFAULT_PDF_WORK_LIMITS.baseMs, description: `time one step of opening, checking or writing a PDF may take, plus ${DEFAULT_PDF_WORK_LIMITS.perPageMs} ms a page when the page count is known (400 PDF_TOO_COMPLEX past it)`,
    details: 'each pdf-lib step of an upload or start runs in a child process, which is replaced past a limit', section: 'security',
  },
  pdfWorkHeapMb: { env: 'PARAPH_PDF_WORK_HEAP_MB', file: 'security.pdfWorkHeapMb', type: 'integer', unit: 'MB', min: 64, max: 65_536, default: DEFAULT_PDF_WORK_LIMITS.maxHeapMb, description: 'heap of a process that opens, checks or writes PDFs; its resident memory may reach 2 × heap + 1024 MB', section: 'security' },
  accountStorageBytes: { env: 'PARAPH_ACCOUNT_STORAGE_BYTES', file: 'security.accountStorageBytes', type: 'integer', unit: 'bytes', min: 1024, max: 2 ** 52, default: DEFAULT_SERVICE_QUOTAS.accountStorageBytes, description: 'documents one account may keep until cleaned: uploads and the PDFs made from them (429 above)', section: 'security' },
  accountRequestsPerMinute: { env: 'PARAPH_ACCOUNT_REQUESTS_PER_MINUTE', file: 'security.accountRequestsPerMinute', type: 'integer', unit: 'per minute', min: 1, max: 10_000_000, default: 1_200, description: 'API requests per account (token bucket, burst of one minute; 429 with Retry-After above)', section: 'security' },
  logVerificationCodes: { env: 'PARAPH_DEV_LOG_VERIFICATION_CODES', file: 'security.logVerificationCodes', type: 'boolean', default: false, description: 'development only: log SMS one-time codes (there is no SMS gateway by default)', section: 'security' },
} as const satisfies Record<string, ConfigSetting>;

/** A setting's name in {@link CONFIG_SETTINGS}. */
export type ConfigKey = keyof typeof CONFIG_SETTINGS;

/** The declaration of `key`, widened to {@link ConfigSetting}. */
export function configSetting(key: ConfigKey): ConfigSetting {
  return CONFIG_SETTINGS[key];
}

const BINARY_UNITS: readonly [number, string][] = [
  [1024 ** 3, 'GiB'],
  [1024 ** 2, 'MiB'],
  [1024, 'KiB'],
];

/** The default as the help and the docs show it: `52428800 bytes (50 MiB)`, `30 days`, `none`. */
export function defaultText(setting: ConfigSetting): string {
  if (setting.defaultText !== undefined) return setting.defaultText;
  const value = setting.default;
  if (value === undefined) return 'none';
  if (typeof value !== 'number') return String(value);
  const unit = setting.unit === undefined || setting.unit === 'count' ? '' : ` ${setting.unit}`;
  const binary = setting.unit === 'bytes' || setting.unit === 'bytes/s' ? BINARY_UNITS.find(([size]) => value >= size && value % size === 0) : undefined;
  return `${value}${unit}${binary === undefined ? '' : ` (${value / binary[0]} ${binary[1]})`}`;
}

/** The type as the docs show it: `integer, ms, 100–3600000`. */
export function typeText(setting: ConfigSetting): string {
  const range = setting.min !== undefined && setting.max !== undefined ? `${setting.min}–${setting.max}` : undefined;
  return [setting.type, setting.unit, range].filter((part) => part !== undefined).join(', ');
}
