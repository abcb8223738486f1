/**
 * Use cases behind the mail worker (docs/design/events.md#mail): what a sent mail, or one given up on, means
 * for its transaction. A sent mail records its activity (101 InvitationSent, 104 ReminderSent, 301
 * SignedDocumentSent, 401 ReceiptSent), a `mail.sent` audit entry, a postback for the activity, and after an
 * invitation the signer's first reminder date. A failed one records 999 with the reason and `mail.failed`.
 * A cleaned transaction records nothing (its audit details are gone).
 */
import { ActivityCode, TransactionStatus, addDays, recordActivity, type ActivityCodeNumber, type Transaction } from '../../domain/transaction.js';
import type { MailKind } from '../../receipt/audit-log.js';
import type { OutboxInput } from '../../store/store.js';
import { commitChange, existingTransaction } from '../commit-change.js';
import type { ServiceContext } from '../context.js';
import type { MailPayload } from './mail-payload.js';
import { postbackRow } from './outbox-rows.js';

const ACTIVITIES: Partial<Record<MailPayload['kind'], readonly ActivityCodeNumber[]>> = {
  invitation: [ActivityCode.InvitationSent],
  reminder: [ActivityCode.ReminderSent],
  confirmation: [ActivityCode.SignedDocumentSent, ActivityCode.ReceiptSent],
  documents: [ActivityCode.SignedDocumentSent],
  receipt: [ActivityCode.ReceiptSent],
};

/** Records the mail of `payload` as sent with the transport's `messageId` (a verification code records nothing). */
export async function recordMailSent(ctx: ServiceContext, payload: MailPayload, messageId: string): Promise<void> {
  const codes = ACTIVITIES[payload.kind] ?? [];
  const who = person(payload);
  const kind = payload.kind;
  if (!isAuditKind(kind)) return;
  await commitChange(ctx, existingTransaction(ctx, payload.transactionId), (tx, now) => {
    if (tx.cleanedAt !== undefined) return undefined;
    let next = tx;
    if (who !== undefined) {
      for (const code of codes) next = recordActivity(next, who, { id: ctx.ids.id(), code }, now);
    }
    if (kind === 'invitation' && payload.signerId !== undefined) next = scheduleFirstReminder(next, payload.signerId, now);
    const outbox: OutboxInput[] = [];
    const postback = codes.length > 0 && who !== undefined ? postbackRow(next) : undefined;
    if (postback) outbox.push(postback);
    const recipientId = payload.signerId ?? payload.receiverId;
    return {
      transaction: next,
      audit: [{ at: now, type: 'mail.sent', actor: 'system', data: { kind, ...(recipientId !== undefined ? { recipientId } : {}), to: payload.to, messageId } }],
      outbox,
    };
  });
}

/** Records a mail given up on: activity 999 with the reason (for a signer or receiver), `mail.failed`, a postback. */
export async function recordMailFailure(ctx: ServiceContext, payload: MailPayload, reason: string): Promise<void> {
  const who = person(payload);
  await commitChange(ctx, existingTransaction(ctx, payload.transactionId), (tx, now) => {
    if (tx.cleanedAt !== undefined) return undefined;
    const next = who === undefined ? tx : recordActivity(tx, who, { id: ctx.ids.id(), code: ActivityCode.Failed, info: `${payload.kind} mail to ${payload.to} failed: ${reason}` }, now);
    const postback = who === undefined ? undefined : postbackRow(next);
    const recipientId = payload.signerId ?? payload.receiverId;
    const kind: MailKind = isAuditKind(payload.kind) ? payload.kind : 'notification';
    return {
      transaction: next,
      audit: [{ at: now, type: 'mail.failed', actor: 'system', data: { kind, ...(recipientId !== undefined ? { recipientId } : {}), to: payload.to, reason } }],
      ...(postback ? { outbox: [postback] } : {}),
    };
  });
}

function person(payload: MailPayload): { signerId: string } | { receiverId: string } | undefined {
  if (payload.signerId !== undefined) return { signerId: payload.signerId };
  if (payload.receiverId !== undefined) return { receiverId: payload.receiverId };
  return undefined;
}

function isAuditKind(kind: MailPayload['kind']): kind is MailKind {
  return kind !== 'verification-code';
}

function scheduleFirstReminder(tx: Transaction, signerId: string, now: Date): Transaction {
  return {
    ...tx,
    Signers: tx.Signers.map((s) =>
      s.Id === signerId && s.DaysToRemind > 0 && s.SignedDateTime === undefined && s.RejectDateTime === undefined && tx.Status === TransactionStatus.WaitingForSigner
        ? { ...s, NextReminderDateTime: addDays(now, s.DaysToRemind) }
        : s,
    ),
  };
}

