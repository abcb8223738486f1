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

const WIDGET = {
  type: 'object',
  description: 'Where a field is drawn: reader coordinates in points, top-left origin, 1-based page.',
  properties: { PageNumber: { type: 'integer' }, Left: { type: 'number' }, Top: { type: 'number' }, Width: { type: 'number' }, Height: { type: 'number' } },
  required: ['PageNumber', 'Left', 'Top', 'Width', 'Height'],
  additionalProperties: false,
} as const;

/** A field the signer fills or signs in one document (signer-fields.ts `SignerField`). */
const SESSION_FIELD = {
  type: 'object',
  description: 'A field of this signer. `Key` is what the sign body and the Context use for it.',
  properties: {
    Name: { type: 'string', description: 'Fully qualified name in the PDF (`<formset>.<key>`; a radio group: its group name)' },
    Key: { type: 'string', description: 'The key in the sign body `Fields.<fileId>` and in the Context: the field key, `<formset>.<key>` where ambiguous' },
    Type: { type: 'string', enum: ['Signature', 'Seal', 'Check', 'Radio', 'SingleLine', 'Date', 'Number'] },
    Value: { type: 'string', description: 'Check and Radio: the export value; text fields: the pre-filled value' },
    Checked: { type: 'boolean', description: 'Check: pre-checked' },
    Options: {
      type: 'array',
      description: 'Radio: the buttons; send the chosen one’s `Value`',
      items: {
        type: 'object',
        properties: {
          Value: { type: 'string' },
          Key: { type: 'string' },
          Label: { type: 'string', description: 'The button’s FileMetaData Label in the signer’s language' },
          Tooltip: { type: 'string', description: 'The button’s FileMetaData Tooltip in the signer’s language' },
          Widgets: { type: 'array', items: WIDGET },
        },
        required: ['Value', 'Key', 'Widgets'],
        additionalProperties: false,
      },
    },
    Label: { type: 'string', description: 'The FileMetaData Label in the signer’s language (docs/design/fields.md#labels-and-tooltips); show it instead of `Key`' },
    Tooltip: { type: 'string', description: 'The FileMetaData Tooltip in the signer’s language' },
    Required: { type: 'boolean', description: 'Must hold a value when signing' },
    Widgets: { type: 'array', items: WIDGET },
  },
  required: ['Name', 'Key', 'Type', 'Required', 'Widgets'],
  additionalProperties: false,
} as const;

/** The signer's session (GET /:token, session-view.ts `SignerSessionView`): everything the signing page reads. */
const SignerSessionSchema = {
  type: 'object',
  properties: {
    TransactionId: { type: 'string' },
    Reference: { type: 'string', description: 'The transaction’s Reference, when it has one' },
    TransactionStatus: { $ref: '#/components/schemas/Status' },
    Language: { $ref: '#/components/schemas/Language' },
    State: {
      type: 'string',
      enum: ['not-started', 'waiting', 'authenticate', 'verify', 'sign', 'signed', 'rejected', 'ended', 'processing'],
      description: 'Where the journey stands; `ended` (200) for an ended transaction, so the page can say why',
    },
    Signer: {
      type: 'object',
      properties: {
        Id: { type: 'string' },
        Email: { type: 'string' },
        Name: { type: 'string', description: 'The name to show (the typed scribble name, else ScribbleName)' },
        IntroText: { type: 'string' },
        SignedDateTime: { type: 'string', format: 'date-time' },
        RejectDateTime: { type: 'string', format: 'date-time' },
      },
      required: ['Id', 'Email'],
      additionalProperties: false,
    },
    WaitingFor: {
      type: 'array',
      description: 'The signers who sign first (State waiting); by name when the transaction gives one, never by e-mail',
      items: { type: 'object', properties: { Id: { type: 'string' }, Name: { type: 'string' } }, required: ['Id'], additionalProperties: false },
    },
    Sender: {
      type: 'object',
      description:
        'Who asks for the signature: the organisation (the account’s Branding.DisplayName, else PARAPH_ORGANIZATION), the sender (PARAPH_SENDER_NAME) and their address (the account’s NotificationEmail); Color and ColorDark are the account’s Branding.Color as the page’s accent, darkened where white text on it would fall below 4.5:1; Logo is the path (under the service’s own URL) of the account’s logo',
      properties: {
        Organization: { type: 'string' },
        Name: { type: 'string' },
        Email: { type: 'string' },
        Color: { type: 'string', pattern: '^#[0-9a-f]{6}$' },
        ColorDark: { type: 'string', pattern: '^#[0-9a-f]{6}$' },
        Logo: { type: 'string', pattern: '^/sign/logo/[^/]+/[0-9a-f]{64}\\.(png|jpg)$' },
      },
      required: ['Organization'],
      additionalProperties: false,
    },
    Documents: {
      type: 'array',
      description: 'The documents to read and sign (empty before authentication, after signing or rejecting, and when ended)',
      items: {
        type: 'object',
        properties: {
          FileId: { type: 'string' },
          DisplayName: { type: 'string' },
          Description: { type: 'string' },
          Pages: { type: 'integer' },
          Fields: { type: 'array', items: SESSION_FIELD },
        },
        required: ['FileId', 'DisplayName', 'Pages', 'Fields'],
        additionalProperties: false,
      },
    },
    Verifications: {
      type: 'array',
      description: 'The steps: authentications first, then verifications, in order',
      items: {
        type: 'object',
        properties: {
          Index: { type: 'integer' },
          Type: { type: 'string' },
          Phase: { type: 'string', enum: ['authentication', 'verification'] },
          Done: { type: 'boolean' },
          SentTo: { type: 'string', description: 'PhoneNumber: the number, all but the last two digits hidden; Email: the address' },
          CodeSent: { type: 'boolean', description: 'A code is outstanding' },
          RequireHandsignature: { type: 'boolean', description: 'Scribble: a drawn signature is required' },
          ScribbleNameFixed: { type: 'boolean', description: 'Scribble: the name cannot be changed' },
        },
        required: ['Index', 'Type', 'Phase', 'Done'],
        additionalProperties: false,
      },
    },
    ReturnUrl: { type: 'string', description: 'After signing or rejecting: where to go, with sh_transactionid, sh_signerid, sh_signerstatus' },
    ScribbleName: { type: 'string', description: 'The name to prefill' },
    SecureDownload: {
      type: 'object',
      description: 'After signing with a SecureDownload authentication: downloads need a fresh code of `Type`',
      properties: { Type: { type: 'string' }, CodeSent: { type: 'boolean' }, DownloadUntil: { type: 'string', format: 'date-time' } },
      required: ['Type', 'CodeSent'],
      additionalProperties: false,
    },
  },
  required: ['TransactionId', 'TransactionStatus', 'Language', 'State', 'Signer', 'WaitingFor', 'Documents', 'Verifications'],
  additionalProperties: false,
} as const;

/** POST /:token/verification: the step's outcome and what is left (perform-verification.ts `VerificationOutcome`). */
const VerificationOutcomeSchema = {
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
const SignOutcomeSchema = {
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
const RejectOutcomeSchema = {
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
