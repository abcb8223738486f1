/**
 * paraph's errors, shared by every entry point: one {@link ParaphError} class with a stable `code` per failure
 * (ERROR_CODES gives the HTTP status, meaning and fix of each; docs/errors.md lists them).
 */
export {
  ParaphError,
  ValidationError,
  PdfParseError,
  PlacementError,
  SigningError,
  TimestampError,
  isInputError,
  isErrorCode,
  ERROR_CODES,
  type ErrorCode,
  type ErrorCodeInfo,
  type ErrorOrigin,
} from '../errors.js';
export { NativeModuleError } from '../load-native-module.js';
