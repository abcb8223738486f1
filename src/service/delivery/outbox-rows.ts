/**
 * The outbox rows the use cases enqueue with their state changes (the outbox workers deliver them,
 * docs/design/events.md#outbox): a postback per status change when the transaction has a PostbackUrl (one queue per
 * URL, so they arrive in order), and mails (sign requests, cancellation notices; payload format in mail-payload.ts).
 * Payloads name what to send; the worker renders bodies at delivery.
 */
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { MailKind } from '../../receipt/audit-log.js';
import type { JsonValue, Signer, Transaction, TransactionStatusCode } from '../../domain/transaction.js';
import type { OutboxInput } from '../../store/store.js';
import { mailRow } from './mail-payload.js';

/**
 * The payload of a postback row: the one declaration, which {@link postbackRow} writes and
 * {@link parsePostbackPayload} checks when the worker reads the row back.
 */
export const PostbackPayloadSchema = Type.Object({
  transactionId: Type.String(),
  /** The status the postback reports (the transaction is rendered as it was at that status). */
  status: Type.Number(),
  url: Type.String(),
});

export type PostbackPayload = Omit<Static<typeof PostbackPayloadSchema>, 'status'> & { readonly status: TransactionStatusCode };

/** A postback row for the transaction's current status, or undefined without PostbackUrl. */
export function postbackRow(tx: Transaction): OutboxInput | undefined {
  if (tx.PostbackUrl === undefined) return undefined;
  const payload: PostbackPayload = { transactionId: tx.Id, status: tx.Status, url: tx.PostbackUrl };
  return { kind: 'postback', payload, orderKey: `postback:${tx.PostbackUrl}` };
}

/** Reads a postback payload back from an outbox row; undefined when malformed (the worker then gives the row up). */
export function parsePostbackPayload(value: JsonValue): PostbackPayload | undefined {
  if (!Value.Check(PostbackPayloadSchema, value)) return undefined;
  return { transactionId: value.transactionId, status: value.status as TransactionStatusCode, url: value.url };
}

/** A mail row to a signer. */
export function signerMailRow(tx: Transaction, signer: Signer, kind: MailKind): OutboxInput {
  return mailRow({ transactionId: tx.Id, kind, signerId: signer.Id, to: signer.Email });
}

/**
 * The sign requests due at start (`SignRequestMode`, docs/design/api.md#sign-requests): 0 none, 1 every signer with
 * `SendSignRequest`, 2 (default) only the first signer, when it has `SendSignRequest` (later ones on their turn).
 */
export function invitationRows(tx: Transaction): OutboxInput[] {
  const wanted = tx.Signers.filter((s) => s.SendSignRequest);
  if (tx.SignRequestMode === 0) return [];
  if (tx.SignRequestMode === 1) return wanted.map((s) => signerMailRow(tx, s, 'invitation'));
  const first = tx.Signers[0];
  return first !== undefined && first.SendSignRequest ? [signerMailRow(tx, first, 'invitation')] : [];
}

/**
 * A notice to the sender ("notices to the sender when SendEmailNotifications", docs/design/events.md#mail), or
 * undefined when the transaction does not want them. `to` is left empty: the worker sends it to the account's
 * `NotificationEmail`.
 */
export function notificationRow(tx: Transaction, event: string): OutboxInput | undefined {
  if (!tx.SendEmailNotifications) return undefined;
  return mailRow({ transactionId: tx.Id, kind: 'notification', to: '', event });
}

/**
 * The mails of a completed transaction (docs/design/events.md#mail): a confirmation with the signed documents and the
 * receipt to every signer with `SendSignConfirmation`, the signed documents to every receiver.
 */
export function completionMailRows(tx: Transaction): OutboxInput[] {
  const rows = tx.Signers.filter((s) => s.SendSignConfirmation === true).map((s) => signerMailRow(tx, s, 'confirmation'));
  for (const receiver of tx.Receivers) {
    rows.push(mailRow({ transactionId: tx.Id, kind: 'documents', receiverId: receiver.Id, to: receiver.Email }));
  }
  return rows;
}
