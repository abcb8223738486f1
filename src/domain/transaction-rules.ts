/**
 * Business validation of a create-transaction request and construction of the new {@link Transaction}
 * (docs/design/api.md#defaults, docs/design/signer-api.md#verification-types). The HTTP layer has already checked the
 * JSON shape (types, unknown properties, nulls) with its schema; this module checks the rules a schema cannot express
 * and collects every broken rule as a message naming the field (`Signers[0].Email: not a valid e-mail address`). Array
 * positions in messages are 0-based, as in JSON paths. Pure: ids, tokens and the clock are handed in.
 */
import { LANGUAGES } from '../i18n/languages.js';
import { ValidationError } from '../errors.js';
import { isValidBsn } from './bsn.js';
import { isBelgianE164, isE164 } from './e164.js';
import { forbiddenCharacterPath, hasForbiddenCharacters, hasForbiddenMultiLineCharacters, INVALID_CHARACTERS } from './text-rules.js';
import {
  addDays,
  formatTime,
  TransactionStatus,
  VERIFICATION_TYPES,
  type Authentication,
  type JsonObject,
  type JsonValue,
  type Receiver,
  type Signer,
  type Transaction,
  type Verification,
  type VerificationType,
} from './transaction.js';
import {
  RECEIVER_WRITABLE,
  SIGNER_WRITABLE,
  type CreateTransactionRequest,
  type ReceiverRequest,
  type SignerRequest,
  type VerificationRequest,
} from './transaction-schema.js';

export type { CreateTransactionRequest, ReceiverRequest, SignerRequest, VerificationRequest } from './transaction-schema.js';

/** What the caller hands in to build the transaction. */
export interface CreateTransactionContext {
  id: string;
  accountId: string;
  now: Date;
  /** A fresh random SignUrl token (≥ 128 bits, URL-safe) per call. */
  newSignToken: () => string;
  /** A fresh id per call (receiver ids). */
  newId: () => string;
  /** The account's default for `DaysToExpire` 0/absent; default 30. */
  defaultDaysToExpire?: number;
}

/** Error code of every rule in this module. */
const INVALID_TRANSACTION = 'INVALID_TRANSACTION';

/** Largest `Context` (JSON, UTF-8 bytes): 64 KiB. */
const MAX_CONTEXT_BYTES = 64 * 1024;
/** Largest `DaysToExpire`. */
const MAX_DAYS_TO_EXPIRE = 90;
/** Default `DaysToRemind`. */
const DEFAULT_DAYS_TO_REMIND = 7;

/** The types a signer's last verification may have (docs/design/signer-api.md#verification-types). */
const FINAL_VERIFICATION_TYPES: readonly VerificationType[] = ['Scribble', 'Consent', 'PhoneNumber', 'Email', 'CSC Qualified'];
/**
 * Types the service adds itself (after signing): a client posting back a model it received may send them, and they
 * are ignored like every other read-only property.
 */
const SERVICE_ADDED_TYPES: readonly string[] = ['IPAddress', 'SigningCertificate'];

/** The verifications a client asked for: those the service adds itself dropped. */
function requestedVerifications(signer: SignerRequest): VerificationRequest[] {
  return (signer.Verifications ?? []).filter((v) => !SERVICE_ADDED_TYPES.includes(v.Type));
}

const SIGNER_ID = /^[A-Za-z0-9_-]{1,64}$/;
// Deliberately simple: one @, no white space, a dot in the domain. Deliverability is the mailer's business.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Checks every business rule of a create request and returns the new transaction at status 5, version 0, with
 * defaults applied: DaysToExpire 0/absent → the account default (30), SignRequestMode 2, Language nl-NL, signers'
 * DaysToRemind 0/absent → 7, Verifications absent/empty → `[Scribble]`, signer ids `Signer1`, `Signer2`, … for
 * signers sent without one, a SignUrl token per signer and an id per receiver.
 *
 * @throws ValidationError (code `INVALID_TRANSACTION`) listing every broken rule.
 * @example
 * const tx = createTransaction({ Signers: [{ Email: 'a@example.com', SignRequestMessage: 'Please sign.' }] },
 *   { id, accountId, now: new Date('2026-11-21T10:00:00Z'), newSignToken, newId });
 */
export function createTransaction(request: CreateTransactionRequest, context: CreateTransactionContext): Transaction {
  const issues = validateCreateRequest(request, context.defaultDaysToExpire);
  if (issues.length > 0) throw new ValidationError(issues, INVALID_TRANSACTION);
  const at = formatTime(context.now);
  const daysToExpire = effectiveDaysToExpire(request.DaysToExpire, context.defaultDaysToExpire);
  const ids = assignSignerIds(request.Signers ?? []);
  const signers = (request.Signers ?? []).map((s, i) => buildSigner(s, ids[i] as string, context.newSignToken(), at));
  const receivers = (request.Receivers ?? []).map((r) => buildReceiver(r, context.newId(), at));
  const tx: Transaction = {
    Id: context.id,
    AccountId: context.accountId,
    Status: TransactionStatus.WaitingForDocument,
    Seal: request.Seal ?? false,
    // 0 is what the .NET clients send when the property is unset (docs/design/api.md#sign-requests).
    SignRequestMode: request.SignRequestMode === 1 ? 1 : 2,
    DaysToExpire: daysToExpire,
    SendEmailNotifications: request.SendEmailNotifications ?? true,
    Language: request.Language ?? 'nl-NL',
    CreatedDateTime: at,
    ModifiedDateTime: at,
    ExpiresDateTime: addDays(context.now, daysToExpire),
    Files: [],
    Signers: signers,
    Receivers: receivers,
    version: 0,
  };
  if (request.Reference !== undefined) tx.Reference = request.Reference;
  if (request.PostbackUrl !== undefined) tx.PostbackUrl = request.PostbackUrl;
  if (request.Context !== undefined) tx.Context = request.Context;
  return tx;
}

/** Every broken rule of a create request, as messages; empty when it is valid. */
export function validateCreateRequest(request: CreateTransactionRequest, defaultDaysToExpire = 30): string[] {
  const issues: string[] = [];
  const signers = request.Signers ?? [];
  if (request.Seal !== true && signers.length === 0) issues.push('Nor seal nor signers has been provided.');
  if (request.DaysToExpire !== undefined && !isIntegerIn(request.DaysToExpire, 0, MAX_DAYS_TO_EXPIRE)) {
    issues.push(`DaysToExpire: must be a whole number from 0 to ${MAX_DAYS_TO_EXPIRE} (0 means the default, ${defaultDaysToExpire}); got ${request.DaysToExpire}`);
  }
  if (request.SignRequestMode !== undefined && ![0, 1, 2].includes(request.SignRequestMode)) {
    issues.push(`SignRequestMode: must be 1 (all at start) or 2 (each in turn; 0 means 2); got ${request.SignRequestMode}`);
  }
  checkText(request.Reference, 'Reference', issues);
  checkLanguage(request.Language, 'Language', issues);
  checkUrl(request.PostbackUrl, 'PostbackUrl', issues);
  checkContext(request.Context, 'Context', issues);
  const daysToExpire = effectiveDaysToExpire(request.DaysToExpire, defaultDaysToExpire);
  const seen = new Set<string>();
  signers.forEach((signer, i) => {
    const path = `Signers[${i}]`;
    if (signer.Id !== undefined) {
      if (!SIGNER_ID.test(signer.Id)) {
        issues.push(`${path}.Id: must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -; got ${JSON.stringify(signer.Id)}`);
      } else if (seen.has(signer.Id)) {
        issues.push('The signer id is already used by another signer.');
      }
      seen.add(signer.Id);
    }
    checkSigner(signer, path, daysToExpire, issues);
  });
  (request.Receivers ?? []).forEach((receiver, i) => checkReceiver(receiver, `Receivers[${i}]`, issues));
  return issues;
}

function checkSigner(signer: SignerRequest, path: string, daysToExpire: number, issues: string[]): void {
  if (signer.Email === undefined) issues.push(`${path}.Email: is required`);
  else if (!EMAIL.test(signer.Email) || hasForbiddenCharacters(signer.Email)) issues.push(`${path}.Email: not a valid e-mail address`);
  if (signer.Mobile !== undefined && !isE164(signer.Mobile)) {
    issues.push(`${path}.Mobile: not an E.164 phone number (+ and country code, digits only, e.g. +31612345678)`);
  }
  if (signer.BSN !== undefined && !isValidBsn(signer.BSN)) issues.push(`${path}.BSN: not a valid BSN (fails the 11-proef)`);
  if (signer.Iban !== undefined && !isValidIban(signer.Iban)) issues.push(`${path}.Iban: not a valid IBAN`);
  // Invitations are the default, and an invitation needs its message: a signer without one must say
  // SendSignRequest false (docs/design/api.md#defaults).
  if ((signer.SendSignRequest ?? true) && (signer.SignRequestMessage ?? '').trim() === '') {
    issues.push('The sign request message is null or empty.');
  }
  if (signer.DaysToRemind !== undefined) {
    const days = signer.DaysToRemind;
    if (!Number.isInteger(days) || days < -1) {
      issues.push(`${path}.DaysToRemind: must be -1 (no reminders), 0 (the default, ${DEFAULT_DAYS_TO_REMIND}) or a positive whole number; got ${days}`);
    } else if (days !== -1 && (days === 0 ? DEFAULT_DAYS_TO_REMIND : days) >= daysToExpire) {
      issues.push('The days to remind must be lower than the days to expire.');
    }
  }
  if (signer.SignRequestSubject !== undefined && hasForbiddenCharacters(signer.SignRequestSubject)) {
    issues.push(`Signer Subject: ${INVALID_CHARACTERS}`);
  }
  checkText(signer.ScribbleName, `${path}.ScribbleName`, issues);
  checkText(signer.Reference, `${path}.Reference`, issues);
  checkText(signer.SignRequestMessage, `${path}.SignRequestMessage`, issues, true);
  checkText(signer.IntroText, `${path}.IntroText`, issues, true);
  checkLanguage(signer.Language, `${path}.Language`, issues);
  checkUrl(signer.ReturnUrl, `${path}.ReturnUrl`, issues);
  checkContext(signer.Context, `${path}.Context`, issues);
  if (signer.Expires !== undefined && !isTimestamp(signer.Expires)) {
    issues.push(`${path}.Expires: not an ISO 8601 date-time with offset (e.g. 2026-12-31T23:59:59+01:00)`);
  }
  if (signer.AllowDelegation === true && (signer.Authentications ?? []).length > 0) {
    issues.push('Signer cannot have AllowDelegation enabled when authentications are present.');
  }
  checkVerifications(signer, path, issues);
  (signer.Authentications ?? []).forEach((auth, j) => checkAuthentication(auth, `${path}.Authentications[${j}]`, issues));
}

function checkVerifications(signer: SignerRequest, path: string, issues: string[]): void {
  let known = true;
  (signer.Verifications ?? []).forEach((v, j) => {
    const vPath = `${path}.Verifications[${j}]`;
    if (!(VERIFICATION_TYPES as readonly string[]).includes(v.Type)) {
      issues.push(`${vPath}.Type: unknown verification type ${JSON.stringify(v.Type)}`);
      known = false;
      return;
    }
    if (!SERVICE_ADDED_TYPES.includes(v.Type)) checkVerificationFields(v, vPath, signer, issues);
  });
  const verifications = requestedVerifications(signer);
  if (!known || verifications.length === 0) return;
  const last = verifications[verifications.length - 1] as VerificationRequest;
  if (!(FINAL_VERIFICATION_TYPES as readonly string[]).includes(last.Type)) {
    issues.push(`${path}.Verifications: the last verification must be Scribble, Consent, PhoneNumber, Email or CSC Qualified, not ${last.Type}`);
  }
  const csc = verifications.findIndex((v) => v.Type === 'CSC Qualified');
  if (csc !== -1 && csc < verifications.length - 1) {
    issues.push(`${path}.Verifications[${csc + 1}]: nothing may follow CSC Qualified`);
  }
}

function checkVerificationFields(v: VerificationRequest, path: string, signer: SignerRequest, issues: string[]): void {
  switch (v.Type) {
    case 'PhoneNumber':
      if (v.Number === undefined) {
        if (signer.Mobile === undefined) issues.push(`${path}.Number: is required (or set the signer's Mobile)`);
      } else if (typeof v.Number !== 'string' || !isE164(v.Number)) {
        issues.push(`${path}.Number: not an E.164 phone number (+ and country code, digits only, e.g. +31612345678)`);
      }
      break;
    case 'DigiD':
      if (v.Bsn !== undefined && (typeof v.Bsn !== 'string' || !isValidBsn(v.Bsn))) {
        issues.push(`${path}.Bsn: not a valid BSN (fails the 11-proef)`);
      }
      break;
    case 'itsme Identification':
      if (v.PhoneNumber !== undefined && (typeof v.PhoneNumber !== 'string' || !isBelgianE164(v.PhoneNumber))) {
        issues.push(`${path}.PhoneNumber: must be an E.164 number with the Belgian calling code +32 (e.g. +32470123456)`);
      }
      break;
    case 'Onfido':
      if (v.WorkflowId !== undefined && (typeof v.WorkflowId !== 'string' || !UUID.test(v.WorkflowId))) {
        issues.push(`${path}.WorkflowId: not a UUID (e.g. 123e4567-e89b-12d3-a456-426614174000)`);
      }
      break;
    case 'iDeal':
      if (v.Iban !== undefined && (typeof v.Iban !== 'string' || !isValidIban(v.Iban))) issues.push(`${path}.Iban: not a valid IBAN`);
      break;
    default:
      break;
  }
  for (const [key, field] of Object.entries(v)) if (typeof field === 'string') checkText(field, `${path}.${key}`, issues);
}

function checkAuthentication(auth: VerificationRequest, path: string, issues: string[]): void {
  if (auth.Type === 'PhoneNumber') {
    if (typeof auth.Number !== 'string' || !isE164(auth.Number)) {
      issues.push(`${path}.Number: not an E.164 phone number (+ and country code, digits only, e.g. +31612345678)`);
    }
  } else if (auth.Type === 'DigiD') {
    if (auth.Bsn !== undefined && (typeof auth.Bsn !== 'string' || !isValidBsn(auth.Bsn))) {
      issues.push(`${path}.Bsn: not a valid BSN (fails the 11-proef)`);
    }
  } else {
    issues.push(`${path}.Type: unknown authentication type ${JSON.stringify(auth.Type)} (PhoneNumber or DigiD)`);
  }
}

function checkReceiver(receiver: ReceiverRequest, path: string, issues: string[]): void {
  if (receiver.Email === undefined) issues.push(`${path}.Email: is required`);
  else if (!EMAIL.test(receiver.Email) || hasForbiddenCharacters(receiver.Email)) issues.push(`${path}.Email: not a valid e-mail address`);
  if (receiver.Subject !== undefined && hasForbiddenCharacters(receiver.Subject)) issues.push(`Receiver Subject: ${INVALID_CHARACTERS}`);
  checkText(receiver.Name, `${path}.Name`, issues);
  checkText(receiver.Reference, `${path}.Reference`, issues);
  checkText(receiver.Message, `${path}.Message`, issues, true);
  checkLanguage(receiver.Language, `${path}.Language`, issues);
  checkContext(receiver.Context, `${path}.Context`, issues);
}

/** Refuses control and bidirectional formatting characters (text-rules.ts); a multi-line text may keep line breaks. */
function checkText(value: string | undefined, path: string, issues: string[], multiLine = false): void {
  if (value === undefined) return;
  if (multiLine ? hasForbiddenMultiLineCharacters(value) : hasForbiddenCharacters(value)) issues.push(`${path}: ${INVALID_CHARACTERS}`);
}

function checkLanguage(value: string | undefined, path: string, issues: string[]): void {
  if (value !== undefined && !(LANGUAGES as readonly string[]).includes(value)) {
    issues.push(`${path}: must be one of ${LANGUAGES.join(', ')}; got ${JSON.stringify(value)}`);
  }
}

function checkUrl(value: string | undefined, path: string, issues: string[]): void {
  if (value === undefined) return;
  let ok = false;
  try {
    const url = new URL(value);
    // The URL parser silently drops tabs and line breaks: the text as sent must be clean too.
    ok = (url.protocol === 'http:' || url.protocol === 'https:') && !hasForbiddenCharacters(value);
  } catch {
    ok = false;
  }
  if (!ok) issues.push(`${path}: not an absolute http(s) URL; got ${JSON.stringify(value)}`);
}

function checkContext(value: JsonObject | undefined, path: string, issues: string[]): void {
  if (value === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (bytes > MAX_CONTEXT_BYTES) issues.push(`${path}: at most 64 KiB of JSON; got ${bytes} bytes`);
  const forbidden = forbiddenCharacterPath(value, path);
  if (forbidden !== undefined) issues.push(`${forbidden}: ${INVALID_CHARACTERS}`);
}

function isIntegerIn(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}

function isTimestamp(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
}

/** ISO 13616 IBAN check: country code, check digits, up to 30 alphanumerics, mod 97 = 1. */
export function isValidIban(value: string): boolean {
  const iban = value.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const digits = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

function effectiveDaysToExpire(value: number | undefined, defaultDays = 30): number {
  return value === undefined || value === 0 ? defaultDays : value;
}

/** Client ids stay; the others get `Signer<position>`, or the next free number when a client took that name. */
function assignSignerIds(signers: readonly SignerRequest[]): string[] {
  const taken = new Set(signers.map((s) => s.Id).filter((id): id is string => id !== undefined));
  let next = 1;
  return signers.map((signer, i) => {
    if (signer.Id !== undefined) return signer.Id;
    next = Math.max(next, i + 1);
    while (taken.has(`Signer${next}`)) next++;
    const id = `Signer${next}`;
    taken.add(id);
    next++;
    return id;
  });
}

/** The signer's fields stored as sent; buildSigner sets the others (defaults, read-only fields dropped). */
const SIGNER_SET_BY_BUILD = new Set(['Id', 'Email', 'Verifications', 'Authentications', 'SendSignRequest', 'SendSignConfirmation', 'DaysToRemind']);
const SIGNER_COPIED = (Object.keys(SIGNER_WRITABLE) as (keyof typeof SIGNER_WRITABLE)[]).filter((key) => !SIGNER_SET_BY_BUILD.has(key));
/** The receiver's fields stored as sent, besides Email. */
const RECEIVER_COPIED = (Object.keys(RECEIVER_WRITABLE) as (keyof typeof RECEIVER_WRITABLE)[]).filter((key) => key !== 'Email');

function buildSigner(request: SignerRequest, id: string, token: string, at: string): Signer {
  const requested = requestedVerifications(request);
  const verifications = requested.length === 0 ? [{ Type: 'Scribble' }] : requested;
  // Signhost's default: a signer is invited unless the client says SendSignRequest false.
  const sendSignRequest = request.SendSignRequest ?? true;
  const signer: Signer = {
    Id: id,
    SignToken: token,
    Email: request.Email ?? '',
    Verifications: verifications.map((v) => withoutReadOnlyFields(v) as Verification),
    SendSignRequest: sendSignRequest,
    // The default is the value of SendSignRequest (docs/design/api.md#response-values).
    SendSignConfirmation: request.SendSignConfirmation ?? sendSignRequest,
    DaysToRemind: request.DaysToRemind === undefined || request.DaysToRemind === 0 ? DEFAULT_DAYS_TO_REMIND : request.DaysToRemind,
    Activities: [],
    CreatedDateTime: at,
    ModifiedDateTime: at,
  };
  const target = signer as unknown as Record<string, unknown>;
  for (const key of SIGNER_COPIED) if (request[key] !== undefined) target[key] = request[key];
  if (request.Authentications !== undefined) signer.Authentications = request.Authentications.map((a) => withoutReadOnlyFields(a) as Authentication);
  // The scribble form's name, as Signhost shows it from creation on (docs/design/api.md#errors).
  const scribble = signer.Verifications.find((v) => v.Type === 'Scribble');
  if (signer.ScribbleName === undefined && typeof scribble?.ScribbleName === 'string') signer.ScribbleName = scribble.ScribbleName;
  if (signer.ScribbleNameFixed === undefined && typeof scribble?.ScribbleNameFixed === 'boolean') signer.ScribbleNameFixed = scribble.ScribbleNameFixed;
  return signer;
}

function buildReceiver(request: ReceiverRequest, id: string, at: string): Receiver {
  const receiver: Receiver = { Id: id, Email: request.Email ?? '', Activities: [], CreatedDateTime: at, ModifiedDateTime: at };
  const target = receiver as unknown as Record<string, unknown>;
  for (const key of RECEIVER_COPIED) if (request[key] !== undefined) target[key] = request[key];
  return receiver;
}

/**
 * Fields of a verification or authentication that its identity provider (or the service) fills in: a client may send
 * them back (the .NET v4 client posts its whole model) but they are ignored (docs/design/api.md#tolerant-reader).
 */
const READ_ONLY_VERIFICATION_FIELDS: Readonly<Record<string, readonly string[]>> = {
  SigningCertificate: ['Issuer', 'Subject', 'Thumbprint'],
  DigiD: ['Betrouwbaarheidsniveau'],
  eHerkenning: ['Uid'],
  'eIDAS Login': ['Uid', 'Level', 'FirstName', 'LastName', 'DateOfBirth', 'Attributes'],
  iDeal: ['AccountHolderName', 'AccountHolderCity'],
  iDIN: ['AccountHolderName', 'AccountHolderAddress1', 'AccountHolderAddress2', 'AccountHolderDateOfBirth', 'Attributes'],
  'itsme Identification': ['Attributes'],
  'itsme sign': ['Issuer', 'Subject', 'Thumbprint'],
  SURFnet: ['Uid', 'Attributes'],
  'CSC Qualified': ['Provider', 'Issuer', 'Subject', 'Thumbprint', 'AdditionalUserData'],
  Onfido: ['WorkflowRunId', 'Version', 'Attributes'],
};

function withoutReadOnlyFields(value: VerificationRequest): Record<string, JsonValue> {
  const readOnly = READ_ONLY_VERIFICATION_FIELDS[value.Type] ?? [];
  const copy: Record<string, JsonValue> = {};
  for (const [key, field] of Object.entries(value)) if (field !== undefined && !readOnly.includes(key)) copy[key] = field;
  return copy;
}
