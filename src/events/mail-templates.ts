/**
 * The texts of the service's e-mails (docs/design/events.md#mail): sign request, reminder, confirmation,
 * documents to receivers, cancellation notice, sender notification and verification code, in every language of
 * docs/design/api.md#languages (texts in src/i18n), each as HTML and plain text. Pure: values in, strings out.
 */
import type { Language } from '../i18n/languages.js';
import { catalogueFor, type MailTexts } from '../i18n/catalogue.js';
import type { MailPayloadKind } from '../service/delivery/mail-payload.js';

/** What a mail text is built from. */
export interface MailTextInput {
  readonly kind: MailPayloadKind;
  readonly language: Language | undefined;
  /** The transaction's Reference, when it has one. */
  readonly reference?: string;
  /** The documents' display names. */
  readonly documents: readonly string[];
  /** The signer's SignUrl (sign request, reminder). */
  readonly signUrl?: string;
  /** Where a sender notice points (the signer's ShowUrl or the transaction in the API). */
  readonly transactionUrl?: string;
  /** The signer's SignRequestMessage or the receiver's Message. */
  readonly message?: string;
  /** The signer's SignRequestSubject or the receiver's Subject. */
  readonly subject?: string;
  readonly code?: string;
  /** What a notification reports (`signed`, `rejected`, `expired`, `failed`, `cancelled`; others get the generic text). */
  readonly event?: string;
  /** The signers a notification is about (who signed, who rejected). */
  readonly signerNames?: readonly string[];
  readonly cancelReason?: string;
  /** Who asks: the account's branding display name, else the organisation the service runs for. */
  readonly organization?: string;
  /** The account's brand colour as accent (`#rrggbb`, already readable as white on it and as text on white). */
  readonly accent?: string;
  /** The account's logo, attached inline under this Content-ID, with its size in pixels. */
  readonly logo?: { readonly cid: string; readonly width: number; readonly height: number };
  /** Whom the recipient can ask (the sender's e-mail address). */
  readonly contact?: string;
  /** The sender's name (PARAPH_SENDER_NAME). */
  readonly senderName?: string;
  /** When the request expires (sign request, reminder). */
  readonly expiresAt?: Date;
}

/** A rendered mail body. */
export interface MailText {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** The texts of a language (unknown languages fall back to `en-US`, docs/design/api.md#languages). */
function textsFor(language: Language | undefined): MailTexts {
  return catalogueFor(language).mail;
}

const NOTICES = ['signed', 'rejected', 'expired', 'failed', 'cancelled'] as const;
type Notice = (typeof NOTICES)[number];
const isNotice = (event: string | undefined): event is Notice => (NOTICES as readonly (string | undefined)[]).includes(event);

/**
 * Fills `{name}` placeholders. A value that ends a sentence itself ("Acme B.V.") takes the place of the sentence's
 * own full stop right after the placeholder, so that no "B.V.." is written.
 */
function fill(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{(\w+)\}(\.?)/g, (whole, name: string, stop: string) => {
    const value = values[name];
    if (value === undefined) return whole;
    return stop === '.' && /[.!?…]$/.test(value) ? value : value + stop;
  });
}

/**
 * Renders a mail: a plain-text part and a small, self-contained HTML document (doctype, `lang`, title, inline styles
 * only, one button for the one thing to do) that reads on a phone. The client's own subject (SignRequestSubject,
 * receiver Subject) wins over the default subject; the client's message is shown as sent, as plain text (escaped
 * in the HTML part).
 */
export function renderMailText(input: MailTextInput): MailText {
  const t = textsFor(input.language);
  const lang = catalogueFor(input.language).page.lang;
  const ref = input.reference ?? input.documents.join(', ');
  const subject = clean(input.subject ?? t.subject[input.kind].replace('{ref}', ref).trim());
  const intro =
    input.kind === 'notification' && isNotice(input.event)
      ? fill(t.notice[input.event], { signers: (input.signerNames ?? []).join(', ') })
      : t.intro[input.kind];
  const lines: string[] = [intro];
  const body: string[] = [para(intro, 'font-size:17px')];
  const accent = input.accent !== undefined && /^#[0-9a-fA-F]{6}$/.test(input.accent) ? input.accent : DEFAULT_ACCENT;
  if (input.message !== undefined && input.kind !== 'verification-code') {
    lines.push('', input.message);
    body.push(para(input.message, `white-space:pre-wrap;border-left:4px solid ${accent};padding-left:12px`));
  }
  if (input.code !== undefined) {
    lines.push('', `${t.code}: ${input.code}`);
    body.push(`<p style="margin:0 0 16px">${escapeHtml(t.code)}: <strong style="font-size:24px;letter-spacing:4px">${escapeHtml(input.code)}</strong></p>`);
  }
  if (input.kind === 'notification' && input.event !== undefined && !isNotice(input.event)) {
    lines.push('', `${t.event}: ${input.event}`);
    body.push(para(`${t.event}: ${input.event}`));
  }
  if (input.cancelReason !== undefined) {
    lines.push('', `${t.reason}: ${input.cancelReason}`);
    body.push(para(`${t.reason}: ${input.cancelReason}`));
  }
  if (input.reference !== undefined && input.kind !== 'verification-code') {
    lines.push('', `${t.reference}: ${input.reference}`);
    body.push(para(`${t.reference}: ${input.reference}`));
  }
  if (input.documents.length > 0 && input.kind !== 'verification-code') {
    lines.push('', `${t.documents}:`, ...input.documents.map((d) => `- ${d}`));
    body.push(`${para(`${t.documents}:`, 'margin-bottom:4px')}<ul style="margin:0 0 16px;padding-left:20px">${input.documents.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>`);
  }
  const action =
    input.signUrl !== undefined
      ? { label: t.signLink, url: input.signUrl }
      : input.transactionUrl !== undefined
        ? { label: t.openTransaction, url: input.transactionUrl }
        : undefined;
  if (action !== undefined) {
    lines.push('', `${action.label}: ${action.url}`);
    body.push(button(action.label, action.url, accent));
    // The address in full under the button: for mail programs that strip buttons or links, and to be checked by eye.
    body.push(
      `<p style="margin:0 0 16px;font-size:14px;color:#4b5563">${escapeHtml(t.fallback)}<br>` +
        `<a href="${escapeHtml(action.url)}" style="color:${accent};word-break:break-all">${escapeHtml(action.url)}</a></p>`,
    );
  }
  if (input.expiresAt !== undefined && (input.kind === 'invitation' || input.kind === 'reminder')) {
    const date = new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeZone: 'UTC' }).format(input.expiresAt);
    const expires = fill(t.expires, { date });
    lines.push('', expires);
    body.push(para(expires));
  }
  // A sign link opens the documents and signs with them, a code confirms an identity: neither is to be passed on.
  const security = input.signUrl !== undefined ? t.security : input.code !== undefined ? t.codeSecurity : undefined;
  if (security !== undefined) {
    lines.push('', security);
    body.push(para(security, 'font-size:14px;font-weight:bold;border-top:1px solid #d1d5db;padding-top:12px'));
  }
  const footer: string[] = [fill(t.footer, { org: input.organization ?? 'paraph' })];
  if (input.senderName !== undefined) footer.push(fill(t.sender, { sender: input.senderName }));
  if (input.contact !== undefined) footer.push(fill(t.contact, { contact: input.contact }));
  lines.push('', '--', ...footer);
  return {
    subject,
    text: `${lines.join('\n')}\n`,
    html: htmlDocument(lang, subject, input.organization ?? 'paraph', body, footer, input.logo),
  };
}

/** The mails' own accent, used without an account brand colour. */
const DEFAULT_ACCENT = '#1f4e99';

function para(text: string, style = ''): string {
  return `<p style="margin:0 0 16px;${style}">${escapeHtml(text)}</p>`;
}

// A table-based button: the one layout of a link as a button that Outlook, Gmail and Apple Mail all draw.
function button(label: string, url: string, accent: string): string {
  return (
    `<table role="presentation" cellpadding="0" cellspacing="0" style="margin:8px 0 24px"><tr>` +
    `<td style="border-radius:6px;background:${accent}">` +
    `<a href="${escapeHtml(url)}" style="display:inline-block;padding:14px 24px;font-size:17px;font-weight:bold;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(label)}</a>` +
    `</td></tr></table>`
  );
}

/** The logo drawn at most 40 pixels high and 200 wide, its proportions kept. */
function logoImage(logo: NonNullable<MailTextInput['logo']>, organization: string): string {
  const scale = Math.min(1, 40 / logo.height, 200 / logo.width);
  const width = Math.max(1, Math.round(logo.width * scale));
  const height = Math.max(1, Math.round(logo.height * scale));
  return (
    `<img src="cid:${escapeHtml(logo.cid)}" alt="${escapeHtml(organization)}" width="${width}" height="${height}" ` +
    `style="display:block;border:0;margin:0 0 8px;width:${width}px;height:${height}px">`
  );
}

function htmlDocument(lang: string, title: string, organization: string, body: readonly string[], footer: readonly string[], logo?: MailTextInput['logo']): string {
  return (
    `<!doctype html>\n<html lang="${escapeHtml(lang)}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>\n` +
    `<body style="margin:0;padding:0;background:#f3f4f6;color:#1a1a1a;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5">\n` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f3f4f6"><tr><td align="center" style="padding:16px 8px">\n` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border-radius:8px">\n` +
    `<tr><td style="padding:16px 24px;border-bottom:1px solid #d1d5db;font-size:18px;font-weight:bold">${logo !== undefined ? logoImage(logo, organization) : ''}${escapeHtml(organization)}</td></tr>\n` +
    `<tr><td style="padding:24px">\n<main>\n${body.join('\n')}\n</main>\n</td></tr>\n` +
    `<tr><td style="padding:16px 24px;border-top:1px solid #d1d5db;color:#4b5563;font-size:14px">${footer.map((f) => escapeHtml(f)).join('<br>')}</td></tr>\n` +
    `</table></td></tr></table>\n</body></html>`
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// A subject is one header line: control characters would let a client inject headers.
function clean(subject: string): string {
  // eslint-disable-next-line no-control-regex
  return subject.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}
