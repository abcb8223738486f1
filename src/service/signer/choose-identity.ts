/**
 * Use case GET /sign/identity/choose (docs/verifications.md#openid-providers): a step whose Type has several providers
 * and whose Verification names none of them (`ProviderName`) sends the signer to the organisation's list; the pick
 * starts the login at the chosen provider, under the same one-time state.
 */
import { formatTime } from '../../domain/transaction.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import type { IdentityProvider } from '../delivery/verification-senders.js';
import { IDENTITY_CALLBACK_PATH, IDENTITY_CHOOSE_PATH, parseCallbackState, sealPending } from './identity-state.js';
import { beginWithProvider } from './perform-verification.js';
import { commitIdentityStep, findSignerByToken, readSignSession, signerSteps, withSignSession, type SignerAccess } from './signer-access.js';
import { identityProviderFor } from '../identity/identity-provider-for.js';

/** The step waiting for a pick: its signer, the Type's provider, and the choices. */
interface PendingChoice {
  readonly access: SignerAccess;
  readonly token: string;
  readonly provider: IdentityProvider;
  readonly choices: readonly string[];
  readonly stepIndex: number;
  readonly state: string;
}

/**
 * The choices of the step `state` names, with the signer's token (for the page's language and the way back).
 *
 * @throws ServiceError `IDENTITY_STATE_INVALID` when the state names no step waiting for a pick.
 */
export async function identityChoices(ctx: ServiceContext, state: string | undefined): Promise<{ token: string; type: string; choices: readonly string[] }> {
  const pending = await pendingChoice(ctx, state);
  return { token: pending.token, type: pending.provider.type, choices: pending.choices };
}

/**
 * Starts the login at the provider `name` picked by the signer; returns where to send them.
 *
 * @throws ServiceError `IDENTITY_STATE_INVALID`, `VERIFICATION_UNKNOWN` (a name not on the list),
 *   `IDENTITY_PROVIDER_UNAVAILABLE`.
 */
export async function beginChosenIdentity(ctx: ServiceContext, state: string | undefined, name: string): Promise<string> {
  const pending = await pendingChoice(ctx, state);
  if (!pending.choices.includes(name)) throw new ServiceError('VERIFICATION_UNKNOWN', `${JSON.stringify(name)} is not one of the providers to choose from (${pending.choices.join(', ')}).`);
  const { access, provider } = pending;
  const sentState = state as string;
  const step = signerSteps(access.signer).find((s) => s.index === pending.stepIndex);
  const begun = await beginWithProvider(provider.type, () => provider.begin({
    transactionId: access.transaction.Id,
    signerId: access.signer.Id,
    verification: step?.spec ?? {},
    returnUrl: `${ctx.settings.publicUrl}/sign/${encodeURIComponent(pending.token)}/identity?state=${pending.state}`,
    callbackUrl: `${ctx.settings.publicUrl}${IDENTITY_CALLBACK_PATH}`,
    state: sentState,
    chooseUrl: `${ctx.settings.publicUrl}${IDENTITY_CHOOSE_PATH}?state=${sentState}`,
    choice: name,
  }));
  await commitIdentityStep(ctx, access, pending.state, { signerMustAct: true, whenUsed: 'refuse' }, ({ tx, signer, session, now }) => {
    const identity = { index: pending.stepIndex, state: pending.state, ...(begun.pending !== undefined ? { pending: sealPending(begun.pending, ctx.secrets) } : {}) };
    return { transaction: { ...withSignSession(tx, signer.Id, { ...session, identity }), ModifiedDateTime: formatTime(now) } };
  });
  return begun.redirectUrl;
}

async function pendingChoice(ctx: ServiceContext, state: string | undefined): Promise<PendingChoice> {
  const parsed = state === undefined ? undefined : parseCallbackState(state);
  const tx = parsed === undefined ? undefined : await ctx.store.getTransaction(parsed.transactionId);
  const token = tx?.Signers.find((s) => s.Id === parsed?.signerId)?.SignToken;
  const refused = () => new ServiceError('IDENTITY_STATE_INVALID', 'This identity check was not started from a signing page, or it was already used: start it again from your signing link.');
  if (parsed === undefined || token === undefined) throw refused();
  const access = await findSignerByToken(ctx, token);
  const identity = readSignSession(access.signer).identity;
  const step = identity === undefined ? undefined : signerSteps(access.signer).find((s) => s.index === identity.index);
  const provider = step === undefined ? undefined : identityProviderFor(ctx, access.transaction.AccountId, step.type);
  if (identity === undefined || identity.state !== parsed.state || step === undefined || provider?.choices === undefined) throw refused();
  return { access, token, provider, choices: provider.choices, stepIndex: step.index, state: identity.state };
}
