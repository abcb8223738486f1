/**
 * The payload of a `mail` outbox row ("E-mails", docs/design/events.md#mail): what a use case enqueues, in the same
 * store commit as the change that causes the mail, and what the event worker reads back to render and send it.
 * Rows name the recipient and the kind only; the worker renders the body at delivery from the transaction as it
 * is then (documents, sign link, language), so a row stays small and never holds a document.
 *
 * Enqueue with {@link mailRow}, e.g. an e-mail verification code (docs/design/signer-api.md#codes):
 * `mailRow({ transactionId: tx.Id, kind: 'verification-code', signerId: signer.Id, to: signer.Email, code })`.
 */
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { JsonObject, JsonValue } from '../../domain/transaction.js';
import type { MailKind } from '../../receipt/audit-log.js';
import type { OutboxInput } from '../../store/store.js';

/** Every kind of mail the worker renders: the audit log's kinds plus the one-time code of an `Email` verification. */
export type MailPayloadKind = MailKind | 'verification-code';

/**
 * One mail to send: the one declaration of the payload, which {@link mailRow} writes and {@link parseMailPayload}
 * checks when the worker reads the row back.
 *
 * - `invitation` (101), `reminder` (104), `confirmation` (301 + 401, signed PDFs and receipt attached),
 *   `cancellation`, `verification-code`: to a signer, `signerId` set.
 * - `documents` (301, signed PDFs attached): to a receiver, `receiverId` set.
 * - `notification`: to the sender, `event` says what happened (e.g. `signed`, `rejected`, `expired`); an empty `to`
 *   means the account's `NotificationEmail` (not sent when the account has none).
 * - `verification-code`: `code` is the one-time code; no activity and no audit entry are recorded for it (the
 *   verification use case records the evidence), a failure records 999.
 */
export const MailPayloadSchema = Type.Object({
  transactionId: Type.String(),
  kind: Type.Union([
    Type.Literal('invitation'),
    Type.Literal('reminder'),
    Type.Literal('confirmation'),
    Type.Literal('documents'),
    Type.Literal('receipt'),
    Type.Literal('cancellation'),
    Type.Literal('notification'),
    Type.Literal('verification-code'),
  ]),
  /** The e-mail address (empty for a `notification` to the account's address). */
  to: Type.String(),
  signerId: Type.Optional(Type.String()),
  receiverId: Type.Optional(Type.String()),
  /** One-time code of a `verification-code` mail. */
  code: Type.Optional(Type.String()),
  /** The same code sealed under the master key (how the service stores it); deliver-mail opens it. */
  codeSealed: Type.Optional(Type.String()),
  /** What a `notification` reports. */
  event: Type.Optional(Type.String()),
});

export type MailPayload = Static<typeof MailPayloadSchema>;

/** Purpose under which a one-time code waiting in the outbox is sealed under the master key (`codeSealed`). */
export const OUTBOX_CODE_PURPOSE = 'outbox-verification-code';


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
  if (!Value.Check(MailPayloadSchema, value)) return undefined;
  // Keys the schema does not declare are dropped.
  return Value.Clean(MailPayloadSchema, Value.Clone(value)) as MailPayload;
}
