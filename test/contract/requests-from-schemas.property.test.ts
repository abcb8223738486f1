/**
 * Requests generated from the document's own request schemas against a live service: whatever the
 * generator builds — valid by the schemas, yet often refused by the domain's rules — the service answers without a
 * 5xx and every answer conforms to the document (checked here and by response-contract.setup.ts).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../src/testing/start-test-service.js';
import { contractChecker, type OpenApiDocument } from './response-contract.js';
import { schemaArbitrary } from './schema-arbitrary.js';

type Schema = { readonly [key: string]: unknown };

let service: TestService;
let document: OpenApiDocument & Schema;
let transactionId = '';
beforeAll(async () => {
  service = await startTestService();
  document = (await service.client.request('GET', '/api/openapi.json', { auth: false })).json as OpenApiDocument & Schema;
  transactionId = ((await service.client.request('POST', '/api/transaction', { json: { Seal: true } })).json as { Id: string }).Id;
});
afterAll(async () => {
  await service.dispose();
});

function bodySchema(path: string, method: string, mediaType = 'application/json'): Schema {
  const operation = (document.paths[path] as Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>)[method];
  const schema = operation?.requestBody?.content[mediaType]?.schema;
  if (schema === undefined) throw new Error(`no ${mediaType} body for ${method} ${path}`);
  return schema;
}

describe('requests generated from the document', () => {
  it('never get a 5xx, and every answer conforms to the document', async () => {
    // A path segment as a client would send it: percent-encoded, and not `.` or `..` (URLs resolve those away).
    const segment = (maxLength: number) => fc.string({ minLength: 1, maxLength }).filter((s) => s !== '.' && s !== '..').map(encodeURIComponent);
    const id = fc.oneof(fc.constant(transactionId), fc.uuid(), segment(20));
    const request = fc.oneof(
      schemaArbitrary(bodySchema('/api/transaction', 'post'), document).map((body) => ({ method: 'POST', path: '/api/transaction', docPath: '/api/transaction', body })),
      fc.tuple(id, segment(12), schemaArbitrary(bodySchema('/api/transaction/{transactionId}/file/{fileId}', 'put'), document)).map(([tx, file, body]) => ({
        method: 'PUT',
        path: `/api/transaction/${tx}/file/${file}`,
        docPath: '/api/transaction/{transactionId}/file/{fileId}',
        body,
      })),
      fc.tuple(id, fc.constantFrom('application/json', 'application/vnd.signhost.v2+json')).map(([tx, accept]) => ({ method: 'GET', path: `/api/transaction/${tx}`, docPath: '/api/transaction/{transactionId}', accept })),
      id.map((tx) => ({ method: 'PUT', path: `/api/transaction/${tx}/start`, docPath: '/api/transaction/{transactionId}/start' })),
      fc.tuple(id, schemaArbitrary(bodySchema('/api/transaction/{transactionId}', 'delete'), document)).map(([tx, body]) => ({ method: 'DELETE', path: `/api/transaction/${tx}`, docPath: '/api/transaction/{transactionId}', body })),
      fc.tuple(segment(30), schemaArbitrary(bodySchema('/api/signer/{token}/verification', 'post'), document)).map(([token, body]) => ({
        method: 'POST',
        path: `/api/signer/${token}/verification`,
        docPath: '/api/signer/{token}/verification',
        body,
      })),
      fc.tuple(segment(30), schemaArbitrary(bodySchema('/api/signer/{token}/sign', 'post'), document)).map(([token, body]) => ({
        method: 'POST',
        path: `/api/signer/${token}/sign`,
        docPath: '/api/signer/{token}/sign',
        body,
      })),
    );
    const checker = contractChecker(document);
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const response = await service.client.request(r.method, r.path, {
          ...('body' in r ? { json: r.body } : {}),
          ...('accept' in r ? { headers: { accept: r.accept } } : {}),
        });
        expect(response.status, `${r.method} ${r.path}: ${response.text.slice(0, 300)}`).toBeLessThan(500);
        const contentType = response.headers.get('content-type') ?? undefined;
        const problem = checker.problem({
          method: r.method,
          path: r.docPath,
          status: response.status,
          contentType,
          body: contentType?.includes('json') ? response.text : undefined,
        });
        expect(problem).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });
});
