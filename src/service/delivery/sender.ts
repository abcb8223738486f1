/**
 * Who asks a signer to sign (docs/design/signer-api.md#sender): the organisation — the account's branding display name,
 * else the one the service runs for (`PARAPH_ORGANIZATION`) — the sender's name (`PARAPH_SENDER_NAME`) and the
 * sender's e-mail address, which is the account's `NotificationEmail` — the address the account already names for
 * what happens to its transactions, so a signer's question reaches the same people. Shown on the signing page and in
 * every mail, with the account's brand colour as accent; the Reply-To of the mails is the branding's, else
 * `PARAPH_MAIL_REPLY_TO`, else the sender's address. A logo is not shown (docs/design/signer-api.md#sender says why).
 */
import type { Account } from '../../domain/account.js';
import type { ServiceSettings } from '../context.js';
import { accentOf, type Accent } from './accent-color.js';

/** The sender as signers see it. */
export interface Sender {
  readonly organization: string;
  readonly name?: string;
  readonly email?: string;
  /** Where a reply to a mail goes. */
  readonly replyTo?: string;
  /** The account's brand colour, made readable (accent-color.ts); none: the page's and mails' own colours. */
  readonly accent?: Accent;
}

/** The sender of an account's transactions (pure). */
export function senderOf(settings: ServiceSettings, account: Pick<Account, 'NotificationEmail' | 'Branding'> | undefined): Sender {
  const email = account?.NotificationEmail;
  const branding = account?.Branding;
  const replyTo = branding?.ReplyTo ?? settings.mailReplyTo ?? email;
  const accent = accentOf(branding?.Color);
  const displayName = branding?.DisplayName?.trim();
  return {
    organization: displayName !== undefined && displayName !== '' ? displayName : (settings.organizationName ?? 'paraph'),
    ...(settings.senderName !== undefined ? { name: settings.senderName } : {}),
    ...(email !== undefined ? { email } : {}),
    ...(replyTo !== undefined ? { replyTo } : {}),
    ...(accent !== undefined ? { accent } : {}),
  };
}
