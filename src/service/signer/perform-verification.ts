/**
 * Use case POST /api/signer/<token>/verification (docs/design/signer-api.md#verifications): the verifications paraph
 * performs, in the order the signer's `Verifications` list them — `Consent`, `Scribble` (a drawn PNG, or a typed name
 * unless RequireHandsignature; the name fixed when ScribbleNameFixed), `PhoneNumber` and `Email` one-time codes (6
 * digits, valid 10 minutes, 5 attempts, a new code at most once a minute and 5 codes per verification). Each completed
 * step is an audit entry `verification.performed` (evidence without secrets). After signing, a signer whose
 * authentication has `SecureDownload: true` asks for a fresh code of that type the same way; the right code opens
 * their downloads for {@link SECURE_DOWNLOAD_WINDOW_MS} ("later downloads ask for it again",
 * docs/design/signer-api.md).
 */
import { hasForbiddenCharacters } from '../../domain/text-rules.js';
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { MasterKey } from '../../store/master-key.js';
import type { JsonValue, Signer, Transaction } from '../../domain/transaction.js';
import { TransactionStatus, formatTime } from '../../domain/transaction.js';
import type { AuditEntryInput, OutboxInput } from '../../store/store.js';
import { commitChange } from '../commit-change.js';
import { OUTBOX_CODE_PURPOSE } from '../delivery/mail-payload.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import type { VerificationSenders } from '../delivery/verification-senders.js';
import {
  assertCanAct,
  assertTurn,
  assertCanSeeDocuments,
  findSignerByToken,
  readSignSession,
  reloadAccess,
  SECURE_DOWNLOAD_CODE_KEY,
  SECURE_DOWNLOAD_WINDOW_MS,
  secureDownloadStep,
  signerSteps,
  withSignSession,
  type PendingCode,
  type SignerStep,
  type SignSession,
} from './signer-access.js';
import { normalizeScribble } from './normalize-scribble.js';
import { callbackState, IDENTITY_CALLBACK_PATH, IDENTITY_CHOOSE_PATH, newIdentityState, sealPending } from './identity-state.js';
import { identityProviderFor } from '../identity/identity-provider-for.js';

/** Limits of the one-time codes. */
const CODE_RULES = { validMs: 10 * 60_000, maxAttempts: 5, resendAfterMs: 60_000, maxSends: 5 } as const;
/** Largest accepted scribble PNG (decoded). */
const MAX_SCRIBBLE_BYTES = 512 * 1024;

/** A verification request body. */
export interface VerificationRequest {
  readonly Type: string;
  /** Scribble: `data:image/png;base64,…`. */
  readonly Image?: string;
  /** Scribble: the name (typed or confirmed). */
  readonly Name?: string;
  /** PhoneNumber/Email: the code received; without it a code is sent. */
  readonly Code?: string;
}

/** The outcome: whether the step is done, or a code was sent, or where to go for an external identity method. */
export interface VerificationOutcome {
  readonly Type: string;
  readonly Done: boolean;
  readonly CodeSent?: boolean;
  /** External identity method: send the signer here; they come back to the signing page. */
  readonly RedirectUrl?: string;
  /** Verifications still to do after this one. */
  readonly Remaining: readonly string[];
  /** SecureDownload after signing: the downloads are open until then (a fresh code opens them again). */
  readonly DownloadUntil?: string;
}

/**
 * Performs (or, for a code verification without `Code`, starts) the next verification of the signer.
 *
 * @throws ServiceError `VERIFICATION_UNKNOWN` (a type the signer does not have), `VERIFICATION_OUT_OF_ORDER`,
 *   `VERIFICATION_ALREADY_DONE`, `SCRIBBLE_INVALID`, `SCRIBBLE_NAME_FIXED`, `CODE_NOT_SENT`, `CODE_WRONG`,
 *   `CODE_EXPIRED`, `CODE_ATTEMPTS_EXCEEDED`, `CODE_RESEND_TOO_SOON` (429), plus the refusals of assertCanAct/assertTurn.
 */
export async function performVerification(
  ctx: ServiceContext,
  senders: VerificationSenders,
  token: string,
  request: VerificationRequest,
): Promise<VerificationOutcome> {
  const access = await findSignerByToken(ctx, token);
  let outcome: VerificationOutcome | undefined;
  let refusal: ServiceError | undefined;
  await commitChange(
    ctx,
    async () => (await reloadAccess(ctx, access)).transaction,
    async (tx, now) => {
      refusal = undefined;
      const signer = tx.Signers.find((s) => s.Id === access.signer.Id) as Signer;
      const secure = secureDownloadStep(signer);
      if (secure !== undefined && secure.type === request.Type) {
        // SecureDownload (docs/design/signer-api.md#authentications): after signing, a fresh code opens a download
        // window.
        assertCanSeeDocuments(tx, signer);
        // A commit now would make the signing of the signer at turn fail on its version check.
        if (tx.Status === TransactionStatus.InProgress) throw new ServiceError('SIGNING_IN_PROGRESS', 'The documents are being processed right now: try again in a moment.');
        const session = readSignSession(signer);
        const key = SECURE_DOWNLOAD_CODE_KEY;
        const to = codeRecipient(signer, secure);
        if (request.Code === undefined) {
          const sent = await sendCode(ctx.secrets, senders, tx, signer, secure.type, to, session.codes[key], now);
          outcome = { Type: secure.type, Done: false, CodeSent: true, Remaining: [secure.type] };
          return { transaction: { ...withSignSession(tx, signer.Id, { ...session, codes: { ...session.codes, [key]: sent.code } }), ModifiedDateTime: formatTime(now) }, outbox: sent.outbox };
        }
        const checked = checkCode(ctx.secrets, secure.type, session.codes[key], request.Code, now);
        if (checked.refusal !== undefined) {
          refusal = checked.refusal;
          return { transaction: { ...withSignSession(tx, signer.Id, { ...session, codes: { ...session.codes, [key]: checked.code } }), ModifiedDateTime: formatTime(now) } };
        }
        const { [key]: _used, ...codes } = session.codes;
        const downloadUntil = formatTime(new Date(now.getTime() + SECURE_DOWNLOAD_WINDOW_MS));
        outcome = { Type: secure.type, Done: true, Remaining: [], DownloadUntil: downloadUntil };
        return {
          transaction: { ...withSignSession(tx, signer.Id, { ...session, codes, downloadUntil }), ModifiedDateTime: formatTime(now) },
          audit: [{
            at: now,
            type: 'verification.performed' as const,
            actor: `signer:${signer.Id}` as const,
            data: { signerId: signer.Id, verification: `${secure.type} (secure download)`, result: 'passed' as const, evidence: codeEvidence(secure.type, to) },
          }],
        };
      }
      assertCanAct(tx, signer);
      assertTurn(tx, signer);
      const steps = signerSteps(signer);
      const session = readSignSession(signer);
      const step = steps.find((s) => s.type === request.Type && !session.done.includes(s.index)) ?? steps.find((s) => s.type === request.Type);
      if (step === undefined) {
        throw new ServiceError('VERIFICATION_UNKNOWN', `Type: ${JSON.stringify(request.Type)} is not one of your verifications (${steps.map((s) => s.type).join(', ')}).`);
      }
      if (session.done.includes(step.index)) throw new ServiceError('VERIFICATION_ALREADY_DONE', `Verification ${step.type} is already done.`);
      const pending = steps.find((s) => !session.done.includes(s.index));
      if (pending !== undefined && pending.index !== step.index) {
        throw new ServiceError('VERIFICATION_OUT_OF_ORDER', `Complete the ${pending.type} verification first.`);
      }
      const remainingAfter = steps.filter((s) => !session.done.includes(s.index) && s.index !== step.index).map((s) => s.type);
      const actor = `signer:${signer.Id}` as const;
      const auditName = step.phase === 'authentication' ? `${step.type} (authentication)` : step.type;
      const done = (next: SignSession, evidence: Record<string, string>, extra: { audit?: AuditEntryInput[] } = {}) => {
        outcome = { Type: step.type, Done: true, Remaining: remainingAfter };
        const updated = withSignSession(tx, signer.Id, { ...next, done: [...next.done, step.index] });
        return {
          transaction: { ...updated, ModifiedDateTime: formatTime(now) },
          audit: [
            ...(extra.audit ?? []),
            { at: now, type: 'verification.performed' as const, actor, data: { signerId: signer.Id, verification: auditName, result: 'passed' as const, evidence } },
          ],
        };
      };
      switch (step.type) {
        case 'Consent':
          return done(session, { consent: 'given' });
        case 'Scribble': {
          const scribble = await checkScribble(signer, step.spec, request);
          return done({ ...session, scribble }, { name: scribble.name, kind: scribble.imageBase64 ? 'drawn' : 'typed' });
        }
        case 'PhoneNumber':
        case 'Email': {
          const to = codeRecipient(signer, step);
          const key = String(step.index);
          const code = session.codes[key];
          if (request.Code === undefined) {
            const sent = await sendCode(ctx.secrets, senders, tx, signer, step.type, to, code, now);
            outcome = { Type: step.type, Done: false, CodeSent: true, Remaining: [step.type, ...remainingAfter] };
            return { transaction: { ...withSignSession(tx, signer.Id, { ...session, codes: { ...session.codes, [key]: sent.code } }), ModifiedDateTime: formatTime(now) }, outbox: sent.outbox };
          }
          const checked = checkCode(ctx.secrets, step.type, code, request.Code, now);
          if (checked.refusal !== undefined) {
            // The wrong attempt is committed, then the refusal is answered.
            refusal = checked.refusal;
            return {
              transaction: { ...withSignSession(tx, signer.Id, { ...session, codes: { ...session.codes, [key]: checked.code } }), ModifiedDateTime: formatTime(now) },
            };
          }
          const { [key]: _used, ...codes } = session.codes;
          return done({ ...session, codes }, codeEvidence(step.type, to));
        }
        default: {
          const provider = identityProviderFor(ctx, tx.AccountId, step.type);
          if (provider === undefined) {
            throw new ServiceError('VERIFICATION_NOT_AVAILABLE', `Verification ${step.type} needs an identity provider, and none is configured.`);
          }
          const state = newIdentityState();
          const returnUrl = `${ctx.settings.publicUrl}/sign/${encodeURIComponent(token)}/identity?state=${state}`;
          const sentState = callbackState(state, tx.Id, signer.Id);
          const begun = await beginWithProvider(step.type, () => provider.begin({
            transactionId: tx.Id,
            signerId: signer.Id,
            verification: step.spec,
            returnUrl,
            callbackUrl: `${ctx.settings.publicUrl}${IDENTITY_CALLBACK_PATH}`,
            state: sentState,
            chooseUrl: `${ctx.settings.publicUrl}${IDENTITY_CHOOSE_PATH}?state=${sentState}`,
          }));
          outcome = { Type: step.type, Done: false, RedirectUrl: begun.redirectUrl, Remaining: [step.type, ...remainingAfter] };
          const identity = { index: step.index, state, ...(begun.pending !== undefined ? { pending: sealPending(begun.pending, ctx.secrets) } : {}) };
          const next = withSignSession(tx, signer.Id, { ...session, identity });
          return { transaction: { ...next, ModifiedDateTime: formatTime(now) } };
        }
      }
    },
  );
  if (refusal !== undefined) throw refusal;
  return outcome as VerificationOutcome;
}

/**
 * Runs a provider's `begin`; a provider that fails there (not reachable, discovery refused) is the provider's trouble,
 * not the signer's input: 503 with what went wrong.
 */
export async function beginWithProvider<T>(type: string, begin: () => Promise<T>): Promise<T> {
  try {
    return await begin();
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw new ServiceError('IDENTITY_PROVIDER_UNAVAILABLE', `${type}: the identity provider could not be reached (${error instanceof Error ? error.message : String(error)}); try again in a moment.`, { cause: error });
  }
}

/** Where the code of a PhoneNumber/Email step goes: the step's own number or address, else the signer's. */
function codeRecipient(signer: Signer, step: SignerStep): string {
  const to = step.type === 'PhoneNumber'
    ? (typeof step.spec.Number === 'string' ? step.spec.Number : signer.Mobile)
    : (typeof step.spec.Email === 'string' ? step.spec.Email : signer.Email);
  if (to === undefined || to === '') throw new ServiceError('VERIFICATION_NO_RECIPIENT', `${step.type}: no phone number is known for you; contact the sender.`);
  return to;
}

/** Audit evidence of a passed code: never the code, only the number's last digits or the address. */
function codeEvidence(type: string, to: string): Record<string, string> {
  return type === 'PhoneNumber' ? { number: `…${to.slice(-2)}` } : { email: to };
}

/** Sends a new code (resend rules of {@link CODE_RULES}); returns what to keep and the sender's outbox rows. */
async function sendCode(
  secrets: MasterKey | undefined,
  senders: VerificationSenders,
  tx: Transaction,
  signer: Signer,
  type: string,
  to: string,
  previous: PendingCode | undefined,
  now: Date,
): Promise<{ code: PendingCode; outbox: readonly OutboxInput[] }> {
  if (previous !== undefined && now.getTime() - Date.parse(previous.sentAt) < CODE_RULES.resendAfterMs) {
    throw new ServiceError('CODE_RESEND_TOO_SOON', 'A code was sent less than a minute ago: wait a minute before asking for a new one.');
  }
  if (previous !== undefined && previous.sends >= CODE_RULES.maxSends) {
    throw new ServiceError('CODE_SEND_LIMIT', `${CODE_RULES.maxSends} codes were sent already: contact the sender of the documents.`);
  }
  const plain = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const expiresAt = new Date(now.getTime() + CODE_RULES.validMs);
  const sender = type === 'PhoneNumber' ? senders.sms : senders.email;
  const rows = await sender({ transactionId: tx.Id, signerId: signer.Id, to, code: plain, language: signer.Language ?? tx.Language, expiresAt });
  const outbox = secrets === undefined ? rows : rows.map((row) => sealOutboxCode(row, secrets));
  const digest = secrets === undefined ? { codeSha256: sha256(plain) } : { codeMac: secrets.mac(plain, CODE_MAC_PURPOSE) };
  return { code: { ...digest, expiresAt: formatTime(expiresAt), attempts: 0, sentAt: formatTime(now), sends: (previous?.sends ?? 0) + 1 }, outbox };
}

/**
 * Checks an entered code. Throws for a code never sent, malformed, expired or out of attempts; a wrong code returns
 * the refusal with the attempt counted (the caller commits the count, then answers the refusal).
 */
function checkCode(secrets: MasterKey | undefined, type: string, code: PendingCode | undefined, given: string, now: Date): { refusal: ServiceError; code: PendingCode } | { refusal?: undefined } {
  if (code === undefined) throw new ServiceError('CODE_NOT_SENT', `${type}: ask for a code first (send {"Type": "${type}"}).`);
  if (!/^\d{6}$/.test(given)) throw new ServiceError('CODE_WRONG', `Code: enter the 6 digits of the code you received.`);
  if (now.getTime() > Date.parse(code.expiresAt)) throw new ServiceError('CODE_EXPIRED', 'The code has expired (codes are valid for 10 minutes): ask for a new code.');
  if (code.attempts >= CODE_RULES.maxAttempts) throw new ServiceError('CODE_ATTEMPTS_EXCEEDED', 'Too many wrong codes were entered: ask for a new code.');
  const [stored, entered] = code.codeMac !== undefined && secrets !== undefined
    ? [code.codeMac, secrets.mac(given, CODE_MAC_PURPOSE)]
    : [code.codeSha256 ?? '', sha256(given)];
  if (stored.length === entered.length && timingSafeEqual(Buffer.from(entered, 'hex'), Buffer.from(stored, 'hex'))) return {};
  const attempts = code.attempts + 1;
  const refusal = attempts >= CODE_RULES.maxAttempts
    ? new ServiceError('CODE_ATTEMPTS_EXCEEDED', 'Too many wrong codes were entered: ask for a new code.')
    : new ServiceError('CODE_WRONG', `The code is not correct: check it and try again (${CODE_RULES.maxAttempts - attempts} attempts left).`);
  return { refusal, code: { ...code, attempts } };
}

async function checkScribble(signer: Signer, spec: Readonly<Record<string, JsonValue>>, request: VerificationRequest): Promise<{ imageBase64?: string; normalized?: true; name: string }> {
  const requireImage = spec.RequireHandsignature === true || signer.RequireScribble === true;
  const fixed = spec.ScribbleNameFixed === true || signer.ScribbleNameFixed === true;
  const preset = typeof spec.ScribbleName === 'string' ? spec.ScribbleName : signer.ScribbleName;
  let name = (request.Name ?? '').trim();
  if (fixed && preset !== undefined) {
    if (name !== '' && name !== preset) throw new ServiceError('SCRIBBLE_NAME_FIXED', `Name: the name is fixed to ${JSON.stringify(preset)} and cannot be changed.`);
    name = preset;
  }
  if (name === '' && preset !== undefined) name = preset;
  if (name === '' || name.length > 255 || hasForbiddenCharacters(name)) {
    throw new ServiceError('SCRIBBLE_INVALID', 'Name: enter your full name (at most 255 characters).');
  }
  if (request.Image === undefined) {
    if (requireImage) throw new ServiceError('SCRIBBLE_INVALID', 'Image: draw your signature; a typed name is not accepted for this document.');
    return { name };
  }
  const prefix = 'data:image/png;base64,';
  if (!request.Image.startsWith(prefix)) throw new ServiceError('SCRIBBLE_INVALID', 'Image: send the drawn signature as data:image/png;base64,…');
  const bytes = Buffer.from(request.Image.slice(prefix.length), 'base64');
  if (bytes.length > MAX_SCRIBBLE_BYTES) throw new ServiceError('SCRIBBLE_INVALID', `Image: the drawn signature is larger than ${MAX_SCRIBBLE_BYTES / 1024} KiB.`);
  // Header (size cap, pixel budget) before any decoding; then one still frame decoded on a capped thread and
  // re-encoded by us: what is kept, and later drawn into the PDF, is never the signer's own bytes.
  const { png } = await normalizeScribble(bytes);
  return { imageBase64: Buffer.from(png).toString('base64'), normalized: true, name };
}

/** Purpose of the codes' keyed hashes under the master key. */
const CODE_MAC_PURPOSE = 'verification-code';

/**
 * A sender's outbox row with its one-time code sealed: a mail row's `code` becomes `codeSealed`, so a copy of the
 * database without the master key does not hold a code that would let its reader pass the verification.
 */
function sealOutboxCode(row: OutboxInput, secrets: MasterKey): OutboxInput {
  const payload = row.payload;
  if (row.kind !== 'mail' || typeof payload !== 'object' || payload === null || Array.isArray(payload) || typeof payload.code !== 'string') return row;
  const { code, ...rest } = payload;
  return { ...row, payload: { ...rest, codeSealed: secrets.seal(code, OUTBOX_CODE_PURPOSE) } };
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}


