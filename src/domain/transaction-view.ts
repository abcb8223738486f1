/**
 * The response shape of a transaction (docs/design/api.md#response-values): version 1
 * carries every documented property, `null` when absent; version 2 omits absent properties. Neither ever has `null`
 * where the official .NET models declare a non-nullable type: booleans, numbers and lists get the defaults Signhost
 * returns (`AllowDelegation` false, `ScribbleNameFixed` and `ScribbleName` from the Scribble verification,
 * `SendSignConfirmation` = `SendSignRequest`, the `Require*` flags from the verifications, `Authentications` `[]`,
 * signer `Language` = the transaction's). Activity `Info` and `CancelationReason` are omitted when there is none,
 * in both versions. `Files` carries absolute links and signers their `SignUrl`, `ShowUrl` and `ReceiptUrl`, built
 * from a handed-in public base URL. A cleaned transaction has a partial view (docs/design/transactions.md#cleaning).
 * Internal fields (AccountId, tokens, blob references, version) never appear.
 */
import type { Activity, JsonValue, Receiver, Signer, Transaction } from './transaction.js';

/** Response version (`application/vnd.signhost.v1+json` / `v2+json`, plain JSON is 1, docs/design/api.md#versions). */
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

/** Documented properties of a signer response (plus the accepted extras, docs/design/api.md#response-values). */
export const SIGNER_KEYS = [
  'Id', 'Email', 'Mobile', 'Iban', 'BSN', 'Verifications', 'Authentications', 'RequireScribble', 'RequireScribbleName',
  'RequireEmailVerification', 'RequireSmsVerification', 'RequireDigidVerification', 'RequireSurfnetVerification',
  'RequireIdealVerification', 'SendSignRequest', 'SendSignConfirmation', 'SignRequestMessage', 'SignRequestSubject',
  'DaysToRemind', 'Language', 'ScribbleName', 'ScribbleNameFixed', 'Reference', 'ReturnUrl', 'IntroText',
  'AllowDelegation', 'Expires', 'Activities', 'RejectReason', 'SignUrl', 'ShowUrl', 'ReceiptUrl', 'SignedDateTime',
  'RejectDateTime', 'CreatedDateTime', 'ModifiedDateTime', 'Context',
] as const;

/** Documented properties of a receiver response (plus `Subject`, docs/design/api.md#response-values). */
export const RECEIVER_KEYS = [
  'Id', 'Name', 'Email', 'Language', 'Message', 'Subject', 'Reference', 'Activities', 'CreatedDateTime', 'ModifiedDateTime',
  'Context',
] as const;

/** Documented properties of an activity. */
export const ACTIVITY_KEYS = ['Id', 'Code', 'Activity', 'Info', 'CreatedDateTime'] as const;

/** Properties of the partial view of a cleaned transaction (docs/design/transactions.md#cleaning). */
export const PARTIAL_TRANSACTION_KEYS = [
  'Id', 'Status', 'Reference', 'CreatedDateTime', 'ModifiedDateTime', 'CanceledDateTime', 'CancelationReason', 'Signers',
] as const;

/**
 * Keys left out of both versions when they have no value (docs/design/api.md#tolerant-reader), instead of `null` in
 * version 1.
 */
const OMITTED_WHEN_ABSENT: ReadonlySet<string> = new Set(['Info', 'CancelationReason']);

/** `<base>/sign/<token>` (docs/design/signer-api.md#token). */
export function buildSignUrl(baseUrl: string, token: string): string {
  return `${trimBase(baseUrl)}/sign/${encodeURIComponent(token)}`;
}

/**
 * `<base>/show/<token>`: the signer's read-only view of the documents
 * (docs/design/signer-api.md#show-and-receipt-urls).
 */
function buildShowUrl(baseUrl: string, token: string): string {
  return `${trimBase(baseUrl)}/show/${encodeURIComponent(token)}`;
}

/** `<base>/receipt/<token>`: the receipt as the signer gets it (docs/design/signer-api.md#show-and-receipt-urls). */
function buildReceiptUrl(baseUrl: string, token: string): string {
  return `${trimBase(baseUrl)}/receipt/${encodeURIComponent(token)}`;
}

/** The absolute URL of GET file (docs/design/files.md#downloads): ids percent-encoded once. */
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
    Signers: tx.Signers.map((signer) => toSignerView(signer, options, tx.Language)),
    Receivers: tx.Receivers.map((receiver) => toReceiverView(receiver, options)),
    Reference: tx.Reference,
    PostbackUrl: tx.PostbackUrl,
    // Transactions stored before 0 came to mean 2 still hold 0 (responses show only 1 or 2,
    // docs/design/api.md#sign-requests).
    SignRequestMode: tx.SignRequestMode === 1 ? 1 : 2,
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

/** Which `Require*` flag each verification type sets when the client did not send the flag. */
const REQUIRE_FLAGS: Readonly<Record<string, string>> = {
  RequireScribble: 'Scribble',
  RequireEmailVerification: 'Email',
  RequireSmsVerification: 'PhoneNumber',
  RequireDigidVerification: 'DigiD',
  RequireSurfnetVerification: 'SURFnet',
  RequireIdealVerification: 'iDeal',
};

/**
 * A signer as responses show it, with Signhost's defaults (docs/design/api.md#response-values) for what the client did
 * not send; `SignUrl`, `ShowUrl` and `ReceiptUrl` while the signer has a token. `transactionLanguage` is the signer's
 * default language.
 */
function toSignerView(signer: Signer, options: ViewOptions, transactionLanguage?: string): JsonResponse {
  const values: Record<string, JsonValue | undefined> = {};
  const sent = signer as unknown as Record<string, JsonValue | undefined>;
  for (const key of SIGNER_KEYS) values[key] = sent[key];
  const scribble = signer.Verifications.find((v) => v.Type === 'Scribble');
  const types = new Set(signer.Verifications.map((v) => v.Type));
  for (const [flag, type] of Object.entries(REQUIRE_FLAGS)) values[flag] = sent[flag] ?? types.has(type as Signer['Verifications'][number]['Type']);
  values.RequireScribbleName = signer.RequireScribbleName ?? false;
  values.Authentications = signer.Authentications ?? [];
  values.SendSignConfirmation = signer.SendSignConfirmation ?? signer.SendSignRequest;
  values.AllowDelegation = signer.AllowDelegation ?? false;
  values.ScribbleName = signer.ScribbleName ?? (typeof scribble?.ScribbleName === 'string' ? scribble.ScribbleName : undefined);
  values.ScribbleNameFixed = signer.ScribbleNameFixed ?? (typeof scribble?.ScribbleNameFixed === 'boolean' ? scribble.ScribbleNameFixed : false);
  values.Language = signer.Language ?? transactionLanguage;
  values.Activities = signer.Activities.map((activity) => toActivityView(activity, options.version));
  const token = signer.SignToken;
  values.SignUrl = token === undefined ? undefined : buildSignUrl(options.baseUrl, token);
  values.ShowUrl = token === undefined ? undefined : buildShowUrl(options.baseUrl, token);
  values.ReceiptUrl = token === undefined ? undefined : buildReceiptUrl(options.baseUrl, token);
  return shape(SIGNER_KEYS, values, options.version);
}

/** A receiver as responses show it. */
function toReceiverView(receiver: Receiver, options: ViewOptions): JsonResponse {
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
 * The partial data a cleaned transaction answers with (410, docs/design/transactions.md#cleaning): Id, Status,
 * Reference, the dates and the signer ids; `CanceledDateTime` and `CancelationReason` when it was cancelled.
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
    else if (version === 1 && !OMITTED_WHEN_ABSENT.has(key)) out[key] = null;
  }
  return out;
}

function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}
