/**
 * Delivering one `mail` outbox row (docs/design/events.md#mail): reads the transaction as it is now, renders
 * the mail in the recipient's language, attaches the signed PDFs (and the receipt for signers' confirmations), sends
 * it, and has the use case `recordMailSent` (src/service/delivery/record-mail-delivery.ts) commit what the sending means.
 */
import { TransactionStatus, receiptFor, type Transaction } from '../domain/transaction.js';
import { buildSignUrl } from '../domain/transaction-view.js';
import type { ServiceContext } from '../service/context.js';
import { OUTBOX_CODE_PURPOSE, parseMailPayload, type MailPayload } from '../service/delivery/mail-payload.js';
import { recordMailSent } from '../service/delivery/record-mail-delivery.js';
import type { OutboxMessage } from '../store/store.js';
import type { DeliveryOutcome } from './delivery.js';
import { senderOf } from '../service/delivery/sender.js';
import { logoExtension, readAccountLogo } from '../service/branding/account-logo.js';
import { receiptFileName } from '../i18n/catalogue.js';
import { renderMailText } from './mail-templates.js';
import type { MailTransport, OutgoingMail } from './mail-transport.js';

/** What mail delivery needs besides the service context. */
export interface MailDeps {
  readonly transport: MailTransport;
  /** The From address. */
  readonly from: string;
  /** Called when a sender notice is not sent because the account has no NotificationEmail. */
  readonly onNoNotificationAddress?: (accountId: string) => void;
}

/** Renders the mail of a payload from the transaction (exported for tests and previews). */
async function composeMail(ctx: ServiceContext, tx: Transaction, payload: MailPayload, from: string): Promise<OutgoingMail> {
  const signer = payload.signerId === undefined ? undefined : tx.Signers.find((s) => s.Id === payload.signerId);
  const receiver = payload.receiverId === undefined ? undefined : tx.Receivers.find((r) => r.Id === payload.receiverId);
  const documents = tx.Files.filter((f) => f.Original !== undefined || f.Current !== undefined).map(
    (f) => f.DisplayName ?? f.Metadata?.DisplayName ?? f.FileId,
  );
  const wantsLink = payload.kind === 'invitation' || payload.kind === 'reminder';
  // The client's subject and message belong to the request itself (a signer's sign request, a receiver's copy): a
  // confirmation or notice must not repeat "Please sign…".
  const message = wantsLink ? signer?.SignRequestMessage : payload.kind === 'documents' ? receiver?.Message : undefined;
  const subject = payload.kind === 'invitation' ? signer?.SignRequestSubject : payload.kind === 'documents' ? receiver?.Subject : undefined;
  const account = await ctx.store.getAccount(tx.AccountId);
  const sender = senderOf(ctx.settings, account);
  // The logo travels inside the mail (an inline part): a remote image would tell its host who opened the mail, when.
  const logoFile = sender.logo === undefined ? undefined : await readAccountLogo(ctx.store, sender.logo.accountId, sender.logo.sha256);
  const logoCid = logoFile === undefined ? undefined : `logo-${logoFile.sha256.slice(0, 16)}@paraph`;
  const about =
    payload.event === 'rejected' ? tx.Signers.filter((s) => s.RejectDateTime !== undefined) : payload.event === 'signed' ? tx.Signers : [];
  const language = signer?.Language ?? receiver?.Language ?? tx.Language;
  const text = renderMailText({
    kind: payload.kind,
    language,
    ...(tx.Reference !== undefined ? { reference: tx.Reference } : {}),
    documents,
    ...(wantsLink && signer?.SignToken !== undefined ? { signUrl: buildSignUrl(ctx.settings.publicUrl, signer.SignToken) } : {}),
    ...(payload.kind === 'notification' ? { transactionUrl: `${ctx.settings.publicUrl}/api/transaction/${tx.Id}` } : {}),
    ...(message !== undefined ? { message } : {}),
    ...(subject !== undefined ? { subject } : {}),
    ...(payload.code !== undefined ? { code: payload.code } : {}),
    ...(payload.codeSealed !== undefined && ctx.secrets !== undefined ? { code: ctx.secrets.open(payload.codeSealed, OUTBOX_CODE_PURPOSE) } : {}),
    ...(payload.event !== undefined ? { event: payload.event } : {}),
    ...(about.length > 0 ? { signerNames: about.map((s) => s.ScribbleName ?? s.Email) } : {}),
    ...(payload.kind === 'cancellation' && tx.CancelationReason !== undefined ? { cancelReason: tx.CancelationReason } : {}),
    organization: sender.organization,
    ...(logoCid !== undefined && sender.logo !== undefined ? { logo: { cid: logoCid, width: sender.logo.width, height: sender.logo.height } } : {}),
    ...(sender.accent !== undefined ? { accent: sender.accent.color } : {}),
    ...(sender.name !== undefined && payload.kind !== 'notification' ? { senderName: sender.name } : {}),
    ...(sender.email !== undefined && payload.kind !== 'notification' ? { contact: sender.email } : {}),
    expiresAt: new Date(tx.ExpiresDateTime),
  });
  const attachments: { filename: string; content: Uint8Array; contentType: string; cid?: string }[] = [];
  if (logoFile !== undefined && logoCid !== undefined) {
    attachments.push({ filename: `logo.${logoExtension(logoFile.contentType)}`, content: logoFile.bytes, contentType: logoFile.contentType, cid: logoCid });
  }
  if ((payload.kind === 'confirmation' || payload.kind === 'documents') && tx.cleanedAt === undefined) {
    for (const file of tx.Files) {
      if (file.Current === undefined) continue;
      const name = file.DisplayName ?? file.Metadata?.DisplayName ?? file.FileId;
      attachments.push({ filename: pdfName(name), content: await ctx.store.blobs.read(file.Current.sha256), contentType: 'application/pdf' });
    }
  }
  const receipt = receiptFor(tx, language);
  if ((payload.kind === 'confirmation' || payload.kind === 'receipt') && receipt !== undefined && tx.cleanedAt === undefined) {
    // The receipt in the reader's language where it was built in it, named in the language it is written in.
    attachments.push({ filename: receiptFileName(receipt.language), content: await ctx.store.blobs.read(receipt.blob.sha256), contentType: 'application/pdf' });
  }
  // A notice goes to the sender: a reply to it would reach the sender again.
  const replyTo = payload.kind === 'notification' ? undefined : sender.replyTo;
  return {
    from: fromOnBehalfOf(from, sender.organization),
    to: payload.to,
    ...(replyTo !== undefined ? { replyTo } : {}),
    // RFC 3834: no out-of-office or other automatic answer to a mail no person wrote.
    headers: { 'Auto-Submitted': 'auto-generated' },
    subject: text.subject,
    text: text.text,
    html: text.html,
    ...(attachments.length ? { attachments } : {}),
    transactionId: tx.Id,
  };
}

/**
 * The From header: the configured address with the display name "<organisation> via paraph", so a signer sees who
 * asks before opening the mail. A display name the operator chose in PARAPH_MAIL_FROM (other than the default
 * `paraph`) is kept as it is.
 */
export function fromOnBehalfOf(from: string, organization: string): string {
  const named = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(from);
  const name = named?.[1]?.trim() ?? '';
  const address = named?.[2]?.trim() ?? from.trim();
  if (name !== '' && name !== 'paraph') return from;
  // eslint-disable-next-line no-control-regex
  const org = organization.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const display = org === '' || org === 'paraph' ? 'paraph' : `${org} via paraph`;
  return `"${display.replace(/[\\"]/g, (c) => `\\${c}`)}" <${address}>`;
}

function pdfName(name: string): string {
  const safe = name.replace(/[\\/\u0000-\u001f]/g, '_');
  return safe.toLowerCase().endsWith('.pdf') ? safe : `${safe}.pdf`;
}

/** Sends the mail of an outbox row and records it; never throws for a failed send (the outcome says so). */
export async function deliverMail(ctx: ServiceContext, deps: MailDeps, message: OutboxMessage): Promise<DeliveryOutcome> {
  const payload = parseMailPayload(message.payload);
  if (payload === undefined) return { ok: false, permanent: true, error: 'not a mail payload' };
  const tx = await ctx.store.getTransaction(message.transactionId);
  if (tx === undefined) return { ok: false, permanent: true, error: `transaction ${message.transactionId} does not exist` };
  if (payload.to === '') {
    const account = await ctx.store.getAccount(tx.AccountId);
    if (account?.NotificationEmail === undefined) {
      deps.onNoNotificationAddress?.(tx.AccountId);
      return { ok: true, detail: 'not sent: the account has no NotificationEmail' };
    }
    return deliverMail(ctx, deps, { ...message, payload: { ...(message.payload as Record<string, string>), to: account.NotificationEmail } });
  }
  const stale = staleReason(tx, payload);
  if (stale !== undefined) return { ok: true, detail: `not sent: ${stale}` };
  if (payload.codeSealed !== undefined && !opens(ctx, payload.codeSealed)) {
    // Sealed under a master key since rotated: the signer asks for a new code.
    return { ok: false, permanent: true, error: 'the one-time code was sealed under another master key' };
  }
  const mail = await composeMail(ctx, tx, payload, deps.from);
  const sent = await deps.transport.send(mail);
  if (!sent.ok) {
    return { ok: false, permanent: sent.permanent, error: sent.error, ...(sent.responseCode !== undefined ? { responseCode: sent.responseCode } : {}) };
  }
  await recordMailSent(ctx, payload, sent.messageId);
  return { ok: true, ...(sent.responseCode !== undefined ? { responseCode: sent.responseCode } : {}), ...(sent.detail ? { detail: sent.detail } : {}) };
}

function opens(ctx: ServiceContext, sealed: string): boolean {
  try {
    ctx.secrets?.open(sealed, OUTBOX_CODE_PURPOSE);
    return ctx.secrets !== undefined;
  } catch {
    return false;
  }
}

// A sign request or reminder that waited (retries, a stopped service) must not ask for a signature that is no
// longer wanted.
function staleReason(tx: Transaction, payload: MailPayload): string | undefined {
  if (payload.kind !== 'invitation' && payload.kind !== 'reminder') return undefined;
  if (tx.cleanedAt !== undefined || tx.Status !== TransactionStatus.WaitingForSigner) return `transaction is at status ${tx.Status}`;
  const signer = tx.Signers.find((s) => s.Id === payload.signerId);
  if (signer === undefined) return `signer ${payload.signerId ?? '(none)'} is not part of the transaction`;
  if (signer.SignedDateTime !== undefined || signer.RejectDateTime !== undefined) return `signer ${signer.Id} has signed or rejected`;
  return undefined;
}
