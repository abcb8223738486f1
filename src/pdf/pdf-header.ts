/** Whether bytes start like a PDF; no parser needed (the text engines' worker threads check it without pdf-lib). */

const HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

/** True when `%PDF-` appears within the first 1024 bytes, as ISO 32000 readers accept. */
export function hasPdfHeader(bytes: Uint8Array): boolean {
  const limit = Math.min(bytes.length - HEADER.length, 1024);
  outer: for (let i = 0; i <= limit; i++) {
    for (let j = 0; j < HEADER.length; j++) if (bytes[i + j] !== HEADER[j]) continue outer;
    return true;
  }
  return false;
}
