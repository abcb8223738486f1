/**
 * Who asks a signer to sign (docs/design/signer-api.md#sender): the organisation — the account's branding display name,
 * else the one the service runs for (`PARAPH_ORGANIZATION`) — the sender's name (`PARAPH_SENDER_NAME`) and the
 * sender's e-mail address, which is the account's `NotificationEmail` — the address the account already names for
 * what happens to its transactions, so a signer's question reaches the same people. Shown on the signing page and in
 * every mail, with the account's brand colour as accent; the Reply-To of the mails is the branding's, else
 * `PARAPH_MAIL_REPLY_TO`, else the sender's address. The account's logo is shown from the service itself (a path
 * under its own origin on the page, an inline attachment in the mails), never from the address it was fetched from,
 * which would learn every signer's IP address and when they read their mail.
 */
import type { Account } from '../../domain/account.js';
import type { ServiceSettings } from '../context.js';
import { logoPath } from '../branding/account-logo.js';
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
  /** The account's logo: where the service serves it (a path under its public URL) and the id of its bytes. */
  readonly logo?: { readonly path: string; readonly accountId: string; readonly sha256: string; readonly width: number; readonly height: number };
}

/** The sender of an account's transactions (pure). */
export function senderOf(settings: ServiceSettings, account: Pick<Account, 'NotificationEmail' | 'Branding'> & Partial<Pick<Account, 'Id' | 'Logo'>> | undefined): Sender {
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
    ...(account?.Logo !== undefined && account.Id !== undefined ? { logo: { path: logoPath(account.Id, account.Logo), accountId: account.Id, sha256: account.Logo.Sha256, width: account.Logo.Width, height: account.Logo.Height } } : {}),
  };
}
