/**
 * Use case POST /api/signer/<token>/reject (docs/design/signer-api.md#reject): the signer whose turn it is rejects with
 * a reason. `RejectReason`, `RejectDateTime`, activity 202, status 40 and the audit entry in one commit; the
 * postback and the sender's notification are queued with it.
 */
import { ActivityCode, recordActivity, transition } from '../../domain/transaction.js';
import type { OutboxInput } from '../../store/store.js';
import { commitChange } from '../commit-change.js';
import type { ServiceContext } from '../context.js';
import { notificationRow, postbackRow } from '../delivery/outbox-rows.js';
import { ServiceError } from '../service-error.js';
import { assertCanAct, assertTurn, findSignerByToken, reloadAccess, returnUrl, type SignerRequestInfo } from './signer-access.js';

/** The answer to a reject request. */
export interface RejectResult {
  readonly SignerStatus: 'rejected';
  readonly TransactionStatus: number;
  readonly ReturnUrl?: string;
}

/**
 * Rejects for the token's signer.
 *
 * @throws ServiceError `REJECT_REASON_INVALID` (400), and the refusals of a signer who cannot act (409/410).
 */
export async function rejectAsSigner(ctx: ServiceContext, token: string, reason: string, info: SignerRequestInfo): Promise<RejectResult> {
  const text = reason.trim();
  if (text === '' || text.length > 1000) throw new ServiceError('REJECT_REASON_INVALID', 'Reason: say why you reject (1 to 1000 characters).');
  const access = await findSignerByToken(ctx, token);
  const committed = await commitChange(
    ctx,
    async () => (await reloadAccess(ctx, access)).transaction,
    (tx, now) => {
      const signer = tx.Signers.find((s) => s.Id === access.signer.Id);
      if (signer === undefined) throw new ServiceError('SIGN_TOKEN_UNKNOWN', 'This signing link is not valid.');
      assertCanAct(tx, signer);
      assertTurn(tx, signer);
      let next = transition(tx, { type: 'reject', signerId: signer.Id, reason: text }, now);
      next = recordActivity(next, { signerId: signer.Id }, { id: ctx.ids.id(), code: ActivityCode.Rejected, info: text }, now);
      const outbox: OutboxInput[] = [];
      const postback = postbackRow(next);
      if (postback) outbox.push(postback);
      const notice = notificationRow(next, 'rejected');
      if (notice) outbox.push(notice);
      return {
        transaction: next,
        audit: [{ at: now, type: 'signer.rejected', actor: `signer:${signer.Id}`, data: { signerId: signer.Id, reason: text, ip: info.ip, userAgent: info.userAgent } }],
        outbox,
      };
    },
  );
  const signer = committed.Signers.find((s) => s.Id === access.signer.Id);
  return {
    SignerStatus: 'rejected',
    TransactionStatus: committed.Status,
    ...(signer?.ReturnUrl !== undefined ? { ReturnUrl: returnUrl(committed, access.signer.Id, signer.ReturnUrl, 'rejected') } : {}),
  };
}
