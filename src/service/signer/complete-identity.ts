/**
 * Use case GET /sign/<token>/identity (docs/design/signer-api.md#verification-types): the signer comes back from an
 * external identity provider. The one-time `state` paraph put in the return URL must match the step in progress; the
 * provider checks its own answer and returns the evidence, which is recorded as a passed verification.
 */
import { timingSafeEqual } from 'node:crypto';
import { formatTime, type Signer } from '../../domain/transaction.js';
import { commitChange } from '../commit-change.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import { assertCanAct, findSignerByToken, readSignSession, reloadAccess, signerSteps, withSignSession } from './signer-access.js';

/**
 * Completes the external identity step in progress with the provider's `query`.
 *
 * @throws ServiceError `IDENTITY_STATE_INVALID` (400: no step in progress, or a `state` that does not match),
 *   `IDENTITY_NOT_ESTABLISHED` (400: the provider refused), and the refusals of a signer who cannot act.
 */
export async function completeIdentity(ctx: ServiceContext, token: string, query: Readonly<Record<string, string>>): Promise<void> {
  const access = await findSignerByToken(ctx, token);
  const pending = readSignSession(access.signer).identity;
  const stateOk = (expected: string) =>
    typeof query.state === 'string' && query.state.length === expected.length && timingSafeEqual(Buffer.from(query.state), Buffer.from(expected));
  if (pending === undefined || !stateOk(pending.state)) {
    throw new ServiceError('IDENTITY_STATE_INVALID', 'This identity check was not started from your signing page, or it was already used: start it again.');
  }
  const step = signerSteps(access.signer).find((s) => s.index === pending.index);
  const provider = step ? ctx.identityProviders?.get(step.type) : undefined;
  if (step === undefined || provider === undefined) {
    throw new ServiceError('IDENTITY_STATE_INVALID', 'This identity check is no longer available: start it again.');
  }
  const { state: _state, ...providerQuery } = query;
  let evidence: Record<string, string>;
  try {
    evidence = await provider.complete({ transactionId: access.transaction.Id, signerId: access.signer.Id, verification: step.spec, query: providerQuery });
  } catch (error) {
    throw new ServiceError('IDENTITY_NOT_ESTABLISHED', `${step.type}: your identity could not be confirmed (${error instanceof Error ? error.message : String(error)}).`);
  }
  await commitChange(
    ctx,
    async () => (await reloadAccess(ctx, access)).transaction,
    (tx, now) => {
      const signer = tx.Signers.find((s) => s.Id === access.signer.Id) as Signer;
      assertCanAct(tx, signer);
      const session = readSignSession(signer);
      if (session.identity === undefined || session.identity.state !== pending.state) {
        throw new ServiceError('IDENTITY_STATE_INVALID', 'This identity check was already used: start it again.');
      }
      const { identity: _used, ...rest } = session;
      const next = withSignSession(tx, signer.Id, { ...rest, done: [...rest.done, step.index] });
      return {
        transaction: { ...next, ModifiedDateTime: formatTime(now) },
        audit: [{ at: now, type: 'verification.performed', actor: `signer:${signer.Id}`, data: { signerId: signer.Id, verification: step.type, result: 'passed', evidence } }],
      };
    },
  );
}
