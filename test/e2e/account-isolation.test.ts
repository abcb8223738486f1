/**
 * Isolation of accounts over real HTTP: account B, with valid keys of its own, calls every operation of the OpenAPI
 * document that takes account credentials with account A's transaction and file ids. Each answer is 401 or 404 and
 * exactly the answer B gets for ids that do not exist (so it learns nothing, not even that the ids exist), and A's
 * transaction is unchanged afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makePdf, startTestService, type ApiResponse, type TestService } from '../helpers/service-harness.js';

const ADMIN = { authorization: 'Bearer isolation-admin-token-0123456789-abcdef' };
let service: TestService;
let other: Record<string, string>;
let pdf: Uint8Array;

beforeAll(async () => {
  service = await startTestService({ env: { PARAPH_ADMIN_TOKEN: ADMIN.authorization.slice(7) } });
  pdf = await makePdf([['Contract']]);
  const b = await call(service.url, 'POST', '/api/admin/accounts', { auth: false, headers: ADMIN, json: { Name: 'Other Org' } });
  const key = async (Kind: string): Promise<string> =>
    (await call(service.url, 'POST', `/api/admin/accounts/${b.json.Id as string}/credentials`, { auth: false, headers: ADMIN, json: { Kind } })).json.Secret as string;
  other = { authorization: `APIKey ${await key('UserToken')}`, application: `APPKey ${await key('AppKey')}` };
}, 60_000);
afterAll(async () => {
  await service?.dispose();
});

interface Operation {
  method: string;
  path: string;
  hasBody: boolean;
  pdfBody: boolean;
}

/** The operations of the served document that take the account's credentials (the default security). */
async function accountOperations(): Promise<Operation[]> {
  const doc = (await call(service.url, 'GET', '/api/openapi.json', { auth: false })).json as {
    paths: Record<string, Record<string, { security?: unknown[]; requestBody?: { content: Record<string, unknown> } }>>;
  };
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (op.security !== undefined) continue;
      const content = Object.keys(op.requestBody?.content ?? {});
      operations.push({ method: method.toUpperCase(), path, hasBody: content.length > 0, pdfBody: content.includes('application/pdf') });
    }
  }
  return operations;
}

function send(op: Operation, ids: { transactionId: string; fileId: string }): Promise<ApiResponse> {
  const path = op.path.replace('{transactionId}', ids.transactionId).replace('{fileId}', ids.fileId);
  const body = op.pdfBody ? { body: pdf, headers: { ...other, 'content-type': 'application/pdf' } } : op.hasBody ? { json: {}, headers: other } : { headers: other };
  return call(service.url, op.method, path, { auth: false, ...body });
}

describe('another account', () => {
  it('gets 401/404 on every transaction route with ids of this account, exactly as for ids that do not exist', async () => {
    const created = await service.client.request('POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'a@example.com' }] } });
    const transactionId = (created.json as { Id: string }).Id;
    expect((await service.client.request('PUT', `/api/transaction/${transactionId}/file/contract.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
    const before = (await service.client.request('GET', `/api/transaction/${transactionId}`)).text;

    const operations = (await accountOperations()).filter((op) => op.path.includes('{transactionId}'));
    expect(operations.length).toBeGreaterThanOrEqual(5);
    for (const op of operations) {
      const theirs = await send(op, { transactionId, fileId: 'contract.pdf' });
      const none = await send(op, { transactionId: '00000000-0000-4000-8000-000000000000', fileId: 'contract.pdf' });
      expect([op.method, op.path, theirs.status]).toEqual([op.method, op.path, expect.toBeOneOf([401, 404])]);
      expect([op.method, op.path, theirs.status, theirs.text.replaceAll(transactionId, 'ID')]).toEqual([op.method, op.path, none.status, none.text.replaceAll('00000000-0000-4000-8000-000000000000', 'ID')]);
      expect(theirs.text).not.toContain('a@example.com');
    }
    expect((await service.client.request('GET', `/api/transaction/${transactionId}`)).text).toBe(before);
  });
});
