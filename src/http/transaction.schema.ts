/**
 * The HTTP-only JSON shapes of the transaction endpoints (docs/design/api.md#endpoints) as TypeBox schemas: path
 * parameters, the DELETE body, FileMetaData for the document, ErrorModel. The transaction itself is declared once in
 * the domain (transaction-schema.ts). The same schemas feed request validation and the OpenAPI document.
 */
import { Type } from 'typebox';
import { FIELD_TYPES } from '../pdf/file-metadata.js';
import { stringEnum } from '../domain/transaction-schema.js';

const Str = (options: Record<string, unknown> = {}) => Type.String(options);
const opt = Type.Optional;

/** DELETE /api/transaction/{id} optional body (docs/design/api.md#endpoints). */
export const DeleteTransactionSchema = Type.Object(
  {
    SendNotifications: opt(Type.Boolean()),
    Reason: opt(Str({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

/** The `{transactionId}` path parameter. */
export const TransactionParamsSchema = Type.Object({ transactionId: Str({ minLength: 1, maxLength: 64 }) });

/** The `{transactionId}/file/{fileId}` path parameters. */
export const FileParamsSchema = Type.Object({
  transactionId: Str({ minLength: 1, maxLength: 64 }),
  fileId: Str({ description: 'Percent-encoded; at most 255 characters, no control characters nor : * ? \\ / " < > |' }),
});

const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

/** Where a field goes (docs/design/locations.md): a search text and its occurrence, or coordinates in points. */
export const LocationSchema = Type.Object(
  {
    Search: opt(Type.Union([Str(), Type.Null()])),
    Occurence: opt(NullableInteger),
    Occurrence: opt(NullableInteger),
    Top: opt(NullableInteger),
    Right: opt(NullableInteger),
    Bottom: opt(NullableInteger),
    Left: opt(NullableInteger),
    Width: opt(NullableInteger),
    Height: opt(NullableInteger),
    PageNumber: opt(NullableInteger),
  },
  { description: 'Location of a field: Search (with Occurence) or coordinates; PageNumber 1-based' },
);

/** A field's Label or Tooltip: one text, or one per language tag (docs/design/fields.md#labels-and-tooltips). */
const LocalisedTextSchema = (maxLength: number, what: string) =>
  Type.Union([Str({ minLength: 1, maxLength }), Type.Record(Type.String(), Str({ minLength: 1, maxLength })), Type.Null()], {
    description: `${what}: one text, or an object of language tag to text ({"nl": "…", "en": "…"}); the signer sees the text of their language`,
  });

/**
 * FileMetaData (docs/design/files.md#filemetadata, docs/design/locations.md) for the OpenAPI document only: the upload
 * keeps its raw bytes (the Digest covers them) and the domain's parser validates them (file-metadata.ts); null means
 * absent there too.
 */
export const FileMetaDataSchema = Type.Object(
  {
    DisplayOrder: opt(NullableInteger),
    DisplayName: opt(Type.Union([Str({ maxLength: 255 }), Type.Null()])),
    Description: opt(Type.Union([Str(), Type.Null()])),
    SetParaph: opt(Type.Union([Type.Boolean(), Type.Null()])),
    Signers: opt(Type.Record(Type.String(), Type.Object({ FormSets: Type.Array(Str()) }))),
    FormSets: opt(
      Type.Record(
        Type.String(),
        Type.Record(
          Type.String(),
          Type.Object({
            Type: stringEnum(FIELD_TYPES),
            Value: opt(Type.Union([Str(), Type.Number(), Type.Boolean()])),
            Location: LocationSchema,
            Label: opt(LocalisedTextSchema(255, 'What the signer is asked for, shown with the field')),
            Tooltip: opt(LocalisedTextSchema(1000, "A hint shown with the field and as the PDF field's tooltip")),
          }),
        ),
      ),
    ),
  },
  { description: 'FileMetaData: the fields to add and where (docs/locations.md)' },
);

/** ErrorModel (docs/design/api.md#errors). */
export const ErrorModelSchema = Type.Object({ Message: Str() });
