/**
 * The signer's session as the signing page shows it (body of GET /api/signer/<token>,
 * docs/design/signer-api.md#session): state of the journey, documents with the fields to fill, verification steps
 * without secrets. Pure; the use cases (open-session.ts, show-page.ts) render it from a {@link SignerAccess}.
 */
import { TransactionStatus, isEndStatus, waitingFor } from '../../domain/transaction.js';
import { type Language } from '../../i18n/languages.js';
import {
  readSignSession,
  SECURE_DOWNLOAD_CODE_KEY,
  secureDownloadStep,
  signerSteps,
  returnUrl,
  type SignerAccess,
} from './signer-access.js';
import { signerFields, type SignerField } from './signer-fields.js';
import type { Sender } from '../delivery/sender.js';

/** The state of the signer's journey. */
export type SignerState = 'not-started' | 'waiting' | 'authenticate' | 'verify' | 'sign' | 'signed' | 'rejected' | 'ended' | 'processing';

/** A verification step as the page shows it (no secrets). */
export interface SessionStep {
  readonly Index: number;
  readonly Type: string;
  /** Authentications come first and must be done before any document is shown. */
  readonly Phase: 'authentication' | 'verification';
  readonly Done: boolean;
  /** PhoneNumber: the number with all but the last 2 digits hidden; Email: the address. */
  readonly SentTo?: string;
  /** Whether a code is outstanding (PhoneNumber, Email). */
  readonly CodeSent?: boolean;
  /** Scribble: a drawn signature is required (no typed name). */
  readonly RequireHandsignature?: boolean;
  /** Scribble: the name may not be changed. */
  readonly ScribbleNameFixed?: boolean;
}

/** A document as the page shows it. */
export interface SessionDocument {
  readonly FileId: string;
  readonly DisplayName: string;
  readonly Description?: string;
  readonly Pages: number;
  readonly Fields: readonly SignerField[];
}

/** The session (JSON body of GET /api/signer/<token>). */
export interface SignerSessionView {
  readonly TransactionId: string;
  readonly Reference?: string;
  readonly TransactionStatus: number;
  readonly Language: Language;
  readonly State: SignerState;
  readonly Signer: { Id: string; Email: string; Name?: string; IntroText?: string; SignedDateTime?: string; RejectDateTime?: string };
  readonly WaitingFor: readonly { Id: string; Name?: string }[];
  /** Who asks for the signature: the organisation, and the sender's name and e-mail address where configured. */
  readonly Sender?: { readonly Organization: string; readonly Name?: string; readonly Email?: string; readonly Color?: string; readonly ColorDark?: string; readonly Logo?: string };
  readonly Documents: readonly SessionDocument[];
  readonly Verifications: readonly SessionStep[];
  /** Where the page goes after signing or rejecting (with sh_transactionid, sh_signerid, sh_signerstatus). */
  readonly ReturnUrl?: string;
  /** The name to prefill (ScribbleName). */
  readonly ScribbleName?: string;
  /**
   * After signing, with an authentication marked `SecureDownload`: downloads need a fresh code of `Type`
   * (POST verification), which opens them until `DownloadUntil`.
   */
  readonly SecureDownload?: { readonly Type: string; readonly CodeSent: boolean; readonly DownloadUntil?: string };
}

/** The session view of an access (pure). */
export function toSessionView(access: SignerAccess, _publicUrl: string, sender?: Sender): SignerSessionView {
  const { transaction: tx, signer } = access;
  const session = readSignSession(signer);
  const steps: SessionStep[] = signerSteps(signer).map(({ index, type, spec, phase }) => {
    const done = session.done.includes(index);
    const base = { Index: index, Type: type, Phase: phase, Done: done };
    if (type === 'PhoneNumber') {
      const number = typeof spec.Number === 'string' ? spec.Number : (signer.Mobile ?? '');
      return { ...base, SentTo: maskNumber(number), CodeSent: session.codes[String(index)] !== undefined };
    }
    if (type === 'Email') {
      const email = typeof spec.Email === 'string' ? spec.Email : signer.Email;
      return { ...base, SentTo: email, CodeSent: session.codes[String(index)] !== undefined };
    }
    if (type === 'Scribble') {
      return {
        ...base,
        RequireHandsignature: spec.RequireHandsignature === true || signer.RequireScribble === true,
        ScribbleNameFixed: spec.ScribbleNameFixed === true || signer.ScribbleNameFixed === true,
      };
    }
    return base;
  });
  const waiting = waitingFor(tx, signer);
  const allDone = steps.every((s) => s.Done);
  let state: SignerState;
  if (signer.SignedDateTime !== undefined) state = 'signed';
  else if (signer.RejectDateTime !== undefined) state = 'rejected';
  else if (tx.Status === TransactionStatus.WaitingForDocument) state = 'not-started';
  else if (isEndStatus(tx.Status)) state = 'ended';
  else if (tx.Status === TransactionStatus.InProgress) state = 'processing';
  else if (waiting.length > 0) state = 'waiting';
  else if (steps.some((s) => s.Phase === 'authentication' && !s.Done)) state = 'authenticate';
  else state = allDone ? 'sign' : 'verify';

  const name = session.scribble?.name ?? signer.ScribbleName ?? scribbleNameOf(signer);
  const documents = [...tx.Files]
    .filter((f) => f.Original !== undefined)
    .sort((a, b) => (a.Metadata?.DisplayOrder ?? Number.MAX_SAFE_INTEGER) - (b.Metadata?.DisplayOrder ?? Number.MAX_SAFE_INTEGER))
    .map((file) => ({
      FileId: file.FileId,
      DisplayName: file.DisplayName ?? file.Metadata?.DisplayName ?? file.FileId,
      ...(file.Metadata?.Description !== undefined ? { Description: file.Metadata.Description } : {}),
      Pages: file.Original?.pages ?? 0,
      Fields: signerFields(file, signer, [signer.Language ?? tx.Language, tx.Language]),
    }));
  const done = state === 'signed' || state === 'rejected';
  const secure = secureDownloadStep(signer);
  return {
    TransactionId: tx.Id,
    ...(tx.Reference !== undefined ? { Reference: tx.Reference } : {}),
    TransactionStatus: tx.Status,
    Language: signer.Language ?? tx.Language,
    State: state,
    Signer: {
      Id: signer.Id,
      Email: signer.Email,
      ...(name !== undefined ? { Name: name } : {}),
      ...(signer.IntroText !== undefined ? { IntroText: signer.IntroText } : {}),
      ...(signer.SignedDateTime !== undefined ? { SignedDateTime: signer.SignedDateTime } : {}),
      ...(signer.RejectDateTime !== undefined ? { RejectDateTime: signer.RejectDateTime } : {}),
    },
    // Another signer's e-mail address is theirs: a waiting signer sees their name, when the transaction gives one.
    WaitingFor: waiting.map((s) => {
      const other = s.ScribbleName ?? scribbleNameOf(s);
      return { Id: s.Id, ...(other !== undefined ? { Name: other } : {}) };
    }),
    ...(sender !== undefined
      ? {
          Sender: {
            Organization: sender.organization,
            ...(sender.name !== undefined ? { Name: sender.name } : {}),
            ...(sender.email !== undefined ? { Email: sender.email } : {}),
            ...(sender.accent !== undefined ? { Color: sender.accent.color, ColorDark: sender.accent.dark } : {}),
            ...(sender.logo !== undefined ? { Logo: sender.logo.path } : {}),
          },
        }
      : {}),
    Documents: done || state === 'not-started' || state === 'ended' || state === 'authenticate' ? [] : documents,
    Verifications: steps,
    ...(done && signer.ReturnUrl !== undefined ? { ReturnUrl: returnUrl(tx, signer.Id, signer.ReturnUrl, state === 'signed' ? 'signed' : 'rejected') } : {}),
    ...(name !== undefined ? { ScribbleName: name } : {}),
    ...(secure !== undefined
      ? { SecureDownload: { Type: secure.type, CodeSent: session.codes[SECURE_DOWNLOAD_CODE_KEY] !== undefined, ...(session.downloadUntil !== undefined ? { DownloadUntil: session.downloadUntil } : {}) } }
      : {}),
  };
}

function scribbleNameOf(signer: { Verifications: readonly { Type: string; [k: string]: unknown }[] }): string | undefined {
  const v = signer.Verifications.find((x) => x.Type === 'Scribble');
  return typeof v?.ScribbleName === 'string' ? v.ScribbleName : undefined;
}


function maskNumber(number: string): string {
  if (number.length <= 4) return number;
  return number.slice(0, 3) + '•'.repeat(Math.max(0, number.length - 5)) + number.slice(-2);
}
