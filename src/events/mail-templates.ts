/**
 * The texts of the service's e-mails (decisions.md §7, issue 7 "E-mail"): sign request, reminder, confirmation,
 * documents to receivers, cancellation notice, sender notification and verification code, in every language of
 * decisions.md §2 (texts in src/i18n, issue 18), each as HTML and plain text. Pure: values in, strings out.
 */
import type { Language } from '../domain/transaction.js';
import { catalogueFor, type MailTexts } from '../i18n/catalogue.js';
import type { MailPayloadKind } from './mail-payload.js';

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
  /** The signer's SignRequestMessage or the receiver's Message. */
  readonly message?: string;
  /** The signer's SignRequestSubject or the receiver's Subject. */
  readonly subject?: string;
  readonly code?: string;
  /** What a notification reports. */
  readonly event?: string;
  readonly cancelReason?: string;
}

/** A rendered mail body. */
export interface MailText {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** The texts of a language (decisions.md §2; unknown languages fall back to `en-US`). */
function textsFor(language: Language | undefined): MailTexts {
  return catalogueFor(language).mail;
}

/**
 * Renders a mail. The client's own subject (SignRequestSubject, receiver Subject) wins over the default subject;
 * the client's message is shown as sent, as plain text (escaped in the HTML part).
 */
export function renderMailText(input: MailTextInput): MailText {
  const t = textsFor(input.language);
  const ref = input.reference ?? input.documents.join(', ');
  const subject = clean(input.subject ?? t.subject[input.kind].replace('{ref}', ref).trim());
  const lines: string[] = [t.intro[input.kind]];
  const html: string[] = [`<p>${escapeHtml(t.intro[input.kind])}</p>`];
  if (input.message !== undefined && input.kind !== 'verification-code') {
    lines.push('', input.message);
    html.push(`<p style="white-space:pre-wrap">${escapeHtml(input.message)}</p>`);
  }
  if (input.code !== undefined) {
    lines.push('', `${t.code}: ${input.code}`);
    html.push(`<p>${escapeHtml(t.code)}: <strong>${escapeHtml(input.code)}</strong></p>`);
  }
  if (input.event !== undefined) {
    lines.push('', `${t.event}: ${input.event}`);
    html.push(`<p>${escapeHtml(t.event)}: ${escapeHtml(input.event)}</p>`);
  }
  if (input.cancelReason !== undefined) {
    lines.push('', `${t.reason}: ${input.cancelReason}`);
    html.push(`<p>${escapeHtml(t.reason)}: ${escapeHtml(input.cancelReason)}</p>`);
  }
  if (input.documents.length > 0 && input.kind !== 'verification-code') {
    lines.push('', `${t.documents}:`, ...input.documents.map((d) => `- ${d}`));
    html.push(`<p>${escapeHtml(t.documents)}:</p><ul>${input.documents.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>`);
  }
  if (input.signUrl !== undefined) {
    lines.push('', `${t.signLink}: ${input.signUrl}`);
    html.push(`<p><a href="${escapeHtml(input.signUrl)}">${escapeHtml(t.signLink)}</a></p>`);
  }
  lines.push('', t.footer);
  html.push(`<p style="color:#666">${escapeHtml(t.footer)}</p>`);
  return {
    subject,
    text: `${lines.join('\n')}\n`,
    html: `<!doctype html><html><body>${html.join('\n')}</body></html>`,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// A subject is one header line: control characters would let a client inject headers.
function clean(subject: string): string {
  // eslint-disable-next-line no-control-regex
  return subject.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}
