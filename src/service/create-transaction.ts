/**
 * Use case POST /api/transaction (docs/design/api.md#defaults): the body's JSON shape was checked by the HTTP schema;
 * the domain's rules (transaction-rules.ts) check the business rules, apply the defaults and assign signer ids and
 * SignUrl tokens; the new transaction (status 5) and its `transaction.created` audit entry are one commit.
 */
import { createTransaction as buildTransaction, type CreateTransactionRequest } from '../domain/transaction-rules.js';
import type { Transaction } from '../domain/transaction.js';
import type { Account } from '../domain/account.js';
import type { ServiceContext } from './context.js';
import { assertPostbackTarget, STRICT_POSTBACK_POLICY } from './delivery/postback-target.js';
import { commitTransaction } from './commit-change.js';

/**
 * Creates a transaction for `account`.
 *
 * @throws ValidationError `INVALID_TRANSACTION` naming every broken rule.
 */
export async function createTransaction(ctx: ServiceContext, account: Account, request: CreateTransactionRequest): Promise<Transaction> {
  const now = ctx.clock();
  const tx = buildTransaction(request, {
    id: ctx.ids.transactionId(),
    accountId: account.Id,
    now,
    newSignToken: () => ctx.ids.signToken(),
    newId: () => ctx.ids.id(),
  });
  await assertPostbackTarget(tx.PostbackUrl, ctx.settings.postbackPolicy ?? STRICT_POSTBACK_POLICY, ctx.resolveHost);
  return commitTransaction(ctx, {
    transaction: tx,
    expectedVersion: 0,
    audit: [
      {
        at: now,
        type: 'transaction.created',
        actor: 'api',
        data: {
          ...(tx.Reference !== undefined ? { reference: tx.Reference } : {}),
          language: tx.Language,
          seal: tx.Seal,
          signers: tx.Signers.length,
          receivers: tx.Receivers.length,
        },
      },
    ],
  });
}
