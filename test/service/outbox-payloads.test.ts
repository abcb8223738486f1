import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/domain/transaction.js';
import { mailRow, parseMailPayload, type MailPayload } from '../../src/service/delivery/mail-payload.js';
import { parsePostbackPayload } from '../../src/service/delivery/outbox-rows.js';

const kinds = ['invitation', 'reminder', 'confirmation', 'documents', 'receipt', 'cancellation', 'notification', 'verification-code'] as const;

describe('outbox payloads, declared once as schemas', () => {
  it('read back every mail row as it was written (property)', () => {
    const payload = fc.record(
      {
        transactionId: fc.string(),
        kind: fc.constantFrom(...kinds),
        to: fc.string(),
        signerId: fc.string(),
        receiverId: fc.string(),
        code: fc.string(),
        codeSealed: fc.string(),
        event: fc.string(),
      },
      { requiredKeys: ['transactionId', 'kind', 'to'] },
    );
    fc.assert(
      fc.property(payload, (written: MailPayload) => {
        expect(parseMailPayload(mailRow(written).payload)).toEqual(written);
      }),
    );
  });

  it('refuse a row that is not one, and drop keys they do not declare', () => {
    expect(parseMailPayload({ transactionId: 't', kind: 'telegram', to: 'a@b.c' })).toBeUndefined();
    expect(parseMailPayload({ transactionId: 't', kind: 'reminder', to: 'a@b.c', signerId: 7 })).toBeUndefined();
    expect(parseMailPayload(['t'] as JsonValue)).toBeUndefined();
    expect(parseMailPayload({ transactionId: 't', kind: 'reminder', to: 'a@b.c', extra: 'x' })).toEqual({ transactionId: 't', kind: 'reminder', to: 'a@b.c' });
    expect(parsePostbackPayload({ transactionId: 't', status: 30, url: 'https://example.com/hook' })).toEqual({ transactionId: 't', status: 30, url: 'https://example.com/hook' });
    expect(parsePostbackPayload({ transactionId: 't', status: '30', url: 'https://example.com/hook' })).toBeUndefined();
    expect(parsePostbackPayload(null)).toBeUndefined();
  });
});
