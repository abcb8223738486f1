/**
 * Sending a mail (docs/design/events.md#mail): through nodemailer's SMTP transport when an SMTP URL is configured, otherwise written as an `.eml`
 * file into the mail directory (`PARAPH_MAIL_DIR`, by default `<dataDir>/mail/`) so that a developer can open it —
 * sealed under the master key when the directory is inside the data directory (`paraph open-mail` reads it). A permanent SMTP refusal (5xx) is told apart from a temporary one, so that the worker gives
 * up at once instead of retrying for 72 hours.
 */
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';

/** A mail to send. */
export interface OutgoingMail {
  readonly from: string;
  readonly to: string;
  /** Where replies go (the sender, not the no-reply From address). */
  readonly replyTo?: string;
  /** More header fields, e.g. `Auto-Submitted`. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** With `cid`, an inline part the HTML shows as `cid:<cid>` (the account's logo). */
  readonly attachments?: readonly { filename: string; content: Uint8Array; contentType: string; cid?: string }[];
  /** The transaction it is about: names its file without SMTP, so the file is removed with the transaction. */
  readonly transactionId?: string;
}

/** The outcome of a send. */
export type SendResult =
  | { readonly ok: true; readonly messageId: string; readonly responseCode?: number; readonly detail?: string }
  | { readonly ok: false; readonly permanent: boolean; readonly responseCode?: number; readonly error: string };

/** Sends mails. */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<SendResult>;
  close(): void;
}

/** Options of {@link createMailTransport}. */
export interface MailTransportOptions {
  /** `smtp://user:pass@host:port` or `smtps://…`; without it mails become `.eml` files. */
  readonly smtpUrl?: string;
  /** Where `.eml` files go (created when missing). */
  readonly mailDir: string;
  /**
   * Seals each mail file under the master key (`<id>.eml.sealed`, opened by `paraph open-mail`): for a mail
   * directory inside the data directory, whose sign links and codes must not be readable by whoever copies it.
   */
  readonly seal?: (text: string) => string;
}

/** Purpose under which mail files are sealed. */
export const MAIL_FILE_PURPOSE = 'mail-file';
/** Name ending of a sealed mail file. */
export const SEALED_MAIL_SUFFIX = '.eml.sealed';

/** The `.eml` text of a sealed mail file's contents, opened with `open` (the master key's, purpose {@link MAIL_FILE_PURPOSE}). */
export function openSealedMail(contents: string, open: (sealed: string) => string): Buffer {
  return Buffer.from(open(contents.trim()), 'base64');
}

/**
 * The transport of the configuration.
 *
 * @example const transport = createMailTransport({ smtpUrl: process.env.PARAPH_SMTP_URL, mailDir: './data/mail' });
 */
export function createMailTransport(options: MailTransportOptions): MailTransport {
  if (options.smtpUrl !== undefined) return smtpTransport(options.smtpUrl);
  return emlTransport(options.mailDir, options.seal);
}

function toNodemailer(mail: OutgoingMail): SendMailOptions {
  return {
    from: mail.from,
    to: mail.to,
    ...(mail.replyTo !== undefined ? { replyTo: mail.replyTo } : {}),
    ...(mail.headers !== undefined ? { headers: { ...mail.headers } } : {}),
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    attachments: (mail.attachments ?? []).map((a) => ({
      filename: a.filename,
      content: Buffer.from(a.content),
      contentType: a.contentType,
      ...(a.cid !== undefined ? { cid: a.cid, contentDisposition: 'inline' as const } : {}),
    })),
  };
}

function smtpTransport(url: string): MailTransport {
  const transporter = nodemailer.createTransport(url);
  return {
    async send(mail) {
      try {
        const info = await transporter.sendMail(toNodemailer(mail));
        const code = Number.parseInt(String(info.response ?? ''), 10);
        return { ok: true, messageId: info.messageId, ...(Number.isFinite(code) ? { responseCode: code } : {}), detail: String(info.response ?? '') };
      } catch (error) {
        const err = error as { responseCode?: number; message?: string };
        const code = typeof err.responseCode === 'number' ? err.responseCode : undefined;
        return {
          ok: false,
          permanent: code !== undefined && code >= 500 && code < 600,
          ...(code !== undefined ? { responseCode: code } : {}),
          error: err.message ?? String(error),
        };
      }
    },
    close: () => transporter.close(),
  };
}

/** How the mail files of a transaction begin. */
function mailFilePrefix(transactionId: string): string {
  return `${transactionId.replace(/[^A-Za-z0-9-]/g, '_')}--`;
}

/** Deletes the mail files written into `dir` for `transactionId` (nothing when there are none, or no directory). */
export async function removeMailFiles(dir: string, transactionId: string): Promise<void> {
  const prefix = mailFilePrefix(transactionId);
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => n.startsWith(prefix)).map((n) => rm(join(dir, n), { force: true })));
}

function emlTransport(dir: string, seal: ((text: string) => string) | undefined): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      try {
        const info = await transporter.sendMail(toNodemailer(mail));
        await mkdir(dir, { recursive: true, mode: 0o700 });
        const prefix = mail.transactionId === undefined ? '' : mailFilePrefix(mail.transactionId);
        const name = `${prefix}${info.messageId.replace(/[^A-Za-z0-9._-]/g, '_')}${seal ? SEALED_MAIL_SUFFIX : '.eml'}`;
        const temp = join(dir, `.${name}.tmp`);
        // Mails carry sign links and codes: readable by the service's user only, and sealed when asked.
        const message = info.message as Buffer;
        await writeFile(temp, seal ? `${seal(message.toString('base64'))}\n` : message, { mode: 0o600 });
        await rename(temp, join(dir, name));
        return { ok: true, messageId: info.messageId, detail: `written to ${join(dir, name)}` };
      } catch (error) {
        return { ok: false, permanent: false, error: (error as Error).message };
      }
    },
    close: () => transporter.close(),
  };
}
