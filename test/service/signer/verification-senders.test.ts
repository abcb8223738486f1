/**
 * Pluggable code senders (docs/design/signer-api.md#codes): the defaults (SMS code to the log, e-mail code as a mail
 * outbox row), and a custom SMS sender handed to the service that receives the code and the rows it returns are
 * committed.
 */
import { describe, expect, it } from 'vitest';
import { defaultVerificationSenders, type CodeMessage } from '../../../src/service/delivery/verification-senders.js';
import { call, startTestService } from '../../helpers/service-harness.js';
import { createSigningTransaction } from './signer-fixture.js';

const message: CodeMessage = {
  transactionId: 't1',
  signerId: 'Signer1',
  to: '+31612345678',
  code: '123456',
  language: 'nl-NL',
  expiresAt: new Date('2026-11-21T10:10:00Z'),
};

describe('verification senders', () => {
  it('defaults: SMS to the log (no rows), e-mail as a verification-code mail row', async () => {
    const lines: [Record<string, unknown>, string][] = [];
    const senders = defaultVerificationSenders({ info: (object, text) => lines.push([object, text]) }, { logCodes: true });
    expect(await senders.sms(message)).toEqual([]);
    expect(lines).toEqual([[{ outbox: 'sms', transactionId: 't1', signerId: 'Signer1', to: '+31612345678', code: '123456' }, 'SMS verification code (no SMS gateway configured; development logging)']]);
    expect(await senders.email({ ...message, to: 'a@example.com' })).toEqual([
      { kind: 'mail', payload: { transactionId: 't1', kind: 'verification-code', signerId: 'Signer1', to: 'a@example.com', code: '123456' } },
    ]);
  });

  it('a custom SMS sender given to the service gets the code; its outbox rows are committed with it', async () => {
    const sent: CodeMessage[] = [];
    const service = await startTestService({
      verificationSenders: {
        sms: (m) => {
          sent.push(m);
          return [{ kind: 'mail', payload: { transactionId: m.transactionId, kind: 'notification', to: 'ops@example.com', event: 'sms-sent' } }];
        },
        email: () => [],
      },
    });
    const server = service.server;
    try {
      const tx = await createSigningTransaction(server.url, { signers: [{ Email: 'x@example.com', Verifications: [{ Type: 'PhoneNumber', Number: '+31611111111' }] }] });
      const token = tx.signers[0]!.token;
      expect((await call(server.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'PhoneNumber' } })).status).toBe(200);
      expect(sent.map((m) => [m.to, m.language, m.expiresAt.toISOString()])).toEqual([['+31611111111', 'nl-NL', '2026-11-21T10:10:00.000Z']]);
      const rows = await server.store.claimDue(new Date('2100-01-01T00:00:00Z'), 100, 60_000);
      expect(rows.some((r) => (r.payload as { event?: string }).event === 'sms-sent')).toBe(true);
      const ok = await call(server.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'PhoneNumber', Code: sent[0]!.code } });
      expect(ok.json).toEqual({ Type: 'PhoneNumber', Done: true, Remaining: [] });
    } finally {
      await service.dispose();
    }
  });
});
