/**
 * What every signer use case (docs/design/signer-api.md#turn) shares: finding the signer by the SignUrl token (the
 * token is the only credential; the store looks up its SHA-256), the refusals of a session that cannot go on
 * (unknown token 404, ended or cleaned transaction 410, not started 409), the request facts the audit trail records
 * (IP address, user agent), and the signer's private session state kept in `Signer.SignSession`.
 */
import {
  TransactionStatus,
  isSigningHoldStale,
  signerDocumentsRefusal,
  signerStepRefusal,
  signerTurnRefusal,
  waitingFor,
  type JsonObject,
  type JsonValue,
  type Signer,
  type SignerRefusalCode,
  type Transaction,
} from '../../domain/transaction.js';
import { hashSignToken } from '../../store/store.js';
import { commitChange, type Change } from '../commit-change.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';

/** Who made a signer request: recorded with activities 103, 105, 202, 203 (docs/design/signer-api.md). */
export interface SignerRequestInfo {
  readonly ip: string;
  readonly userAgent: string;
}

/** A one-time code sent for a PhoneNumber or Email verification. Only its SHA-256 is kept. */
export interface PendingCode {
  /** The code's keyed hash under the master key ({@link codeDigest}); a session stored without a master key keeps `codeSha256`. */
  readonly codeMac?: string;
  readonly codeSha256?: string;
  readonly expiresAt: string;
  /** Wrong codes entered for this code. */
  readonly attempts: number;
  readonly sentAt: string;
  /** Codes sent for this verification so far (resend limit). */
  readonly sends: number;
}

/** The session state of a signer, stored in `Signer.SignSession`. */
export interface SignSession {
  /** Indexes into `Signer.Verifications` of the verifications done. */
  readonly done: readonly number[];
  /** Outstanding codes by verification index. */
  readonly codes: Readonly<Record<string, PendingCode>>;
  /**
   * The drawn signature (PNG, base64) and/or the name the signer typed or confirmed. `normalized`: the image is the
   * one paraph re-encoded (a session stored without it holds the signer's bytes, re-encoded before signing).
   */
  readonly scribble?: { readonly imageBase64?: string; readonly normalized?: boolean; readonly name: string };
  /**
   * An external identity method in progress: the step, the one-time `state` of its return URL, and what the provider
   * asked to keep until the signer comes back (PKCE verifier, nonce; JSON, sealed under the master key when there is one).
   */
  readonly identity?: { readonly index: number; readonly state: string; readonly pending?: string };
  /** SecureDownload: until when a fresh authentication after signing lets the signer download. */
  readonly downloadUntil?: string;
}

const EMPTY_SESSION: SignSession = { done: [], codes: {} };

/** The session state of `signer` (an empty one before the first step). */
export function readSignSession(signer: Signer): SignSession {
  const raw = signer.SignSession as Partial<SignSession> | undefined;
  if (raw === undefined) return EMPTY_SESSION;
  return {
    done: raw.done ?? [],
    codes: raw.codes ?? {},
    ...(raw.scribble ? { scribble: raw.scribble } : {}),
    ...(raw.identity ? { identity: raw.identity } : {}),
    ...(typeof raw.downloadUntil === 'string' ? { downloadUntil: raw.downloadUntil } : {}),
  };
}

/** `tx` with `session` stored on signer `signerId`. */
export function withSignSession(tx: Transaction, signerId: string, session: SignSession): Transaction {
  const json = JSON.parse(JSON.stringify(session)) as JsonObject;
  return { ...tx, Signers: tx.Signers.map((s) => (s.Id === signerId ? { ...s, SignSession: json } : s)) };
}

/** The transaction and signer of a SignUrl token. */
export interface SignerAccess {
  readonly transaction: Transaction;
  readonly signer: Signer;
}

/** The signer's words for a cleaned transaction (`TRANSACTION_CLEANED`, 410). */
const CLEANED_FOR_SIGNER = 'This signing request was withdrawn or has expired; its documents are no longer available.';

/**
 * Looks the token up. Refuses with `SIGN_TOKEN_UNKNOWN` (404) for a token no signer has and
 * `TRANSACTION_CLEANED` (410) for a cleaned transaction.
 */
export async function findSignerByToken(ctx: ServiceContext, token: string): Promise<SignerAccess> {
  const found = token.length >= 16 && token.length <= 128 ? await ctx.store.findSignerByTokenHash(hashSignToken(token)) : undefined;
  const signer = found?.transaction.Signers.find((s) => s.Id === found.signerId);
  // Cleaning removes the token itself and keeps only its SHA-256, which matched: the link was real (410, not 404).
  if (found !== undefined && signer !== undefined && found.transaction.cleanedAt !== undefined) {
    throw new ServiceError('TRANSACTION_CLEANED', CLEANED_FOR_SIGNER);
  }
  if (found === undefined || signer === undefined || signer.SignToken !== token) {
    throw new ServiceError('SIGN_TOKEN_UNKNOWN', 'This signing link is not valid: check that you opened the complete link from your invitation.');
  }
  return { transaction: found.transaction, signer };
}

/** Re-reads the transaction of an access (for optimistic retries) and the same signer in it. */
export async function reloadAccess(ctx: ServiceContext, access: SignerAccess): Promise<SignerAccess> {
  const tx = await ctx.store.getTransaction(access.transaction.Id);
  const signer = tx?.Signers.find((s) => s.Id === access.signer.Id);
  if (tx === undefined || signer === undefined || tx.cleanedAt !== undefined) {
    throw new ServiceError('TRANSACTION_CLEANED', CLEANED_FOR_SIGNER);
  }
  return { transaction: tx, signer };
}

/** The external identity step in progress of a signer, as {@link commitIdentityStep} hands it to a change. */
export interface IdentityStepInProgress {
  /** The transaction as reloaded for this attempt. */
  readonly tx: Transaction;
  readonly signer: Signer;
  /** The signer's session, its `identity` the step the one-time state names. */
  readonly session: SignSession & { readonly identity: NonNullable<SignSession['identity']> };
  readonly now: Date;
}

/** How {@link commitIdentityStep} treats a signer who can no longer act and a state already used. */
export interface IdentityStepRules {
  /** Refuse (the refusals of {@link assertCanAct}) when the signer can no longer act. */
  readonly signerMustAct: boolean;
  /** A state already used, or replaced by a newer step: `refuse` throws `IDENTITY_STATE_INVALID`, `skip` commits nothing. */
  readonly whenUsed: 'refuse' | 'skip';
}

/**
 * Commits `change` to the external identity step in progress of `access`'s signer, with the optimistic retries of
 * commitChange: each attempt reloads the transaction and checks again that the step in progress is still the one of
 * the one-time `state` (a state works once), so two returns from a provider cannot both count.
 *
 * @throws ServiceError `IDENTITY_STATE_INVALID` when the state was used (with `whenUsed: 'refuse'`), the refusals of
 *   {@link assertCanAct} (with `signerMustAct`), and what `change` throws.
 */
export async function commitIdentityStep(
  ctx: ServiceContext,
  access: SignerAccess,
  state: string,
  rules: IdentityStepRules,
  change: (step: IdentityStepInProgress) => Change,
): Promise<void> {
  await commitChange(
    ctx,
    async () => (await reloadAccess(ctx, access)).transaction,
    (tx, now) => {
      const signer = tx.Signers.find((s) => s.Id === access.signer.Id) as Signer;
      if (rules.signerMustAct) assertCanAct(tx, signer);
      const session = readSignSession(signer);
      const identity = session.identity;
      if (identity === undefined || identity.state !== state) {
        if (rules.whenUsed === 'skip') return undefined;
        throw new ServiceError('IDENTITY_STATE_INVALID', 'This identity check was already used: start it again.');
      }
      return change({ tx, signer, session: { ...session, identity }, now });
    },
  );
}

/** A refusal of the domain's signer rules, in words a signer understands. */
function signerRefusalError(code: SignerRefusalCode, tx: Transaction, signer: Signer): ServiceError {
  switch (code) {
    case 'SIGNER_ALREADY_SIGNED':
      return new ServiceError(code, `Signer ${signer.Id} has already signed this transaction.`);
    case 'SIGNER_ALREADY_REJECTED':
      return new ServiceError(code, `Signer ${signer.Id} has already rejected this transaction.`);
    case 'TRANSACTION_NOT_STARTED':
      return new ServiceError(code, 'This signing request has not been sent yet: try again later.');
    case 'TRANSACTION_ENDED':
      return new ServiceError(code, endedMessage(tx));
    case 'SIGNER_NOT_AT_TURN': {
      // Named by their name when the transaction gives one; another signer's e-mail address is not this signer's to see.
      const before = waitingFor(tx, signer);
      const names = before.map((s) => s.ScribbleName ?? s.Verifications.find((v) => v.Type === 'Scribble' && typeof v.ScribbleName === 'string')?.ScribbleName);
      const named = names.filter((name): name is string => typeof name === 'string');
      return new ServiceError(
        code,
        named.length === before.length ? `It is not your turn yet: ${named.join(', ')} must sign first.` : 'It is not your turn yet: other signers must sign first.',
      );
    }
  }
}

/**
 * Refuses a step that changes something when the domain says the signer cannot act (signerStepRefusal:
 * `SIGNER_ALREADY_SIGNED` 409 / `SIGNER_ALREADY_REJECTED` 410, `TRANSACTION_NOT_STARTED` 409, `TRANSACTION_ENDED` 410),
 * and with `SIGNING_IN_PROGRESS` (409) at 20 unless the signing hold there has gone stale at `now`.
 */
export function assertCanAct(tx: Transaction, signer: Signer, now?: Date): void {
  const refusal = signerStepRefusal(tx, signer);
  if (refusal !== undefined) throw signerRefusalError(refusal, tx, signer);
  // A stale hold was left by a process that died while signing (domain: isSigningHoldStale): the signer may sign again.
  if (tx.Status === TransactionStatus.InProgress && (now === undefined || !isSigningHoldStale(tx, now))) {
    throw new ServiceError('SIGNING_IN_PROGRESS', 'The documents are being processed right now: try again in a moment.');
  }
}

/**
 * Refuses a look at the documents the domain does not allow (signerDocumentsRefusal): `TRANSACTION_NOT_STARTED`
 * (409) before the start, `TRANSACTION_ENDED` (410) once ended other than signed.
 */
export function assertCanSeeDocuments(tx: Transaction, signer: Signer): void {
  const refusal = signerDocumentsRefusal(tx);
  if (refusal !== undefined) throw signerRefusalError(refusal, tx, signer);
}

/** Why an ended transaction cannot be signed, in words a signer understands. */
function endedMessage(tx: Transaction): string {
  switch (tx.Status) {
    case TransactionStatus.Signed:
      return 'This transaction has already been signed by everyone.';
    case TransactionStatus.Rejected:
      return 'This transaction was rejected by a signer; it can no longer be signed.';
    case TransactionStatus.Expired:
      return 'This signing request has expired.';
    case TransactionStatus.Cancelled:
      return 'This signing request was cancelled by the sender.';
    default:
      return 'This transaction could not be processed and has ended.';
  }
}

/** Refuses with `SIGNER_NOT_AT_TURN` (409) when the domain says it is not `signer`'s turn (signerTurnRefusal). */
export function assertTurn(tx: Transaction, signer: Signer): void {
  const refusal = signerTurnRefusal(tx, signer);
  if (refusal !== undefined) throw signerRefusalError(refusal, tx, signer);
}

/** Index offset of authentication steps in {@link SignSession.done} (verifications use their own index). */
export const AUTHENTICATION_INDEX = 1000;

/** A step of the signer's journey: an authentication (before any document is shown) or a verification. */
export interface SignerStep {
  /** Verification index, or {@link AUTHENTICATION_INDEX} + authentication index. */
  readonly index: number;
  readonly type: string;
  readonly phase: 'authentication' | 'verification';
  readonly spec: Readonly<Record<string, JsonValue>>;
}

/**
 * The steps the signer performs, in order: the `Authentications` first (docs/design/signer-api.md#authentications: done
 * before the session shows any document), then the `Verifications` (IPAddress is added by the service at signing, not
 * done by the signer).
 */
export function signerSteps(signer: Signer): SignerStep[] {
  const authentications = (signer.Authentications ?? []).map((a, i): SignerStep => ({ index: AUTHENTICATION_INDEX + i, type: a.Type, phase: 'authentication', spec: a }));
  const verifications = signer.Verifications.flatMap((v, index): SignerStep[] => (v.Type === 'IPAddress' ? [] : [{ index, type: v.Type, phase: 'verification', spec: v }]));
  return [...authentications, ...verifications];
}

/** True while an authentication of the signer is not done: no document may be shown yet. */
export function needsAuthentication(signer: Signer): boolean {
  const done = readSignSession(signer).done;
  return signerSteps(signer).some((s) => s.phase === 'authentication' && !done.includes(s.index));
}

/**
 * How long a fresh SecureDownload authentication lets the signer download (our choice,
 * docs/design/signer-api.md#authentications).
 */
export const SECURE_DOWNLOAD_WINDOW_MS = 10 * 60_000;

/** Key of the SecureDownload code in {@link SignSession.codes} (verification codes use their step index). */
export const SECURE_DOWNLOAD_CODE_KEY = 'download';

/**
 * The signer's authentication with `SecureDownload: true` (docs/design/signer-api.md#authentications), when the signer
 * has signed: their later downloads ask for it again. Undefined before signing (the authentication of the journey
 * covers those downloads) and for signers without SecureDownload.
 */
export function secureDownloadStep(signer: Signer): SignerStep | undefined {
  if (signer.SignedDateTime === undefined) return undefined;
  return signerSteps(signer).find((s) => s.phase === 'authentication' && s.spec.SecureDownload === true);
}

/** True when a download by `signer` at `now` needs a fresh SecureDownload authentication first. */
export function needsSecureDownload(signer: Signer, now: Date): boolean {
  if (secureDownloadStep(signer) === undefined) return false;
  const until = readSignSession(signer).downloadUntil;
  return until === undefined || now.getTime() >= Date.parse(until);
}

/** The first verification of the signer not done yet. */
export function nextVerification(signer: Signer): string | undefined {
  const done = readSignSession(signer).done;
  return signerSteps(signer).find((s) => !done.includes(s.index))?.type;
}

/** `ReturnUrl` with `sh_transactionid`, `sh_signerid` and `sh_signerstatus` (docs/design/signer-api.md#return-url). */
export function returnUrl(tx: Transaction, signerId: string, base: string, state: 'signed' | 'rejected'): string {
  const url = new URL(base);
  url.searchParams.set('sh_transactionid', tx.Id);
  url.searchParams.set('sh_signerid', signerId);
  url.searchParams.set('sh_signerstatus', state);
  return url.toString();
}
