/**
 * Whether two PDF values mean the same: what a reader would make of them, not how they are written. Another
 * product re-serialising an object it did not mean to change (a /TU text re-encoded as UTF-16BE instead of
 * PDFDocEncoding, `1.0` for `1`, keys in another order, a literal string written as hex) must not count as a change.
 */
import { PDFArray, PDFBool, PDFDict, PDFHexString, PDFName, PDFNull, PDFNumber, PDFRef, PDFStream, PDFString, type PDFObject } from '../pdf/pdf-lib.js';

function textOf(value: PDFString | PDFHexString): string {
  try {
    return value.decodeText();
  } catch {
    return Buffer.from(value.asBytes()).toString('latin1');
  }
}

function bytesOf(value: PDFString | PDFHexString): Buffer {
  return Buffer.from(value.asBytes());
}

function sameDict(a: PDFDict, b: PDFDict, depth: number): boolean {
  const keys = new Set<string>();
  for (const [key, value] of a.entries()) if (!(value === PDFNull)) keys.add(key.decodeText());
  for (const [key, value] of b.entries()) if (!(value === PDFNull)) keys.add(key.decodeText());
  for (const key of keys) if (!samePdfValue(a.get(PDFName.of(key)), b.get(PDFName.of(key)), depth + 1)) return false;
  return true;
}

/** Keys whose values differ (semantically) between two dictionaries. */
export function changedKeys(before: PDFDict, after: PDFDict): string[] {
  const keys = new Set<string>();
  for (const [key] of before.entries()) keys.add(key.decodeText());
  for (const [key] of after.entries()) keys.add(key.decodeText());
  return [...keys].filter((k) => !samePdfValue(before.get(PDFName.of(k)), after.get(PDFName.of(k))));
}

/**
 * Semantic equality of two direct values (references compare by object number; the objects they point at are
 * compared on their own). Text strings compare decoded (PDFDocEncoding or UTF-16 with BOM), other strings by
 * their bytes; numbers by value; a missing dictionary entry equals /null (ISO 32000-2 §7.3.7).
 */
export function samePdfValue(a: PDFObject | undefined, b: PDFObject | undefined, depth = 0): boolean {
  if (depth > 64) return false;
  if (a === undefined || a === PDFNull) return b === undefined || b === PDFNull;
  if (b === undefined || b === PDFNull) return false;
  if (a instanceof PDFRef || b instanceof PDFRef) return a instanceof PDFRef && b instanceof PDFRef && a.objectNumber === b.objectNumber;
  if (a instanceof PDFNumber || b instanceof PDFNumber) return a instanceof PDFNumber && b instanceof PDFNumber && a.asNumber() === b.asNumber();
  if (a instanceof PDFName || b instanceof PDFName) return a instanceof PDFName && b instanceof PDFName && a.decodeText() === b.decodeText();
  if (a instanceof PDFBool || b instanceof PDFBool) return a instanceof PDFBool && b instanceof PDFBool && a.asBoolean() === b.asBoolean();
  const aString = a instanceof PDFString || a instanceof PDFHexString;
  const bString = b instanceof PDFString || b instanceof PDFHexString;
  if (aString || bString) {
    if (!(aString && bString)) return false;
    return bytesOf(a).equals(bytesOf(b)) || textOf(a) === textOf(b);
  }
  if (a instanceof PDFArray || b instanceof PDFArray) {
    if (!(a instanceof PDFArray && b instanceof PDFArray) || a.size() !== b.size()) return false;
    for (let i = 0; i < a.size(); i++) if (!samePdfValue(a.get(i), b.get(i), depth + 1)) return false;
    return true;
  }
  if (a instanceof PDFStream || b instanceof PDFStream) {
    if (!(a instanceof PDFStream && b instanceof PDFStream)) return false;
    const aDict = a.dict.clone();
    const bDict = b.dict.clone();
    // /Length only describes the encoding.
    aDict.delete(PDFName.of('Length'));
    bDict.delete(PDFName.of('Length'));
    return sameDict(aDict, bDict, depth) && Buffer.from(a.getContents()).equals(Buffer.from(b.getContents()));
  }
  if (a instanceof PDFDict || b instanceof PDFDict) return a instanceof PDFDict && b instanceof PDFDict && sameDict(a, b, depth);
  return a.constructor === b.constructor && a.toString() === b.toString();
}
