/**
 * Pluggable senders of the one-time codes of the `PhoneNumber` and `Email` verifications
 * (docs/design/signer-api.md#codes). A sender turns a code into outbox rows committed with the change that created the
 * code (so a code is sent exactly when it is stored) and/or a side effect of its own. Defaults: SMS codes are written
 * to the outbox log (a log line; no SMS gateway is configured by default), e-mail codes become a `verification-code`
 * mail row that the mail worker delivers. External identity methods (DigiD, iDIN, …) go through
 * {@link IdentityProvider}; none is configured by default.
 */
import { mailRow } from './mail-payload.js';
import type { Language } from '../../i18n/languages.js';
import type { OutboxInput } from '../../store/store.js';

/** One code to deliver. */
export interface CodeMessage {
  readonly transactionId: string;
  readonly signerId: string;
  /** Phone number (E.164) or e-mail address. */
  readonly to: string;
  /** Six digits. */
  readonly code: string;
  readonly language: Language;
  /** When the code stops being accepted. */
  readonly expiresAt: Date;
}

/** Delivers codes of one channel. Returns outbox rows to commit with the code (may be empty). */
export type CodeSender = (message: CodeMessage) => Promise<readonly OutboxInput[]> | readonly OutboxInput[];

/** The senders of both channels. */
export interface VerificationSenders {
  readonly sms: CodeSender;
  readonly email: CodeSender;
}

/** Where the default SMS sender writes (the service's logger; info level). */
export interface OutboxLog {
  info(object: Record<string, unknown>, message: string): void;
}

/** Options of the default senders. */
export interface DefaultSenderOptions {
  /**
   * Development only: write the SMS code itself to the log. Off by default: the log says that a code
   * was sent and to which signer, never the code, since anyone reading the log could otherwise sign.
   */
  readonly logCodes?: boolean;
}

/**
 * The default SMS sender: writes a line to `log` (no SMS gateway is configured by default; configure one for
 * production). The code is in the line only with `logCodes`.
 *
 * @example
 * const senders = defaultVerificationSenders(app.log, { logCodes: false });
 */
function logSmsSender(log: OutboxLog, options: DefaultSenderOptions = {}): CodeSender {
  return (message) => {
    log.info(
      {
        outbox: 'sms',
        transactionId: message.transactionId,
        signerId: message.signerId,
        ...(options.logCodes === true ? { to: message.to, code: message.code } : {}),
      },
      options.logCodes === true ? 'SMS verification code (no SMS gateway configured; development logging)' : 'SMS verification code created (no SMS gateway configured: not delivered)',
    );
    return [];
  };
}

/** The default e-mail sender: a `verification-code` mail row for the mail outbox worker. */
const mailCodeSender: CodeSender = (message) => [
  mailRow({ transactionId: message.transactionId, kind: 'verification-code', signerId: message.signerId, to: message.to, code: message.code }),
];

/** SMS to `log` (the code only with `logCodes`), e-mail through the mail outbox. */
export function defaultVerificationSenders(log: OutboxLog, options: DefaultSenderOptions = {}): VerificationSenders {
  return { sms: logSmsSender(log, options), email: mailCodeSender };
}

/**
 * An external identity method (docs/design/signer-api.md#verification-types): sends the signer to the provider and
 * checks what the provider sends back. paraph ships an OpenID Connect relying party (oidc-identity-provider.ts) and a
 * SAML 2.0 service provider (saml-identity-provider.ts), both set up from configuration; a provider for another
 * protocol (a bank's own API, a test double) implements this same interface and is passed to
 * `startServer(config, { identityProviders })`. `PUT start` refuses transactions that
 * need a method with no provider.
 *
 * The signer comes back either to `returnUrl` (per signer; it carries paraph's one-time `state`), or, for protocols
 * whose return address must be registered once at the provider, to `callbackUrl` (the same for every signer) with
 * `state` in the query: OpenID Connect's own `state` parameter is paraph's.
 */
export interface IdentityProvider {
  /** The verification `Type` it performs, e.g. `iDIN`. */
  readonly type: string;
  /** Providers that offer a choice (`OpenID Providers`): the names the signer can pick from. */
  readonly choices?: readonly string[];
  /**
   * The accounts whose transactions it serves (docs/verifications.md#per-account-providers); absent: every account. An
   * account's own provider of a Type wins over a service-wide one of that Type.
   */
  readonly accounts?: readonly string[];
  /**
   * Where to send the signer. `verification` is the signer's Verification object as the client sent it. `pending` is
   * kept server side in the signer's sign session (sealed under the master key) and handed back to {@link complete}:
   * PKCE verifiers, nonces and the like belong there, never in the browser.
   */
  begin(request: IdentityBeginRequest): Promise<{ redirectUrl: string; pending?: Readonly<Record<string, string>> }>;
  /**
   * Checks the provider's answer (the query of the return request) and returns the evidence to record (no secrets)
   * and the read-only fields the provider established (e.g. `Uid`, `Bsn`, `Level`), which paraph checks against the
   * Verification (identity-checks.ts) before the step passes. Throws when the identity was not established.
   */
  complete(request: IdentityCompleteRequest): Promise<IdentityResult>;
}

/** What {@link IdentityProvider.begin} gets. */
export interface IdentityBeginRequest {
  readonly transactionId: string;
  readonly signerId: string;
  readonly verification: Readonly<Record<string, unknown>>;
  /** The signer's own return address, with paraph's one-time state in its query. */
  readonly returnUrl: string;
  /** The return address shared by all signers (register it at the provider); send `state` along. */
  readonly callbackUrl: string;
  /** paraph's one-time state for {@link callbackUrl} (opaque, URL-safe). */
  readonly state: string;
  /** paraph's page listing the provider's {@link IdentityProvider.choices} for the signer to pick one. */
  readonly chooseUrl: string;
  /** The name the signer picked there (else the Verification's own, e.g. `ProviderName`, decides). */
  readonly choice?: string;
}

/** What {@link IdentityProvider.complete} gets. */
export interface IdentityCompleteRequest {
  readonly transactionId: string;
  readonly signerId: string;
  readonly verification: Readonly<Record<string, unknown>>;
  /** The query of the return request, without paraph's `state` when the signer came back to `returnUrl`. */
  readonly query: Readonly<Record<string, string>>;
  /** The full address the signer came back to (the callback address with its whole query). */
  readonly url: string;
  /** What `begin` asked to keep (empty when it kept nothing). */
  readonly pending: Readonly<Record<string, string>>;
}

/** The outcome of a confirmed identity. */
export interface IdentityResult {
  /** Recorded in the audit trail and shown in the receipt: provider, assurance level, subject identifiers. */
  readonly evidence: Readonly<Record<string, string>>;
  /** Read-only fields of the Verification the provider established (mapped from its claims or attributes). */
  readonly fields?: Readonly<Record<string, string>>;
}
