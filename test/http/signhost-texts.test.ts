/**
 * Where Signhost publishes an error text (its OpenAPI's examples), the service answers with exactly that text; and
 * the smaller differences between the documentation and behaviour: text/plain bodies are 415, a second DELETE keeps
 * the first one's CanceledDateTime and CancelationReason, AllowDelegation with Authentications is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transition } from '../../src/domain/transaction.js';
import { createTransaction } from '../../src/domain/transaction-rules.js';
import { counters, T0 } from '../store/transaction-fixtures.js';
import { call, startTestService, type TestService } from '../helpers/service-harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
}, 60_000);
afterAll(async () => {
  await service?.dispose();
});

const create = (json: unknown) => call(service.url, 'POST', '/api/transaction', { json });
const createText = (body: string, contentType = 'application/json') => call(service.url, 'POST', '/api/transaction', { body, headers: { 'content-type': contentType } });

describe("Signhost's published texts (create)", () => {
  it.each([
    ['invalidJson', () => createText('{"Seal": tru'), 'Invalid json structure provided.'],
    ['invalidSigner', () => create({ Signers: ['john.doe@example.com'] }), 'Invalid signer structure provided.'],
    ['invalidReceiver', () => create({ Seal: true, Receivers: [42] }), 'Invalid receiver structure provided.'],
    ['noSignersOrSeal', () => create({ Seal: false }), 'Nor seal nor signers has been provided.'],
    [
      'delegationWithAuth',
      () => create({ Signers: [{ Email: 'a@example.com', SendSignRequest: false, AllowDelegation: true, Authentications: [{ Type: 'PhoneNumber', Number: '+31612345678' }] }] }),
      'Signer cannot have AllowDelegation enabled when authentications are present.',
    ],
    ['invalidContext', () => create({ Seal: true, Context: [1, 2] }), 'Only json objects are allowed in context properties'],
    ['invalidContext (signer)', () => create({ Signers: [{ Email: 'a@example.com', SendSignRequest: false, Context: 'x' }] }), 'Only json objects are allowed in context properties'],
    ['missing message', () => create({ Signers: [{ Email: 'a@example.com', SendSignRequest: true }] }), 'The sign request message is null or empty.'],
  ] as const)('%s', async (_name, send, text) => {
    const answer = await send();
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toEqual({ Message: text });
  });

  it('401 for a wrong key', async () => {
    const answer = await call(service.url, 'GET', '/api/transaction/x', { headers: { authorization: 'APIKey wrong' } });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ Message: 'Authorization has been denied for this request.' });
  });

  it('AllowDelegation without Authentications is fine', async () => {
    const ok = await create({ Signers: [{ Email: 'a@example.com', SendSignRequest: false, AllowDelegation: true }] });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe("Signhost's published texts (file upload)", () => {
  it("FileMetaData naming a signer the transaction does not have: Signer '<id>' not found.", async () => {
    const id = (await create({ Signers: [{ Email: 'a@example.com', SendSignRequest: false }] })).json.Id as string;
    const metadata = { Signers: { signer1: { FormSets: ['f'] } }, FormSets: { f: { sig: { Type: 'Signature', Location: { PageNumber: 1, Left: 10, Top: 10 } } } } };
    const answer = await call(service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { json: metadata });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toEqual({ Message: "Signer 'signer1' not found." });
  });
});

describe('smaller differences', () => {
  it('a text/plain body is 415 on the transaction routes, as any other media type', async () => {
    const plain = await createText('{"Seal":true}', 'text/plain');
    expect(plain.status).toBe(415);
    const id = (await create({ Seal: true })).json.Id as string;
    const del = await call(service.url, 'DELETE', `/api/transaction/${id}`, { body: 'Reason', headers: { 'content-type': 'text/plain' } });
    expect(del.status).toBe(415);
  });

  it('a second DELETE keeps CanceledDateTime and CancelationReason of the first', () => {
    const tx = createTransaction({ Seal: true }, { id: 'tx', accountId: 'acc', now: T0, ...counters() });
    const first = transition(tx, { type: 'cancel', reason: 'first', graceMinutes: 15 }, T0);
    const later = new Date(T0.getTime() + 60_000);
    const second = transition(first, { type: 'cancel', reason: 'second', graceMinutes: 15 }, later);
    expect(second.CanceledDateTime).toBe(first.CanceledDateTime);
    expect(second.CancelationReason).toBe('first');
    const withoutReason = transition(transition(tx, { type: 'cancel', graceMinutes: 15 }, T0), { type: 'cancel', reason: 'late', graceMinutes: 15 }, later);
    expect(withoutReason.CancelationReason).toBeUndefined();
  });
});
