/**
 * The payload of a `mail` outbox row ("E-mails", docs/design/events.md#mail): what a use case enqueues, in the same
 * store commit as the change that causes the mail, and what the event worker reads back to render and send it.
 * Rows name the recipient and the kind only; the worker renders the body at delivery from the transaction as it
 * is then (documents, sign link, language), so a row stays small and never holds a document.
 *
 * Enqueue with {@link mailRow}, e.g. an e-mail verification code (docs/design/signer-api.md#codes):
 * `mailRow({ transactionId: tx.Id, kind: 'verification-code', signerId: signer.Id, to: signer.Email, code })`.
 */
import type { JsonObject, JsonValue } from '../domain/transaction.js';
import type { MailKind } from '../receipt/audit-log.js';
import type { OutboxInput } from '../store/store.js';

/** Every kind of mail the worker renders: the audit log's kinds plus the one-time code of an `Email` verification. */
export type MailPayloadKind = MailKind | 'verification-code';

/**
 * One mail to send.
 *
 * - `invitation` (101), `reminder` (104), `confirmation` (301 + 401, signed PDFs and receipt attached),
 *   `cancellation`, `verification-code`: to a signer, `signerId` set.
 * - `documents` (301, signed PDFs attached): to a receiver, `receiverId` set.
 * - `notification`: to the sender, `event` says what happened (e.g. `signed`, `rejected`, `expired`); an empty `to`
 *   means the account's `NotificationEmail` (not sent when the account has none).
 * - `verification-code`: `code` is the one-time code; no activity and no audit entry are recorded for it (the
 *   verification use case records the evidence), a failure records 999.
 */
export interface MailPayload {
  readonly transactionId: string;
  readonly kind: MailPayloadKind;
  /** The e-mail address (empty for a `notification` to the account's address). */
  readonly to: string;
  readonly signerId?: string;
  readonly receiverId?: string;
  /** One-time code of a `verification-code` mail. */
  readonly code?: string;
  /** The same code sealed under the master key (how the service stores it); deliver-mail opens it. */
  readonly codeSealed?: string;
  /** What a `notification` reports. */
  readonly event?: string;
}

/** Purpose under which a one-time code waiting in the outbox is sealed under the master key (`codeSealed`). */
export const OUTBOX_CODE_PURPOSE = 'outbox-verification-code';

const KINDS: readonly MailPayloadKind[] = [
  'invitation',
  'reminder',
  'confirmation',
  'documents',
  'receipt',
  'cancellation',
  'notification',
  'verification-code',
];

/** The outbox row of a mail (no order key: mails do not wait for each other). */
export function mailRow(payload: MailPayload, dueAt?: Date): OutboxInput {
  const json: JsonObject = {};
  for (const [key, value] of Object.entries(payload)) if (value !== undefined) json[key] = value as JsonValue;
  return { kind: 'mail', payload: json, ...(dueAt ? { dueAt } : {}) };
}

/**
 * Reads a mail payload back from an outbox row; undefined when it is not one (the worker then gives the row up
 * rather than retrying it for 72 hours).
 */
export function parseMailPayload(value: JsonValue): MailPayload | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { transactionId, kind, to, signerId, receiverId, code, codeSealed, event } = value;
  if (typeof transactionId !== 'string' || typeof to !== 'string' || typeof kind !== 'string') return undefined;
  if (!(KINDS as readonly string[]).includes(kind)) return undefined;
  const optional = { signerId, receiverId, code, codeSealed, event };
  const payload: Record<string, string> = { transactionId, kind, to };
  for (const [key, v] of Object.entries(optional)) {
    if (v === undefined) continue;
    if (typeof v !== 'string') return undefined;
    payload[key] = v;
  }
  return payload as unknown as MailPayload;
}
