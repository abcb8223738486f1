/**
 * JSON shapes of the signer API behind SignUrl (docs/design/signer-api.md) as TypeBox schemas: the token parameter,
 * the verification, sign and reject bodies. Shape only; the rules (order of verifications, codes, field formats)
 * are the signer use cases'.
 */
import { Type } from 'typebox';
import type { JsonSchema } from './response.schema.js';

/** `/:token` (and `/:token/file/:fileId`). */
export const SignerParamsSchema = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
/** `/:token/file/:fileId`. */
export const SignerFileParamsSchema = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), fileId: Type.String({ minLength: 1, maxLength: 2048 }) });

/** POST /:token/verification. */
export const VerificationBodySchema = Type.Object(
  {
    Type: Type.String({ minLength: 1, maxLength: 64 }),
    Image: Type.Optional(Type.String({ maxLength: 1_000_000 })),
    Name: Type.Optional(Type.String({ maxLength: 255 })),
    Code: Type.Optional(Type.String({ maxLength: 16 })),
  },
  { additionalProperties: false },
);

/**
 * POST /:token/sign: `{ "Fields": { "<fileId>": { "<field>": value } } }`, the field key plain or `<formset>.<key>`;
 * a value is a string, a number (Number fields, radio export values), true/false (check boxes) or null (not sent).
 */
export const SignBodySchema = Type.Object(
  {
    Fields: Type.Optional(
      Type.Union([
        Type.Null(),
        Type.Record(
          Type.String(),
          Type.Union([Type.Null(), Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()]))]),
        ),
      ]),
    ),
  },
  { additionalProperties: false },
);

/** POST /:token/reject. */
export const RejectBodySchema = Type.Object({ Reason: Type.String({ maxLength: 1000 }) }, { additionalProperties: false });

/** The signer's session (GET /:token): main properties; the signing page reads more. */
export const SignerSessionSchema = {
  type: 'object',
  properties: {
    TransactionId: { type: 'string' },
    Reference: { type: 'string' },
    TransactionStatus: { type: 'integer' },
    Language: { type: 'string' },
    State: { type: 'string', enum: ['not-started', 'waiting', 'authenticate', 'verify', 'sign', 'signed', 'rejected', 'ended', 'processing'] },
    Signer: { type: 'object', properties: { Id: { type: 'string' }, Email: { type: 'string' } }, required: ['Id', 'Email'] },
    Documents: { type: 'array', items: { type: 'object', properties: { FileId: { type: 'string' }, DisplayName: { type: 'string' }, Pages: { type: 'integer' } }, required: ['FileId', 'DisplayName', 'Pages'] } },
    Verifications: { type: 'array', items: { type: 'object', properties: { Index: { type: 'integer' }, Type: { type: 'string' }, Done: { type: 'boolean' } }, required: ['Index', 'Type', 'Done'] } },
  },
  required: ['TransactionId', 'TransactionStatus', 'Language', 'State', 'Signer', 'Documents', 'Verifications'],
} as const;

/** POST /:token/verification: the step's outcome and what is left (perform-verification.ts `VerificationOutcome`). */
export const VerificationOutcomeSchema = {
  type: 'object',
  properties: {
    Type: { type: 'string', description: 'The verification type of the step' },
    Done: { type: 'boolean', description: 'Whether the step is passed (false after a code was sent)' },
    CodeSent: { type: 'boolean', description: 'A one-time code went to the step’s phone number or address' },
    RedirectUrl: { type: 'string', format: 'uri', description: 'External identity method: send the signer here; they come back to the signing page' },
    Remaining: { type: 'array', items: { type: 'string' }, description: 'Verification types still to do' },
    DownloadUntil: { type: 'string', format: 'date-time', description: 'SecureDownload after signing: the downloads are open until then' },
  },
  required: ['Type', 'Done', 'Remaining'],
  additionalProperties: false,
} as const;

/** POST /:token/sign (sign-as-signer.ts `SignResult`). */
export const SignOutcomeSchema = {
  type: 'object',
  properties: {
    SignerStatus: { type: 'string', const: 'signed' },
    SignedDateTime: { type: 'string', format: 'date-time' },
    TransactionStatus: { $ref: '#/components/schemas/Status' },
    ReturnUrl: { type: 'string', description: 'Where the signing page sends the signer next (the signer’s ReturnUrl)' },
  },
  required: ['SignerStatus', 'SignedDateTime', 'TransactionStatus'],
  additionalProperties: false,
} as const;

/** POST /:token/reject (reject-as-signer.ts `RejectResult`). */
export const RejectOutcomeSchema = {
  type: 'object',
  properties: {
    SignerStatus: { type: 'string', const: 'rejected' },
    TransactionStatus: { $ref: '#/components/schemas/Status' },
    ReturnUrl: { type: 'string', description: 'Where the signing page sends the signer next (the signer’s ReturnUrl)' },
  },
  required: ['SignerStatus', 'TransactionStatus'],
  additionalProperties: false,
} as const;

/** The signer API's named components in the OpenAPI document. */
export const SIGNER_COMPONENTS: Readonly<Record<string, JsonSchema>> = {
  SignerSession: SignerSessionSchema,
  VerificationOutcome: VerificationOutcomeSchema,
  SignOutcome: SignOutcomeSchema,
  RejectOutcome: RejectOutcomeSchema,
};
