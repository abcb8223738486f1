/**
 * Use case GET /api/signer/<token> (docs/design/signer-api.md#session): the signer's session — transaction reference,
 * signer, documents with the fields to fill, the verifications still to do, whether it is their turn and whom
 * they wait for. The first call records activity 103 (Opened) with an audit entry holding IP and user agent.
 */
import { ActivityCode, TransactionStatus, recordActivity } from '../../domain/transaction.js';
import { postbackRow } from '../delivery/outbox-rows.js';
import { commitChange } from '../commit-change.js';
import type { ServiceContext } from '../context.js';
import { findSignerByToken, reloadAccess, type SignerRequestInfo } from './signer-access.js';
import { senderOf } from '../delivery/sender.js';
import { toSessionView, type SignerSessionView } from './session-view.js';

/**
 * Returns the session of the token's signer and records 103 on the first call.
 *
 * @throws ServiceError `SIGN_TOKEN_UNKNOWN` (404), `TRANSACTION_CLEANED` (410).
 */
export async function openSignerSession(ctx: ServiceContext, token: string, info: SignerRequestInfo): Promise<SignerSessionView> {
  let access = await findSignerByToken(ctx, token);
  const firstOpen = !access.signer.Activities.some((a) => a.Code === ActivityCode.Opened) && access.transaction.Status === TransactionStatus.WaitingForSigner;
  if (firstOpen) {
    const committed = await commitChange(
      ctx,
      async () => (await reloadAccess(ctx, access)).transaction,
      (tx, now) => {
        const signer = tx.Signers.find((s) => s.Id === access.signer.Id);
        if (signer === undefined || signer.Activities.some((a) => a.Code === ActivityCode.Opened) || tx.Status !== TransactionStatus.WaitingForSigner) return undefined;
        const next = recordActivity(tx, { signerId: signer.Id }, { id: ctx.ids.id(), code: ActivityCode.Opened }, now);
        const postback = postbackRow(next);
        return {
          transaction: next,
          audit: [{ at: now, type: 'signer.opened', actor: `signer:${signer.Id}`, data: { signerId: signer.Id, ip: info.ip, userAgent: info.userAgent } }],
          outbox: postback ? [postback] : [],
        };
      },
    );
    access = { transaction: committed, signer: committed.Signers.find((s) => s.Id === access.signer.Id) ?? access.signer };
  }
  const account = await ctx.store.getAccount(access.transaction.AccountId);
  return toSessionView(access, ctx.settings.publicUrl, senderOf(ctx.settings, account));
}
