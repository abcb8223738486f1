/**
 * `paraph/pdf`: placing fields. FileMetaData in, a PDF with AcroForm fields out (in one incremental update), or the
 * placements resolved first as data and written later; the text index the placement searches. Loads pdf-lib and the
 * text engines, nothing of the signing or service code.
 *
 * @example
 * import { parseFileMetaData, placeFieldsFromMetadata } from 'paraph/pdf';
 */
export * from './errors.js';

export {
  parseFileMetaData,
  validateFileMetaData,
  FIELD_TYPES,
  type FileMetaData,
  type FieldSpec,
  type FieldType,
  type FieldValueInput,
  type LocalisedText,
  type Location,
  type SignerFormSets,
  type ParseFileMetaDataOptions,
  type ValidateFileMetaDataOptions,
} from '../pdf/file-metadata.js';
export {
  placeFieldsFromMetadata,
  type PlaceFieldsFromMetadataOptions,
  type PlaceFieldsFromMetadataResult,
} from '../pdf/place-fields-from-metadata.js';
export { resolvePlacements, type ResolvePlacementsOptions, type ResolvedPlacements } from '../pdf/resolve-placements.js';
export { resolveLocations, type FieldPlacement, type LocateInput, type LocateSource, type LocateMatch } from '../pdf/resolve-locations.js';
export { placeFields, type PlaceFieldsOptions, type PlaceFieldsResult, type PlacedField, type PlacedWidget } from '../pdf/place-fields.js';
export { indexText, findText, type TextIndex, type PageText, type TextMatch, type IndexTextOptions, type FindTextOptions } from '../pdf/text-index/text-index.js';
export type { PageGeometry, PageRotation, ReaderRect, UserRect } from '../pdf/page-geometry.js';
export type { DocumentFacts } from '../pdf/document-facts.js';
// Public: bytes in (a pdf-lib document from the caller's own copy of pdf-lib is not one paraph's code can read).
export { readPdfFormFields as readFormFields, type ExistingField, type ExistingWidget } from '../pdf/form-fields.js';
