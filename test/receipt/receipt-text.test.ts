import { describe, expect, it } from 'vitest';
import { receiptTextFor } from '../../src/receipt/receipt-text.js';
import { AUDIT_EVENT_TYPES } from '../../src/receipt/audit-log.js';

describe('receiptTextFor', () => {
  it('gives Dutch for nl tags and English for every other language', () => {
    for (const tag of ['nl-NL', 'nl-nl', 'nl-BE', 'nl']) expect(receiptTextFor(tag).language).toBe('nl-NL');
    for (const tag of ['en-US', 'de-DE', 'fr-FR', 'nld', '', 'xx']) expect(receiptTextFor(tag).language).toBe('en-US');
  });

  it('has a non-empty, distinct label for every audit event type in both languages', () => {
    for (const tag of ['en-US', 'nl-NL']) {
      const labels = AUDIT_EVENT_TYPES.map((type) => receiptTextFor(tag).events[type]);
      expect(labels.every((l) => l.trim().length > 0)).toBe(true);
      expect(new Set(labels).size).toBe(labels.length);
    }
  });
});
