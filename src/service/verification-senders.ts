/**
 * Pluggable senders of the one-time codes of the `PhoneNumber` and `Email` verifications
 * (docs/design/signer-api.md#codes). A sender turns a code into outbox rows committed with the change that created the
 * code (so a code is sent exactly when it is stored) and/or a side effect of its own. Defaults: SMS codes are written
 * to the outbox log (a log line; no SMS gateway is configured by default), e-mail codes become a `verification-code`
 * mail row that the mail worker delivers. External identity methods (DigiD, iDIN, …) go through
 * {@link IdentityProvider}; none is configured by default.
 */
import { mailRow } from './mail-payload.js';
import type { Language } from '../domain/transaction.js';
import type { OutboxInput } from '../store/store.js';

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
 * checks what the provider sends back. paraph ships none; `PUT start` refuses transactions that need one that is not
 * configured. The signer comes back to `returnUrl` (which carries a one-time `state` of paraph's own) with the
 * provider's query parameters.
 */
export interface IdentityProvider {
  /** The verification `Type` it performs, e.g. `iDIN`. */
  readonly type: string;
  /** Where to send the signer. `verification` is the signer's Verification object as the client sent it. */
  begin(request: { transactionId: string; signerId: string; verification: Readonly<Record<string, unknown>>; returnUrl: string }): Promise<{ redirectUrl: string }>;
  /**
   * Checks the provider's answer (the query of the return request) and returns the evidence to record (no secrets).
   * Throws when the identity was not established.
   */
  complete(request: { transactionId: string; signerId: string; verification: Readonly<Record<string, unknown>>; query: Readonly<Record<string, string>> }): Promise<Record<string, string>>;
}
