/**
 * The suite's `call` helper checks every response against the document the service at its base URL serves, so
 * services run as child processes are held to the contract too (response-contract.setup.ts only sees in-process
 * ones). Shown here with a stand-in server whose document and answers are known.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/service-harness.js';
import { takeContractMismatches } from './response-contract.js';

const document = {
  openapi: '3.1.0',
  paths: {
    '/api/thing/{thingId}': {
      get: {
        responses: {
          '200': { content: { 'application/json': { schema: { type: 'object', required: ['Id'], properties: { Id: { type: 'string', format: 'uuid' } } } } } },
        },
      },
    },
    '/api/thing/{thingId}/name': { get: { responses: { '200': { content: { 'text/plain': {} } } } } },
  },
};

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const reply = (status: number, type: string, body: string): void => void res.writeHead(status, { 'content-type': type }).end(body);
    if (req.url === '/api/openapi.json') return reply(200, 'application/json', JSON.stringify(document));
    if (req.url === '/api/thing/good') return reply(200, 'application/json', JSON.stringify({ Id: '0b6f1c2e-6d1a-4a57-9a43-3f7e2d1c0b5a' }));
    if (req.url === '/api/thing/bad-id') return reply(200, 'application/json', JSON.stringify({ Id: 'not-a-uuid' }));
    if (req.url === '/api/thing/good/name') return reply(200, 'text/plain', 'a name');
    if (req.url === '/api/thing/missing') return reply(404, 'application/json', '{"Message":"no"}');
    return reply(200, 'text/html', '<p>not in the document</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('responses of a served (child-process) service are checked against its own document', () => {
  it('lets conforming responses and routes the document leaves out pass', async () => {
    await call(base, 'GET', '/api/thing/good');
    await call(base, 'GET', '/api/thing/good/name');
    await call(base, 'GET', '/sign/page');
    expect(takeContractMismatches()).toEqual([]);
  });

  it('records a body that breaks the schema and a status the operation does not document', async () => {
    await call(base, 'GET', '/api/thing/bad-id');
    await call(base, 'GET', '/api/thing/missing');
    const found = takeContractMismatches();
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/GET \/api\/thing\/\{thingId\} → 200: body does not match the document:\n {2}\/Id must match format "uuid"/);
    expect(found[1]).toMatch(/GET \/api\/thing\/\{thingId\} → 404: status not documented/);
  });
});
