/**
 * paraph's public library API: what a backend imports without the HTTP service.
 * Every function takes bytes and values and returns bytes and values.
 */
export {
  ParaphError,
  ValidationError,
  PdfParseError,
  PlacementError,
  SigningError,
  TimestampError,
  isInputError,
  type ErrorOrigin,
} from './errors.js';
