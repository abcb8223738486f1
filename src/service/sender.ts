/**
 * Who asks a signer to sign (docs/design/signer-api.md#sender): the organisation the service runs for
 * (`PARAPH_ORGANIZATION`), the sender's name (`PARAPH_SENDER_NAME`) and the sender's e-mail address, which is the
 * account's `NotificationEmail` — the address the account already names for what happens to its transactions, so a
 * signer's question reaches the same people. Shown on the signing page and in every mail, and the default Reply-To.
 */
import type { Account } from '../domain/account.js';
import type { ServiceSettings } from './context.js';

/** The sender as signers see it. */
export interface Sender {
  readonly organization: string;
  readonly name?: string;
  readonly email?: string;
  /** Where a reply to a mail goes: `PARAPH_MAIL_REPLY_TO`, else the sender's e-mail address. */
  readonly replyTo?: string;
}

/** The sender of an account's transactions (pure). */
export function senderOf(settings: ServiceSettings, account: Pick<Account, 'NotificationEmail'> | undefined): Sender {
  const email = account?.NotificationEmail;
  const replyTo = settings.mailReplyTo ?? email;
  return {
    organization: settings.organizationName ?? 'paraph',
    ...(settings.senderName !== undefined ? { name: settings.senderName } : {}),
    ...(email !== undefined ? { email } : {}),
    ...(replyTo !== undefined ? { replyTo } : {}),
  };
}
