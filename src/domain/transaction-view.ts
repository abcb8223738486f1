/**
 * The response shape of a transaction (service-spec §2.2–§2.5, §4.2, §9; decisions.md §2, §3 and §8): version 1
 * carries every documented property, `null` when absent; version 2 omits absent properties. Defaults are stripped
 * from signers in the sense the spec allows: optional properties the client did not send stay absent (null in v1)
 * rather than being filled with their default values. `Files` carries absolute links and signers their `SignUrl`,
 * both built from a handed-in public base URL. A cleaned transaction has a partial view (decisions.md §8).
 * Internal fields (AccountId, tokens, blob references, version) never appear.
 */
import type { Activity, JsonValue, Receiver, Signer, Transaction } from './transaction.js';

/** Response version (decisions.md §2: `application/vnd.signhost.v1+json` / `v2+json`; plain JSON is 1). */
export type ResponseVersion = 1 | 2;

/** How to render. */
export interface ViewOptions {
  version: ResponseVersion;
  /** Public base URL, e.g. `https://sign.example.com` (a trailing slash is ignored). */
  baseUrl: string;
}

/** A JSON object as sent in a response. */
export type JsonResponse = { [key: string]: JsonValue };

/** Documented properties of a transaction response, in response order. */
export const TRANSACTION_KEYS = [
  'Id', 'Status', 'Files', 'Seal', 'Signers', 'Receivers', 'Reference', 'PostbackUrl', 'SignRequestMode', 'DaysToExpire',
  'Language', 'SendEmailNotifications', 'CreatedDateTime', 'ModifiedDateTime', 'CanceledDateTime', 'CancelationReason',
  'Context',
] as const;

/** Documented properties of a signer response (spec §2.3 plus decisions.md §2 extras). */
export const SIGNER_KEYS = [
  'Id', 'Email', 'Mobile', 'Iban', 'BSN', 'Verifications', 'Authentications', 'RequireScribble', 'RequireScribbleName',
  'RequireEmailVerification', 'RequireSmsVerification', 'RequireDigidVerification', 'RequireSurfnetVerification',
  'RequireIdealVerification', 'SendSignRequest', 'SendSignConfirmation', 'SignRequestMessage', 'SignRequestSubject',
  'DaysToRemind', 'Language', 'ScribbleName', 'ScribbleNameFixed', 'Reference', 'ReturnUrl', 'IntroText',
  'AllowDelegation', 'Expires', 'Activities', 'RejectReason', 'SignUrl', 'SignedDateTime', 'RejectDateTime',
  'CreatedDateTime', 'ModifiedDateTime', 'Context',
] as const;

/** Documented properties of a receiver response (spec §2.4 plus `Subject`). */
export const RECEIVER_KEYS = [
  'Id', 'Name', 'Email', 'Language', 'Message', 'Subject', 'Reference', 'Activities', 'CreatedDateTime', 'ModifiedDateTime',
  'Context',
] as const;

/** Documented properties of an activity. */
export const ACTIVITY_KEYS = ['Id', 'Code', 'Activity', 'Info', 'CreatedDateTime'] as const;

/** Properties of the partial view of a cleaned transaction (decisions.md §8). */
export const PARTIAL_TRANSACTION_KEYS = [
  'Id', 'Status', 'Reference', 'CreatedDateTime', 'ModifiedDateTime', 'CanceledDateTime', 'CancelationReason', 'Signers',
] as const;

/** `<base>/sign/<token>` (decisions.md §6). */
export function buildSignUrl(baseUrl: string, token: string): string {
  return `${trimBase(baseUrl)}/sign/${encodeURIComponent(token)}`;
}

/** The absolute URL of GET file (spec §4.5): ids percent-encoded once. */
export function buildFileUrl(baseUrl: string, transactionId: string, fileId: string): string {
  return `${trimBase(baseUrl)}/api/transaction/${encodeURIComponent(transactionId)}/file/${encodeURIComponent(fileId)}`;
}

/**
 * The transaction as GET (and create, DELETE, postbacks) return it. For a cleaned transaction use
 * {@link toPartialTransactionView}.
 *
 * @example toTransactionView(tx, { version: 2, baseUrl: 'https://sign.example.com' })
 */
export function toTransactionView(tx: Transaction, options: ViewOptions): JsonResponse {
  const files: JsonResponse = {};
  for (const file of tx.Files) {
    if (file.Original === undefined && file.Current === undefined) continue;
    // defineProperty: a fileId such as `__proto__` must become an ordinary key.
    Object.defineProperty(files, file.FileId, {
      value: {
        Links: [{ Rel: 'file', Type: 'application/pdf', Link: buildFileUrl(options.baseUrl, tx.Id, file.FileId) }],
        DisplayName: file.DisplayName ?? file.Metadata?.DisplayName ?? file.FileId,
      },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const values: Record<string, JsonValue | undefined> = {
    Id: tx.Id,
    Status: tx.Status,
    Files: files,
    Seal: tx.Seal,
    Signers: tx.Signers.map((signer) => toSignerView(signer, options)),
    Receivers: tx.Receivers.map((receiver) => toReceiverView(receiver, options)),
    Reference: tx.Reference,
    PostbackUrl: tx.PostbackUrl,
    SignRequestMode: tx.SignRequestMode,
    DaysToExpire: tx.DaysToExpire,
    Language: tx.Language,
    SendEmailNotifications: tx.SendEmailNotifications,
    CreatedDateTime: tx.CreatedDateTime,
    ModifiedDateTime: tx.ModifiedDateTime,
    CanceledDateTime: tx.CanceledDateTime,
    CancelationReason: tx.CancelationReason,
    Context: tx.Context,
  };
  return shape(TRANSACTION_KEYS, values, options.version);
}

/** A signer as responses show it; `SignUrl` while the signer has a token. */
export function toSignerView(signer: Signer, options: ViewOptions): JsonResponse {
  const values: Record<string, JsonValue | undefined> = {};
  for (const key of SIGNER_KEYS) {
    if (key === 'SignUrl' || key === 'Activities') continue;
    values[key] = (signer as unknown as Record<string, JsonValue | undefined>)[key];
  }
  values.Activities = signer.Activities.map((activity) => toActivityView(activity, options.version));
  values.SignUrl = signer.SignToken === undefined ? undefined : buildSignUrl(options.baseUrl, signer.SignToken);
  return shape(SIGNER_KEYS, values, options.version);
}

/** A receiver as responses show it. */
export function toReceiverView(receiver: Receiver, options: ViewOptions): JsonResponse {
  const values: Record<string, JsonValue | undefined> = {};
  for (const key of RECEIVER_KEYS) {
    if (key === 'Activities') continue;
    values[key] = (receiver as unknown as Record<string, JsonValue | undefined>)[key];
  }
  values.Activities = receiver.Activities.map((activity) => toActivityView(activity, options.version));
  return shape(RECEIVER_KEYS, values, options.version);
}

function toActivityView(activity: Activity, version: ResponseVersion): JsonResponse {
  return shape(ACTIVITY_KEYS, { ...activity }, version);
}

/**
 * The partial data a cleaned transaction answers with (410, decisions.md §8): Id, Status, Reference, the dates and
 * the signer ids; `CanceledDateTime` and `CancelationReason` when it was cancelled.
 */
export function toPartialTransactionView(tx: Transaction, options: Pick<ViewOptions, 'version'>): JsonResponse {
  const values: Record<string, JsonValue | undefined> = {
    Id: tx.Id,
    Status: tx.Status,
    Reference: tx.Reference,
    CreatedDateTime: tx.CreatedDateTime,
    ModifiedDateTime: tx.ModifiedDateTime,
    CanceledDateTime: tx.CanceledDateTime,
    CancelationReason: tx.CancelationReason,
    Signers: tx.Signers.map((signer) => ({ Id: signer.Id })),
  };
  return shape(PARTIAL_TRANSACTION_KEYS, values, options.version);
}

/** Version 1: every key, null when absent. Version 2: absent keys omitted. Values themselves are not touched. */
function shape(keys: readonly string[], values: Record<string, JsonValue | undefined>, version: ResponseVersion): JsonResponse {
  const out: JsonResponse = {};
  for (const key of keys) {
    const value = values[key];
    if (value !== undefined) out[key] = value;
    else if (version === 1) out[key] = null;
  }
  return out;
}

function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}
