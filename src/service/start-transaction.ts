/**
 * Use case PUT /api/transaction/{id}/start (docs/design/transactions.md#start): checks the
 * transaction can start, prepares every document (its metadata's fields placed and a default signature field for
 * each signer the metadata gives none, one incremental update per document, at the placements upload resolved),
 * then
 * - with signers: status 10, the prepared PDFs, the sign requests of `SignRequestMode` queued;
 * - seal-only: sealed at once and finished with the receipt → 30 (finalize-transaction.ts), in the same commit as
 *   the start, so that a crash leaves the transaction at 5 or at 30, never half done.
 * Refusals the client can still repair (no PDF yet) answer 400 and leave status 5; errors in the transaction itself
 * (a verification method without provider, a document that cannot be prepared) answer 400 and end it at 70.
 */
import { TransactionStatus, transition, updateFile, type Transaction } from '../domain/transaction.js';
import { catalogueFor, resolveLanguage } from '../i18n/catalogue.js';
import { ParaphError, isInputError } from '../errors.js';
import type { Account } from '../domain/account.js';
import { ConcurrencyError, type AuditEntryInput } from '../store/store.js';
import { commitTransaction, changeTime, commitChange } from './commit-change.js';
import { loadOwnTransaction, type ServiceContext } from './context.js';
import { finalizeTransaction } from './finalize-transaction.js';
import { invitationRows, notificationRow, postbackRow } from './delivery/outbox-rows.js';
import { prepareDocument, reusableResolution, type PreparedDocument } from './prepare-document.js';
import { ServiceError } from './service-error.js';
import { assertNotCleaned } from './policies/transaction-guards.js';
import { identityProviderFor } from './identity/identity-provider-for.js';

/** Verification and authentication types paraph performs itself (docs/design/signer-api.md#verifications). */
const BUILT_IN_VERIFICATIONS: ReadonlySet<string> = new Set(['Scribble', 'Consent', 'PhoneNumber', 'Email']);
const BUILT_IN_AUTHENTICATIONS: ReadonlySet<string> = new Set(['PhoneNumber']);

/**
 * Starts the transaction.
 *
 * @throws ServiceError `TRANSACTION_ALREADY_STARTED`, `START_FAILED` (400; the transaction is then at 70),
 *   DomainError `NO_FILES` (400, still at 5).
 */
export async function startTransaction(ctx: ServiceContext, account: Account, transactionId: string): Promise<void> {
  const tx = await loadOwnTransaction(ctx, account, transactionId);
  assertStartable(tx);
  transition(tx, { type: 'start' }, ctx.clock()); // NO_FILES and friends: 400, nothing changes

  const problem = missingProvider(tx, ctx);
  if (problem !== undefined) await fail(ctx, account, tx, problem);

  // Upload resolved each document's placements already (prepare-document.ts); only one whose key no longer matches
  // is resolved again.
  const prepared = new Map<string, PreparedDocument>();
  const signerIds = tx.Signers.map((s) => s.Id);
  // Unsigned boxes say whom they wait for by name, in the transaction's language; never by internal Id. The fields'
  // tooltips take their Labels and Tooltips in that language too.
  const texts = {
    signHere: catalogueFor(tx.Language).evidence.signHere,
    names: Object.fromEntries(tx.Signers.flatMap((s) => (s.ScribbleName !== undefined ? [[s.Id, s.ScribbleName]] : []))),
    language: resolveLanguage(tx.Language),
  };
  for (const file of tx.Files) {
    if (file.Original === undefined) continue;
    try {
      const pdf = await ctx.store.blobs.read(file.Original.sha256);
      prepared.set(file.FileId, await prepareDocument(ctx, file, pdf, signerIds, reusableResolution(file, signerIds), texts));
    } catch (error) {
      if (!isInputError(error)) throw error;
      await fail(ctx, account, tx, `File ${JSON.stringify(file.FileId)} could not be prepared: ${(error as ParaphError).message}`);
    }
  }

  // The preparation above used the transaction as read at first: if anything changed since, start again.
  const conflict = () => new ServiceError('START_CONFLICT', 'The transaction changed while it was being started; start it again.');
  const current = await loadOwnTransaction(ctx, account, transactionId);
  assertStartable(current);
  if (current.version !== tx.version) throw conflict();
  const now = changeTime(ctx, current);
  let startedTx = transition(current, { type: 'start' }, now);
  for (const [fileId, p] of prepared) {
    // The placements include the default signature fields, so the signing page can highlight them too.
    startedTx = updateFile(startedTx, fileId, ({ Prepared: _prepared, ...rest }) => ({ ...rest, Current: { sha256: p.sha256, size: p.size }, Placements: p.placements }), now);
  }
  const audit: AuditEntryInput[] = [
    { at: now, type: 'transaction.started', actor: 'api', data: { files: startedTx.Files.length, signers: startedTx.Signers.length } },
  ];
  try {
    if (startedTx.Status === TransactionStatus.InProgress && startedTx.Signers.length === 0) {
      // Seal-only: started, sealed and completed in one commit, so a crash leaves it at 5 (start again) or 30.
      try {
        await finalizeTransaction(ctx, startedTx, { expectedVersion: current.version, audit, outbox: [] });
      } catch (error) {
        // A seal no reader would validate is never reported: the transaction ends at 70 with the reason.
        if (error instanceof ParaphError && error.code === 'SEAL_NOT_VERIFIABLE') await fail(ctx, account, current, error.message);
        throw error;
      }
    } else {
      const postback = postbackRow(startedTx);
      await commitTransaction(ctx, {
        transaction: startedTx,
        expectedVersion: current.version,
        audit,
        outbox: [...invitationRows(startedTx), ...(postback ? [postback] : [])],
      });
    }
  } catch (error) {
    if (error instanceof ConcurrencyError) throw conflict();
    throw error;
  }
}

function assertStartable(tx: Transaction): void {
  assertNotCleaned(tx);
  if (tx.Status !== TransactionStatus.WaitingForDocument) throw new ServiceError('TRANSACTION_ALREADY_STARTED', 'The transaction has already been started.');
}

/** The first verification or authentication no configured provider can perform, as a message naming it. */
function missingProvider(tx: Transaction, ctx: ServiceContext): string | undefined {
  const has = (type: string) => identityProviderFor(ctx, tx.AccountId, type) !== undefined;
  for (const [i, signer] of tx.Signers.entries()) {
    for (const [j, v] of signer.Verifications.entries()) {
      if (!BUILT_IN_VERIFICATIONS.has(v.Type) && !has(v.Type)) {
        return `Signers[${i}].Verifications[${j}]: verification method ${v.Type} has no configured provider.`;
      }
    }
    for (const [j, a] of (signer.Authentications ?? []).entries()) {
      if (!BUILT_IN_AUTHENTICATIONS.has(a.Type) && !has(a.Type)) {
        return `Signers[${i}].Authentications[${j}]: authentication method ${a.Type} has no configured provider.`;
      }
    }
  }
  return undefined;
}

/**
 * Ends the transaction at 70 with `reason` and answers 400 with it ("Transaction contains errors",
 * docs/design/transactions.md#transitions).
 */
async function fail(ctx: ServiceContext, account: Account, tx: Transaction, reason: string): Promise<never> {
  await commitChange(
    ctx,
    () => loadOwnTransaction(ctx, account, tx.Id),
    (current, now) => {
      assertStartable(current);
      const failed = transition(current, { type: 'fail', reason }, now);
      const postback = postbackRow(failed);
      const notice = notificationRow(failed, 'failed');
      return {
        transaction: failed,
        audit: [{ at: now, type: 'transaction.failed', actor: 'system', data: { reason } }],
        outbox: [...(postback ? [postback] : []), ...(notice ? [notice] : [])],
      };
    },
  );
  throw new ServiceError('START_FAILED', reason);
}
