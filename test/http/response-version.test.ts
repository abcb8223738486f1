/**
 * Response versions are media types: the Accept header picks `application/vnd.signhost.v2+json` (version 2),
 * `application/vnd.signhost.v1+json` or plain JSON (version 1); the answer names the chosen media type and sends
 * `Vary: Accept`; the document describes each version under its media type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negotiateVersion } from '../../src/http/response-version.js';
import { call, startTestService, type TestService } from '../helpers/service-harness.js';

describe('negotiateVersion', () => {
  it.each([
    [undefined, 'application/json', 1],
    ['*/*', 'application/json', 1],
    ['application/*', 'application/json', 1],
    ['text/html', 'application/json', 1],
    ['application/json', 'application/json', 1],
    ['application/vnd.signhost.v1+json', 'application/vnd.signhost.v1+json', 1],
    ['application/vnd.signhost.v2+json', 'application/vnd.signhost.v2+json', 2],
    ['Application/VND.Signhost.V2+JSON', 'application/vnd.signhost.v2+json', 2],
    ['application/json, application/vnd.signhost.v2+json', 'application/vnd.signhost.v2+json', 2],
    ['application/vnd.signhost.v2+json;q=0.5, application/json', 'application/json', 1],
    ['application/vnd.signhost.v2+json;q=0, */*', 'application/json', 1],
    ['application/json;version=1', 'application/json', 1],
  ] as const)('%s → %s (v%i)', (accept, mediaType, version) => {
    expect(negotiateVersion(accept)).toEqual({ mediaType, version, contentType: `${mediaType}; charset=utf-8` });
  });
});

describe('over HTTP', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  }, 60_000);
  afterAll(async () => {
    await service?.dispose();
  });

  it('answers create, GET and DELETE with the chosen media type and Vary: Accept', async () => {
    const v2 = await call(service.url, 'POST', '/api/transaction', { json: { Seal: true }, headers: { accept: 'application/vnd.signhost.v2+json' } });
    expect(v2.status).toBe(200);
    expect(v2.headers.get('content-type')).toBe('application/vnd.signhost.v2+json; charset=utf-8');
    expect(v2.headers.get('vary')).toMatch(/accept/i);
    expect(v2.json).not.toHaveProperty('Reference');
    const id = v2.json.Id as string;
    const any = await call(service.url, 'GET', `/api/transaction/${id}`, { headers: { accept: '*/*' } });
    expect(any.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(any.headers.get('vary')).toMatch(/accept/i);
    expect(any.json.Reference).toBeNull();
    const v1 = await call(service.url, 'GET', `/api/transaction/${id}`, { headers: { accept: 'application/vnd.signhost.v1+json' } });
    expect(v1.headers.get('content-type')).toBe('application/vnd.signhost.v1+json; charset=utf-8');
    expect(v1.json.Reference).toBeNull();
    const deleted = await call(service.url, 'DELETE', `/api/transaction/${id}`, { headers: { accept: 'application/vnd.signhost.v2+json' } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.headers.get('content-type')).toBe('application/vnd.signhost.v2+json; charset=utf-8');
  });

  it('the document lists the versions as response media types, with no Accept parameter', async () => {
    const document = (await call(service.url, 'GET', '/api/openapi.json', { auth: false })).json as {
      paths: Record<string, Record<string, { parameters?: { name: string }[]; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
    };
    const get = document.paths['/api/transaction/{transactionId}']?.get;
    expect(get?.responses['200']?.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/TransactionV1' } },
      'application/vnd.signhost.v1+json': { schema: { $ref: '#/components/schemas/TransactionV1' } },
      'application/vnd.signhost.v2+json': { schema: { $ref: '#/components/schemas/TransactionV2' } },
    });
    expect((get?.parameters ?? []).map((p) => p.name)).toEqual(['transactionId']);
  });
});
