/**
 * The fileId rule (docs/design/files.md#file-ids) and Signhost's message for a refused one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invalidFileIdMessage, isValidFileId } from '../../src/domain/transaction-file-id.js';

describe('isValidFileId', () => {
  it('accepts ordinary names, spaces, dots inside, Unicode letters and 255 characters', () => {
    for (const id of ['contract.pdf', 'First document', '.hidden', 'a..b', '...', 'Zoë Łukasiewicz.pdf', '契約書', 'x'.repeat(255), '😀'.repeat(255)]) {
      expect(isValidFileId(id), id).toBe(true);
    }
  });

  it('refuses empty, . and .., too long, control, Windows-reserved and bidirectional control characters', () => {
    for (const id of ['', '.', '..', 'x'.repeat(256), 'a\u0000', 'a\nb', 'a\u0085b', 'a:b', 'a*b', 'a?b', 'a\\b', 'a/b', 'a"b', 'a<b', 'a>b', 'a|b']) {
      expect(isValidFileId(id), JSON.stringify(id)).toBe(false);
    }
    for (const mark of ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']) {
      expect(isValidFileId(`contract${mark}fdp.exe`), mark.codePointAt(0)?.toString(16)).toBe(false);
    }
  });

  it('decides every string without throwing (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (id) => typeof isValidFileId(id) === 'boolean'), { numRuns: 200 });
  });

  it("says it as Signhost does, without quotes or backticks", () => {
    expect(invalidFileIdMessage('invalid|filename.pdf')).toBe('invalid|filename.pdf is not a valid file name.');
  });
});
