import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidBsn } from '../../src/domain/bsn.js';
import { isE164 } from '../../src/domain/e164.js';
import { createTransaction, isValidIban, validateCreateRequest } from '../../src/domain/transaction-rules.js';
import { bsn, createTransactionRequest, e164, iban, invalidFileMetaData, startTestService, type TestService } from '../../src/testing/index.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');

describe('createTransactionRequest()', () => {
  it('gives 1,000 requests createTransaction accepts', () => {
    let n = 0;
    fc.assert(
      fc.property(createTransactionRequest(), (request) => {
        expect(validateCreateRequest(request)).toEqual([]);
        const tx = createTransaction(request, { id: `tx${n}`, accountId: 'acc', now: NOW, newSignToken: () => `token${n++}`, newId: () => `id${n++}` });
        expect(tx.Signers).toHaveLength(request.Signers?.length ?? 0);
        expect(tx.Seal || tx.Signers.length > 0).toBe(true);
      }),
      { numRuns: 1000, seed: 8 },
    );
  });

  it('reaches every documented transaction field: signer extras, verifications in every legal position, authentications, receivers', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(createTransactionRequest(), (request) => {
        for (const key of Object.keys(request)) seen.add(key);
        for (const signer of request.Signers ?? []) {
          for (const key of Object.keys(signer)) seen.add(`Signer.${key}`);
          for (const v of signer.Verifications ?? []) seen.add(`Verification.${v.Type}`);
          for (const a of signer.Authentications ?? []) seen.add(`Authentication.${a.Type}`);
        }
        for (const receiver of request.Receivers ?? []) for (const key of Object.keys(receiver)) seen.add(`Receiver.${key}`);
      }),
      { numRuns: 500, seed: 2 },
    );
    for (const key of ['Seal', 'Signers', 'Receivers', 'Reference', 'PostbackUrl', 'SignRequestMode', 'DaysToExpire', 'SendEmailNotifications', 'Language', 'Context',
      'Signer.BSN', 'Signer.Iban', 'Signer.Mobile', 'Signer.DaysToRemind', 'Signer.Expires', 'Signer.Authentications', 'Signer.AllowDelegation', 'Signer.SignRequestSubject',
      'Verification.DigiD', 'Verification.CSC Qualified', 'Verification.itsme Identification', 'Verification.PhoneNumber', 'Verification.Scribble',
      'Authentication.PhoneNumber', 'Authentication.DigiD', 'Receiver.Subject', 'Receiver.Context']) {
      expect(seen, key).toContain(key);
    }
  });

  it('building blocks: BSNs pass the 11-proef, IBANs mod 97, phone numbers E.164', () => {
    fc.assert(fc.property(bsn(), iban(), e164(), (b, i, p) => isValidBsn(b) && isValidIban(i) && isE164(p)), { numRuns: 1000 });
  });
});

describe('over HTTP (the service schema and rules)', () => {
  let service: TestService;
  beforeAll(async () => {
    // The generated PostbackUrls name random hosts: answer them with a public address instead of asking DNS, which
    // without a reachable resolver makes each creation wait for its 3 s lookup limit.
    service = await startTestService({ resolveHost: async () => [{ address: '93.184.215.14', family: 4 }] });
  });
  afterAll(async () => {
    await service.dispose();
  });

  it('1,000 generated requests are each created (200) and come back with what was sent', async () => {
    await fc.assert(
      fc.asyncProperty(createTransactionRequest(), async (request) => {
        const response = await service.client.request('POST', '/api/transaction', { json: request, headers: { accept: 'application/vnd.signhost.v2+json' } });
        expect(response.status, response.text).toBe(200);
        const body = response.json as { Status: number; Reference?: string; Context?: unknown; Signers: { SendSignRequest: false, Email: string }[] };
        expect(body.Status).toBe(5);
        expect(body.Reference).toEqual(request.Reference);
        expect(body.Context).toEqual(request.Context);
        expect(body.Signers.map((s) => s.Email)).toEqual((request.Signers ?? []).map((s) => s.Email));
      }),
      { numRuns: 1000, seed: 11 },
    );
  }, 120_000);

  it('invalid metadata is refused with 400 and exactly the predicted message', async () => {
    const created = await service.client.request('POST', '/api/transaction', { json: { Seal: true } });
    const id = (created.json as { Id: string }).Id;
    await fc.assert(
      // A null property is absent to the service (docs/design/api.md#tolerant-reader), so those mutations are valid
      // uploads there.
      fc.asyncProperty(invalidFileMetaData().filter(({ message }) => !message.endsWith('Null values must not be sent')), async ({ value, message }) => {
        const response = await service.client.request('PUT', `/api/transaction/${id}/file/doc.pdf`, { json: value });
        expect(response.status).toBe(400);
        expect(response.json).toEqual({ Message: message });
      }),
      { numRuns: 200, seed: 4 },
    );
  }, 60_000);
});
