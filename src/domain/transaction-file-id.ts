/**
 * The rule for a fileId (docs/design/files.md#file-ids): 1 to 255 characters, no control
 * characters, none of `: * ? \ / " < > |`, not `.` or `..` (path segments a client or a proxy may resolve), and no
 * bidirectional control characters (they make a name display as another, e.g. `contract\u202Efdp.exe`). Pure.
 */

// C0, DEL, C1; the file-name characters Windows refuses.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f:*?\\/"<>|]/;
// Arabic letter mark, LRM/RLM, the embeddings and overrides, the isolates.
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Longest fileId, in characters (code points). */
const MAX_FILE_ID_LENGTH = 255;

/** True when `fileId` (already percent-decoded) may name a file of a transaction. */
export function isValidFileId(fileId: string): boolean {
  if (fileId.length === 0 || fileId === '.' || fileId === '..') return false;
  if ([...fileId].length > MAX_FILE_ID_LENGTH) return false;
  return !FORBIDDEN.test(fileId) && !BIDI_CONTROL.test(fileId);
}

/** Signhost's text for a refused fileId (no quotes or backticks around the name, docs/design/api.md#errors). */
export function invalidFileIdMessage(fileId: string): string {
  return `${fileId} is not a valid file name.`;
}
