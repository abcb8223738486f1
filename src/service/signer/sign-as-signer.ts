/**
 * Use case POST /api/signer/<token>/sign (docs/design/signer-api.md#sign): the signer whose turn it is, with every
 * verification done, signs. Their Check/SingleLine/Date/Number values are validated and written (one incremental
 * update, with the SetParaph initials), then every Signature field of theirs (or the default field) in every
 * document gets a PAdES signature in its own incremental update, with a certificate the service's signing CA issues
 * for this signing (subject: the signer's name and e-mail) and the scribble in the appearance. One commit records
 * the new PDFs, `IPAddress` appended to the Verifications, `SignedDateTime`, the signer's Context, activity 203 and
 * the audit entry. The last signer moves the transaction to 20 and it is finalized at once (seal when `Seal`,
 * receipt, status 30). A replayed request of a signer who has signed answers the same result and signs nothing.
 */
import { withoutForbiddenCharacters } from '../../domain/text-rules.js';
import { randomBytes } from 'node:crypto';
import {
  ActivityCode,
  TransactionStatus,
  formatTime,
  recordActivity,
  signingHoldOf,
  signingHoldStaleAt,
  transition,
  updateFile,
  type JsonObject,
  type JsonValue,
  type Signer,
  type StoredFile,
  type Transaction,
} from '../../domain/transaction.js';
import { randomSerialNumber } from '../../pades/keys/ca.js';
import { issueSigningIdentity } from '../../pades/keys/identity.js';
import { ParaphError } from '../../errors.js';
import { ConcurrencyError, type AuditEntryInput, type OutboxInput } from '../../store/store.js';
import { commitTransaction, changeTime } from '../commit-change.js';
import type { ServiceContext } from '../context.js';
import { describeCertificate, finalizeTransaction } from '../finalize-transaction.js';
import { notificationRow, postbackRow, signerMailRow } from '../delivery/outbox-rows.js';
import { ServiceError } from '../service-error.js';
import type { SealedDocument } from '../pdf-jobs/pdf-work-protocol.js';
import { DEFAULT_PDF_WORK_LIMITS, runPdfJob } from '../pdf-jobs/pdf-work.js';
import { accountSeal, remoteSignerInfo, sealParties, sealStep } from '../pdf-jobs/seal-job.js';
import { normalizeScribble } from './normalize-scribble.js';
import {
  assertCanAct,
  assertTurn,
  findSignerByToken,
  nextVerification,
  returnUrl,
  readSignSession,
  reloadAccess,
  type SignerAccess,
  type SignerRequestInfo,
} from './signer-access.js';
import { signatureFieldNames, validateFieldValues } from './signer-fields.js';

/** The body of a sign request. */
export interface SignRequest {
  /** `null` (for the whole map or a file) counts as not sent. */
  readonly Fields?: Readonly<Record<string, Readonly<Record<string, JsonValue>> | null>> | null;
}

/** The answer to a sign request (also to a replay). */
export interface SignResult {
  readonly SignerStatus: 'signed';
  readonly SignedDateTime: string;
  readonly TransactionStatus: number;
  readonly ReturnUrl?: string;
}

const CERTIFICATE_DAYS = 3 * 365;
const inFlight = new Set<string>();

/**
 * Signs for the token's signer.
 *
 * @throws ServiceError `SIGNER_NOT_AT_TURN` (409), `VERIFICATION_MISSING` (400), `SIGNING_IN_PROGRESS` (409),
 *   `TRANSACTION_ENDED` (410), `SIGNER_ALREADY_REJECTED` (410); ValidationError `SIGN_FIELDS_INVALID` (400).
 */
export async function signAsSigner(ctx: ServiceContext, token: string, request: SignRequest, info: SignerRequestInfo): Promise<SignResult> {
  const access = await findSignerByToken(ctx, token);
  const key = `${access.transaction.Id}/${access.signer.Id}`;
  if (inFlight.has(key)) throw new ServiceError('SIGNING_IN_PROGRESS', 'Your signature is being applied right now: wait a moment.');
  inFlight.add(key);
  try {
    return await signOnce(ctx, access, request, info);
  } finally {
    inFlight.delete(key);
  }
}

async function signOnce(ctx: ServiceContext, first: SignerAccess, request: SignRequest, info: SignerRequestInfo): Promise<SignResult> {
  for (let attempt = 1; ; attempt++) {
    const access = attempt === 1 ? first : await reloadAccess(ctx, first);
    const { transaction: tx, signer } = access;
    if (signer.SignedDateTime !== undefined) return replay(ctx, tx, signer.Id);
    const now = changeTime(ctx, tx);
    assertCanAct(tx, signer, now);
    assertTurn(tx, signer);
    const missing = nextVerification(signer);
    if (missing !== undefined) {
      throw new ServiceError('VERIFICATION_MISSING', `Complete the ${missing} verification before signing.`);
    }
    const { values, context } = validateFieldValues(tx, signer, withoutNulls(request.Fields));
    // Status 20 while the signature is applied (docs/design/transactions.md#statuses): committed first, so GET and
    // other requests see it.
    let held: Transaction;
    try {
      // A stale hold (assertCanAct let it through) is released before this signer takes a new one.
      const hold = transition(tx.Status === TransactionStatus.InProgress ? transition(tx, { type: 'release' }, now) : tx, { type: 'hold', signerId: signer.Id }, now);
      const postback = postbackRow(hold);
      held = await commitTransaction(ctx, { transaction: hold, expectedVersion: tx.version, outbox: postback ? [postback] : [] });
    } catch (error) {
      if (error instanceof ConcurrencyError && attempt < 3) continue;
      throw error;
    }
    try {
      return await applySignature(ctx, held, signer.Id, values, context, info, now);
    } catch (error) {
      if (error instanceof ParaphError && error.code === 'SEAL_NOT_VERIFIABLE') await failUnsealable(ctx, held, error.message);
      await releaseHold(ctx, held);
      throw error;
    }
  }
}

/** The submitted fields with `null` files left out (null is absent, docs/design/api.md#tolerant-reader). */
function withoutNulls(fields: SignRequest['Fields']): Record<string, Readonly<Record<string, JsonValue>>> {
  const out: Record<string, Readonly<Record<string, JsonValue>>> = {};
  for (const [fileId, values] of Object.entries(fields ?? {})) if (values !== null) out[fileId] = values;
  return out;
}

/**
 * Ends the transaction at 70 when the last signature was made but no seal readers would validate could be: a seal
 * is never reported that was not made, and signing again would meet the same document.
 */
async function failUnsealable(ctx: ServiceContext, held: Transaction, reason: string): Promise<never> {
  const at = changeTime(ctx, held);
  const failed = transition(held, { type: 'fail', reason }, at);
  const postback = postbackRow(failed);
  const notice = notificationRow(failed, 'failed');
  await commitTransaction(ctx, {
    transaction: failed,
    expectedVersion: held.version,
    audit: [{ at, type: 'transaction.failed', actor: 'system', data: { reason } }],
    outbox: [...(postback ? [postback] : []), ...(notice ? [notice] : [])],
  });
  throw new ServiceError('SEAL_NOT_VERIFIABLE', 'Your signature could not be completed: the document could not be sealed so that readers validate it, so the transaction has ended.');
}

/**
 * Undoes a signing hold after a failure. A change committed under the hold that left it in place (the mail worker
 * recording a sent mail) is released from; any other concurrent change (a cancel, another hold) decided the status.
 */
async function releaseHold(ctx: ServiceContext, held: Transaction): Promise<void> {
  const hold = signingHoldOf(held);
  let current = held;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const back = transition(current, { type: 'release' }, changeTime(ctx, current));
      const postback = postbackRow(back);
      await commitTransaction(ctx, { transaction: back, expectedVersion: current.version, outbox: postback ? [postback] : [] });
      return;
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) return;
      const latest = await ctx.store.getTransaction(held.Id).catch(() => undefined);
      const stillHeld = signingHoldOf(latest ?? held);
      if (latest === undefined || stillHeld?.signerId !== hold?.signerId || stillHeld?.since !== hold?.since) return;
      current = latest;
    }
  }
}

/** Fills, signs every document and commits the signature (from the held transaction, at 20). */
async function applySignature(
  ctx: ServiceContext,
  held: Transaction,
  signerId: string,
  values: ReturnType<typeof validateFieldValues>['values'],
  context: JsonObject,
  info: SignerRequestInfo,
  now: Date,
): Promise<SignResult> {
  const checkpoint = signingCheckpoint(ctx, held);
  const at = new Date(Math.max(now.getTime(), Date.parse(held.ModifiedDateTime)));
  const tx = transition(held, { type: 'release' }, at);
  const signer = tx.Signers.find((s) => s.Id === signerId) as Signer;
  const signSession = readSignSession(signer);
  // Every way in refuses control and bidi characters; stored data from before that rule must not reach the certificate either.
  const name = withoutForbiddenCharacters(signSession.scribble?.name ?? signer.ScribbleName ?? signer.Email);
  const stored = signSession.scribble?.imageBase64 ? new Uint8Array(Buffer.from(signSession.scribble.imageBase64, 'base64')) : undefined;
  // Only an image paraph re-encoded reaches the PDF.
  const image = stored === undefined || signSession.scribble?.normalized === true ? stored : (await normalizeScribble(stored)).png;

  const signingIdentity = await issueSigningIdentity({
    issuer: ctx.keys.signingCa,
    subject: { commonName: name, emailAddress: withoutForbiddenCharacters(signer.Email) },
    serialNumber: randomSerialNumber(randomBytes),
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + CERTIFICATE_DAYS * 86_400_000),
  });
  const signedFields: { fileId: string; field: string }[] = [];
  const updated = new Map<string, { sha256: string; size: number }>();
  // The last signer of a sealed transaction: each document this signer signs is sealed by the same job, from the same
  // parse (finalizeTransaction takes those seals when nothing changed in between).
  const last = transition(tx, { type: 'sign', signerId: signer.Id }, at).Status === TransactionStatus.InProgress;
  const sealAt = new Date(Math.max(ctx.clock().getTime(), at.getTime()));
  const sealKey = last && tx.Seal ? await accountSeal(ctx, tx.AccountId) : undefined;
  const seal = sealKey ? sealStep(ctx, sealKey, sealAt, tx.Language, true) : undefined;
  const sealed = new Map<string, SealedDocument>();
  const limits = ctx.settings.pdfWork ?? DEFAULT_PDF_WORK_LIMITS;
  const parties = { signer: signingIdentity.signer, ...(sealKey ? sealParties(ctx, sealKey) : ctx.timestamper ? { timestamper: ctx.timestamper } : {}) };
  const abort = signingAbort(ctx, held);
  try {
    for (const file of tx.Files) {
      const source = file.Current ?? file.Original;
      if (source === undefined) continue;
      const fields = signatureFieldNames(file, signer);
      const fileValues = values.get(file.FileId) ?? [];
      const paraph = paraphPages(file);
      if (fields.length === 0 && fileValues.length === 0 && paraph.length === 0) continue;
      checkpoint();
      // One parse per document, in a PDF process: the form values, then each signature, as successive incremental
      // updates; the signature values are made here with the key issued for this signing.
      const done = await runPdfJob(
        {
          kind: 'sign',
          bytes: await ctx.store.blobs.read(source.sha256),
          values: fileValues,
          ...(paraph.length > 0 ? { paraph: { ...(image ? { image } : {}), text: initials(name), pages: paraph } } : {}),
          signer: remoteSignerInfo('signer', signingIdentity.signer),
          fields,
          signingTime: now,
          appearance: { name, date: formatTime(now).slice(0, 16).replace('T', ' ') + ' UTC', ...(image ? { image } : {}) },
          timestamp: ctx.timestamper !== undefined,
          ...(seal ? { seal } : {}),
        },
        limits,
        { pageCount: file.Original?.pages ?? 0, signal: abort.signal, parties, trace: ctx.trace },
      );
      for (const field of fields) signedFields.push({ fileId: file.FileId, field });
      const blob = await ctx.store.blobs.write(done.bytes);
      updated.set(file.FileId, { sha256: blob.sha256, size: blob.size });
      if (done.sealed) sealed.set(file.FileId, done.sealed);
    }
  } finally {
    abort.dispose();
  }

  let next = transition(tx, { type: 'sign', signerId: signer.Id }, at);
  next = recordActivity(next, { signerId: signer.Id }, { id: ctx.ids.id(), code: ActivityCode.Signed }, at);
  for (const [fileId, u] of updated) next = updateFile(next, fileId, (f) => ({ ...f, Current: u }), at);
  next = {
    ...next,
    Signers: next.Signers.map((s) => {
      if (s.Id !== signer.Id) return s;
      const { SignSession: _replaced, ...rest } = s;
      const kept: JsonObject = signSession.scribble ? { done: [...signSession.done], codes: {}, scribble: { name: signSession.scribble.name } } : { done: [...signSession.done], codes: {} };
      return {
        ...rest,
        SignSession: kept,
        ...(s.ScribbleName === undefined ? { ScribbleName: name } : {}),
        Verifications: [...s.Verifications, { Type: 'IPAddress' as const, IPAddress: info.ip }],
        Context: context,
      };
    }),
  };
  const certificate = signingIdentity.certificate;
  const outbox: OutboxInput[] = [];
  const postback = postbackRow(next);
  if (postback) outbox.push(postback);
  const following = next.Signers.find((s) => s.SignedDateTime === undefined && s.RejectDateTime === undefined);
  if (next.Status === TransactionStatus.WaitingForSigner && next.SignRequestMode === 2 && following?.SendSignRequest) outbox.push(signerMailRow(next, following, 'invitation'));
  const audit: AuditEntryInput[] = [
    {
      at,
      type: 'signer.signed',
      actor: `signer:${signer.Id}`,
      data: { signerId: signer.Id, ip: info.ip, userAgent: info.userAgent, fields: signedFields, certificate: describeCertificate(certificate) },
    },
  ];
  checkpoint();
  // The last signature and the finalization (seal, receipt, 30) are one commit: the transaction is at 10 (under the
  // hold) or at 30, never signed by all and left at 20.
  // A retry seals afresh: the change it was carried over may have moved the time past the seals already made.
  const commitSigned = (signed: Transaction, expectedVersion: number, first: boolean): Promise<Transaction> => {
    // On a retry the signature is recorded when it is committed, after the change it was carried over.
    const at = first ? undefined : changeTime(ctx, base);
    const entries = at === undefined ? audit : audit.map((entry) => ({ ...entry, at }));
    const recorded = at === undefined ? signed : { ...signed, ModifiedDateTime: formatTime(at) };
    return recorded.Status === TransactionStatus.InProgress
      ? first
        ? finalizeTransaction(ctx, recorded, { expectedVersion, audit: entries, outbox }, { presealed: { at: sealAt, files: sealed } })
        : finalizeTransaction(ctx, recorded, { expectedVersion, audit: entries, outbox })
      : commitTransaction(ctx, { transaction: recorded, expectedVersion, audit: entries, outbox });
  };
  let base = held;
  let signed = next;
  for (let attempt = 1; ; attempt++) {
    try {
      return result(ctx, await commitSigned(signed, base.version, attempt === 1), signer.Id);
    } catch (error) {
      if (!(error instanceof ConcurrencyError) || attempt >= 3) throw error;
      // A change committed under the hold (the mail worker recording a sent mail) that leaves this signer, the
      // documents and the status alone is kept, and the signature committed on top of it.
      const current = await ctx.store.getTransaction(held.Id);
      const rebased = current === undefined ? undefined : rebaseSignature(held, signed, current, signer.Id);
      if (current === undefined || rebased === undefined) throw error;
      base = current;
      signed = rebased;
    }
  }
}

/**
 * `signed` (made from `held`) carried over onto `current`, a later version of the held transaction, when what changed
 * in between touches neither this signer, nor anything the signature changed, nor anything but the other signers
 * and receivers (their activities); undefined otherwise.
 */
export function rebaseSignature(held: Transaction, signed: Transaction, current: Transaction, signerId: string): Transaction | undefined {
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  const { Signers: hs, Receivers: hr, ModifiedDateTime: _hm, version: _hv, ...heldRest } = held;
  const { Signers: cs, Receivers: cr, ModifiedDateTime: _cm, version: _cv, ...currentRest } = current;
  if (!same(heldRest, currentRest) || hs.length !== cs.length || hr.length !== cr.length) return undefined;
  const heldSigner = hs.find((s) => s.Id === signerId);
  if (heldSigner === undefined || !same(heldSigner, cs.find((s) => s.Id === signerId))) return undefined;
  // The signature changed only this signer (and the transaction's own fields): every other signer and receiver of
  // `signed` must still be as held, so taking the current ones loses nothing of the signature.
  const othersUntouched = signed.Signers.every((s) => s.Id === signerId || same(s, hs.find((h) => h.Id === s.Id))) && same(signed.Receivers, hr);
  if (!othersUntouched) return undefined;
  return {
    ...signed,
    Signers: cs.map((s) => (s.Id === signerId ? (signed.Signers.find((x) => x.Id === signerId) as Signer) : s)),
    Receivers: cr,
    ModifiedDateTime: Date.parse(current.ModifiedDateTime) > Date.parse(signed.ModifiedDateTime) ? current.ModifiedDateTime : signed.ModifiedDateTime,
    version: current.version,
  };
}

/**
 * A check to call between the steps of signing: throws `SIGNING_ABORTED` (503) once the process is stopping or the
 * signing hold has gone stale (the release timer may then hand the transaction back, so nothing of this signing
 * could be committed anyway). The caller releases the hold.
 */
function signingCheckpoint(ctx: ServiceContext, held: Transaction): () => void {
  const staleAt = signingHoldStaleAt(held);
  const staleMs = staleAt === undefined ? Infinity : Date.parse(staleAt);
  return () => {
    if (ctx.stopping?.aborted) throw new ServiceError('SIGNING_ABORTED', 'The service is stopping: your signature was not applied. Sign again in a moment.');
    if (ctx.clock().getTime() >= staleMs) throw new ServiceError('SIGNING_ABORTED', 'Applying your signature took longer than allowed, so it was not applied. Sign again.');
  };
}

/**
 * Aborts the signing's PDF jobs (ending their processes) when the process is stopping or the signing hold goes
 * stale, with `SIGNING_ABORTED`; `dispose` once the jobs are done.
 */
function signingAbort(ctx: ServiceContext, held: Transaction): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const staleAt = signingHoldStaleAt(held);
  const onStopping = (): void => controller.abort(new ServiceError('SIGNING_ABORTED', 'The service is stopping: your signature was not applied. Sign again in a moment.'));
  if (ctx.stopping?.aborted) onStopping();
  else ctx.stopping?.addEventListener('abort', onStopping, { once: true });
  const timer =
    staleAt === undefined
      ? undefined
      : setTimeout(
          () => controller.abort(new ServiceError('SIGNING_ABORTED', 'Applying your signature took longer than allowed, so it was not applied. Sign again.')),
          Math.max(0, Date.parse(staleAt) - ctx.clock().getTime()),
        );
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      ctx.stopping?.removeEventListener('abort', onStopping);
    },
  };
}

/** A replay: the signer has signed; finish a transaction left at 20 (e.g. by a crash) and answer the same result. */
async function replay(ctx: ServiceContext, tx: Transaction, signerId: string): Promise<SignResult> {
  let current = tx;
  if (tx.Status === TransactionStatus.InProgress && tx.Signers.every((s) => s.SignedDateTime !== undefined)) {
    try {
      current = await finalizeTransaction(ctx, tx);
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      current = (await ctx.store.getTransaction(tx.Id)) ?? tx;
    }
  }
  return result(ctx, current, signerId);
}

function result(_ctx: ServiceContext, tx: Transaction, signerId: string): SignResult {
  const signer = tx.Signers.find((s) => s.Id === signerId);
  return {
    SignerStatus: 'signed',
    SignedDateTime: signer?.SignedDateTime ?? '',
    TransactionStatus: tx.Status,
    ...(signer?.ReturnUrl !== undefined ? { ReturnUrl: returnUrl(tx, signerId, signer.ReturnUrl, 'signed') } : {}),
  };
}

/** Pages of `file` that get the initials (SetParaph): every page without a signature field of any signer. */
function paraphPages(file: StoredFile): number[] {
  if (file.Metadata?.SetParaph !== true || file.Original === undefined) return [];
  // The placements start resolved include the default signature fields, wherever they went ({{SignerN}} or page 1).
  const withSignature = new Set((file.Placements ?? []).filter((p) => p.type === 'Signature' || p.type === 'Seal').map((p) => p.pageNumber));
  const pages: number[] = [];
  for (let n = 1; n <= file.Original.pages; n++) if (!withSignature.has(n)) pages.push(n);
  return pages;
}

/** Initials of a name: `Zoë van Dijk` → `Z.v.D.`. */
export function initials(name: string): string {
  const parts = name.split(/\s+/).filter(Boolean);
  return parts.map((p) => `${[...p][0] ?? ''}.`).join('') || name;
}
