/**
 * Use cases GET /sign/<token>/identity and GET /sign/identity/return (docs/design/signer-api.md#verification-types):
 * the signer comes back from an external identity provider. The one-time `state` paraph handed out must match the step
 * in progress; the provider checks its own answer and returns the evidence and the fields it established; paraph
 * checks those against the signer's Verification (identity-checks.ts) and records a passed verification. A refused
 * answer or a mismatch ends the step: the state is used up, the audit trail records the failure, and a mismatch is also
 * a signer activity (999, with the field) so the sender learns of it.
 */
import { timingSafeEqual } from 'node:crypto';
import { findIdentityMismatch } from '../../domain/identity-checks.js';
import { AuthenticationSchema, VERIFICATION_FIELDS } from '../../domain/transaction-schema.js';
import { ActivityCode, formatTime, recordActivity, type Signer, type Authentication, type Transaction } from '../../domain/transaction.js';
import { postbackRow } from '../delivery/outbox-rows.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import type { IdentityResult } from '../delivery/verification-senders.js';
import { openPending, parseCallbackState } from './identity-state.js';
import { AUTHENTICATION_INDEX, commitIdentityStep, findSignerByToken, readSignSession, signerSteps, withSignSession, type SignerAccess } from './signer-access.js';
import { identityProviderFor } from '../identity/identity-provider-for.js';

/**
 * Completes the external identity step in progress with the provider's `query`; `url` is the full address the signer
 * came back to.
 *
 * @throws ServiceError `IDENTITY_STATE_INVALID` (400: no step in progress, or a `state` that does not match),
 *   `IDENTITY_NOT_ESTABLISHED` (400: the provider refused), `IDENTITY_MISMATCH` (400: a value does not match the
 *   Verification), `IDENTITY_PROVIDER_UNAVAILABLE` (503), and the refusals of a signer who cannot act.
 */
export async function completeIdentity(ctx: ServiceContext, token: string, query: Readonly<Record<string, string>>, url = ''): Promise<void> {
  const access = await findSignerByToken(ctx, token);
  const pending = readSignSession(access.signer).identity;
  const stateOk = (expected: string) =>
    typeof query.state === 'string' && query.state.length === expected.length && timingSafeEqual(Buffer.from(query.state), Buffer.from(expected));
  if (pending === undefined || !stateOk(pending.state)) {
    throw new ServiceError('IDENTITY_STATE_INVALID', 'This identity check was not started from your signing page, or it was already used: start it again.');
  }
  const step = signerSteps(access.signer).find((s) => s.index === pending.index);
  const provider = step ? identityProviderFor(ctx, access.transaction.AccountId, step.type) : undefined;
  if (step === undefined || provider === undefined) {
    throw new ServiceError('IDENTITY_STATE_INVALID', 'This identity check is no longer available: start it again.');
  }
  const { state: _state, ...providerQuery } = query;
  let result: IdentityResult;
  try {
    result = await provider.complete({
      transactionId: access.transaction.Id,
      signerId: access.signer.Id,
      verification: step.spec,
      query: url === '' ? providerQuery : query,
      url,
      pending: openPending(pending.pending, ctx.secrets),
    });
  } catch (error) {
    const refusal = error instanceof ServiceError && error.code === 'IDENTITY_PROVIDER_UNAVAILABLE'
      ? error
      : new ServiceError('IDENTITY_NOT_ESTABLISHED', `${step.type}: your identity could not be confirmed (${error instanceof Error ? error.message : String(error)}).`, { cause: error });
    await endStep(ctx, access, pending.state, step.type, { reason: refusal.message });
    throw refusal;
  }
  const mismatch = findIdentityMismatch(step.type, step.spec, result.fields ?? {});
  if (mismatch !== undefined) {
    await endStep(ctx, access, pending.state, step.type, { ...result.evidence, field: mismatch.field, reason: mismatch.reason }, `${step.type}: ${mismatch.field} does not match`);
    throw new ServiceError('IDENTITY_MISMATCH', `${step.type}: ${mismatch.reason}. Sign in with the identity the sender named, or contact the sender.`);
  }
  await commitIdentityStep(ctx, access, pending.state, { signerMustAct: true, whenUsed: 'refuse' }, ({ tx, signer, session, now }) => {
    const { identity: _used, ...rest } = session;
    const filled = withEstablishedFields(tx, signer.Id, step.index, result.fields ?? {});
    const next = withSignSession(filled, signer.Id, { ...rest, done: [...rest.done, step.index] });
    return {
      transaction: { ...next, ModifiedDateTime: formatTime(now) },
      audit: [{ at: now, type: 'verification.performed', actor: `signer:${signer.Id}`, data: { signerId: signer.Id, verification: step.type, result: 'passed', evidence: { ...result.evidence } } }],
    };
  });
}

/**
 * GET /sign/identity/return: a provider that returns to the shared callback address. The state names the transaction
 * and signer; the rest is {@link completeIdentity}. Returns the signer's link token, to send them back to their page.
 *
 * @throws ServiceError `IDENTITY_STATE_INVALID` for a state that names no signer, and what completeIdentity throws.
 */
export async function completeIdentityCallback(ctx: ServiceContext, query: Readonly<Record<string, string>>, url: string): Promise<string> {
  const parsed = typeof query.state === 'string' ? parseCallbackState(query.state) : undefined;
  const tx = parsed === undefined ? undefined : await ctx.store.getTransaction(parsed.transactionId);
  const token = tx?.Signers.find((s) => s.Id === parsed?.signerId)?.SignToken;
  if (parsed === undefined || token === undefined) {
    throw new ServiceError('IDENTITY_STATE_INVALID', 'This identity check was not started from a signing page, or it was already used: start it again from your signing link.');
  }
  // The provider checks the full state it sent out (OpenID Connect's `state`); paraph compares the random part.
  await completeIdentity(ctx, token, { ...query, state: parsed.state }, url);
  return token;
}

/** The token of the signer a callback state names, when it names one (to show the error page in their language). */
export async function callbackSignerToken(ctx: ServiceContext, state: string | undefined): Promise<string | undefined> {
  const parsed = state === undefined ? undefined : parseCallbackState(state);
  const tx = parsed === undefined ? undefined : await ctx.store.getTransaction(parsed.transactionId);
  return tx?.Signers.find((s) => s.Id === parsed?.signerId)?.SignToken;
}

/**
 * Ends the step in progress without passing it: the state is used up, the failure audited with `evidence`, and with
 * `activity` a 999 activity (and its postback) tells the sender.
 */
async function endStep(ctx: ServiceContext, access: SignerAccess, state: string, type: string, evidence: Record<string, string>, activity?: string): Promise<void> {
  // The failure is recorded even when the signer can no longer act; a state already used has nothing left to end.
  await commitIdentityStep(ctx, access, state, { signerMustAct: false, whenUsed: 'skip' }, ({ tx, signer, session, now }) => {
    const { identity: _used, ...rest } = session;
    let next = withSignSession(tx, signer.Id, rest);
    if (activity !== undefined) next = recordActivity(next, { signerId: signer.Id }, { id: ctx.ids.id(), code: ActivityCode.Failed, info: activity }, now);
    const postback = activity !== undefined ? postbackRow(next) : undefined;
    return {
      transaction: { ...next, ModifiedDateTime: formatTime(now) },
      audit: [{ at: now, type: 'verification.performed', actor: `signer:${signer.Id}`, data: { signerId: signer.Id, verification: type, result: 'failed', evidence } }],
      ...(postback ? { outbox: [postback] } : {}),
    };
  });
}

/**
 * The fields the provider established, written into the signer's Verification (or Authentication). A value the sender
 * gave stays as given (the checks found the provider's equal to it); the provider's fills only what the sender left out.
 */
function withEstablishedFields(tx: Transaction, signerId: string, index: number, fields: Readonly<Record<string, string>>): Transaction {
  if (Object.keys(fields).length === 0) return tx;
  const fill = <T extends Authentication | Signer['Verifications'][number]>(list: readonly T[], at: number, known: (type: string) => ReadonlySet<string>): T[] =>
    list.map((v, i) => (i === at ? { ...fieldsOfType(fields, known(v.Type)), ...v, Type: v.Type } : v));
  return {
    ...tx,
    Signers: tx.Signers.map((s) => {
      if (s.Id !== signerId) return s;
      return index >= AUTHENTICATION_INDEX
        ? { ...s, Authentications: fill(s.Authentications ?? [], index - AUTHENTICATION_INDEX, authenticationFields) }
        : { ...s, Verifications: fill(s.Verifications, index, verificationFields) };
    }),
  };
}

/**
 * The established `fields` a Verification (or Authentication) of a Type has in the API (`known`); the rest stays in
 * the audit's evidence only. The assurance level is `Betrouwbaarheidsniveau` where the Type names it so.
 */
function fieldsOfType(fields: Readonly<Record<string, string>>, known: ReadonlySet<string>): Record<string, string> {
  const named: Record<string, string> = { ...fields };
  if (named.Level !== undefined && !known.has('Level') && known.has('Betrouwbaarheidsniveau')) named.Betrouwbaarheidsniveau = named.Level;
  return Object.fromEntries(Object.entries(named).filter(([field]) => known.has(field)));
}

function verificationFields(type: string): ReadonlySet<string> {
  return new Set(Object.keys((VERIFICATION_FIELDS as Readonly<Record<string, object | undefined>>)[type] ?? {}));
}

function authenticationFields(type: string): ReadonlySet<string> {
  const branches = (AuthenticationSchema as { oneOf?: readonly { properties?: Readonly<Record<string, { const?: unknown }>> }[] }).oneOf ?? [];
  const branch = branches.find((b) => b.properties?.Type?.const === type);
  return new Set(Object.keys(branch?.properties ?? {}).filter((field) => field !== 'Type'));
}
