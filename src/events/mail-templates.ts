/**
 * The texts of the service's e-mails (decisions.md §7, issue 7 "E-mail"): sign request, reminder, confirmation,
 * documents to receivers, cancellation notice, sender notification and verification code, in `en-US` and `nl-NL`
 * (every other language falls back to `en-US`), each as HTML and plain text. Pure: values in, strings out.
 */
import type { Language } from '../domain/transaction.js';
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

interface Texts {
  subject: Record<MailPayloadKind, string>;
  intro: Record<MailPayloadKind, string>;
  documents: string;
  signLink: string;
  code: string;
  reason: string;
  event: string;
  footer: string;
}

const EN: Texts = {
  subject: {
    invitation: 'Please sign: {ref}',
    reminder: 'Reminder: please sign {ref}',
    confirmation: 'Signed: {ref}',
    documents: 'Signed documents: {ref}',
    receipt: 'Receipt: {ref}',
    cancellation: 'Cancelled: {ref}',
    notification: 'Transaction update: {ref}',
    'verification-code': 'Your verification code',
  },
  intro: {
    invitation: 'You are asked to sign the documents below.',
    reminder: 'This is a reminder: the documents below are still waiting for your signature.',
    confirmation: 'The documents below have been signed. The signed documents and the receipt are attached.',
    documents: 'The documents below have been signed. The signed documents are attached.',
    receipt: 'The receipt of the transaction is attached.',
    cancellation: 'The request to sign the documents below has been cancelled. You no longer need to sign them.',
    notification: 'There is news about the transaction with the documents below.',
    'verification-code': 'Enter this code on the signing page to confirm your e-mail address.',
  },
  documents: 'Documents',
  signLink: 'Open the documents and sign',
  code: 'Code',
  reason: 'Reason',
  event: 'Event',
  footer: 'This message was sent by paraph.',
};

const NL: Texts = {
  subject: {
    invitation: 'Verzoek tot ondertekening: {ref}',
    reminder: 'Herinnering: onderteken {ref}',
    confirmation: 'Ondertekend: {ref}',
    documents: 'Ondertekende documenten: {ref}',
    receipt: 'Bewijsstuk: {ref}',
    cancellation: 'Geannuleerd: {ref}',
    notification: 'Nieuws over transactie: {ref}',
    'verification-code': 'Uw verificatiecode',
  },
  intro: {
    invitation: 'U wordt gevraagd de onderstaande documenten te ondertekenen.',
    reminder: 'Dit is een herinnering: de onderstaande documenten wachten nog op uw handtekening.',
    confirmation: 'De onderstaande documenten zijn ondertekend. De ondertekende documenten en het bewijsstuk zitten in de bijlage.',
    documents: 'De onderstaande documenten zijn ondertekend. De ondertekende documenten zitten in de bijlage.',
    receipt: 'Het bewijsstuk van de transactie zit in de bijlage.',
    cancellation: 'Het verzoek om de onderstaande documenten te ondertekenen is geannuleerd. U hoeft ze niet meer te ondertekenen.',
    notification: 'Er is nieuws over de transactie met de onderstaande documenten.',
    'verification-code': 'Vul deze code in op de ondertekenpagina om uw e-mailadres te bevestigen.',
  },
  documents: 'Documenten',
  signLink: 'Open de documenten en onderteken',
  code: 'Code',
  reason: 'Reden',
  event: 'Gebeurtenis',
  footer: 'Dit bericht is verstuurd door paraph.',
};

/** The texts of a language: Dutch for `nl-NL`, English for everything else. */
function textsFor(language: Language | undefined): Texts {
  return language === 'nl-NL' ? NL : EN;
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
