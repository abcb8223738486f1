/**
 * The 409 window of a repeated upload (docs/design/files.md#replace-guard).
 */
import { describe, expect, it } from 'vitest';
import { UploadGuard } from '../../src/service/policies/upload-guard.js';

describe('UploadGuard', () => {
  it('refuses a second upload of the same kind while the first runs and within the window after it was accepted', () => {
    const guard = new UploadGuard(1000);
    const release = guard.begin('t', 'f', 'pdf', 0);
    expect(() => guard.begin('t', 'f', 'pdf', 10)).toThrow(/too short an interval/);
    const other = guard.begin('t', 'f', 'metadata', 10);
    other(false, 10);
    release(true, 100);
    expect(() => guard.begin('t', 'f', 'pdf', 1099)).toThrow(/too short an interval/);
    guard.begin('t', 'f', 'pdf', 1100)(true, 1100);
    guard.begin('t', 'g', 'pdf', 1100)(true, 1100);
    guard.begin('u', 'f', 'pdf', 1100)(true, 1100);
  });

  it('does not hold a failed upload against the next one', () => {
    const guard = new UploadGuard(1000);
    guard.begin('t', 'f', 'pdf', 0)(false, 5);
    expect(() => guard.begin('t', 'f', 'pdf', 6)).not.toThrow();
  });
});
