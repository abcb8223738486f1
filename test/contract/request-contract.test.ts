/**
 * The request side of the served OpenAPI document accepts what the service accepts: every request the official
 * clients put on the wire (fixtures/clients: .NET v5, .NET v4.3 whole models with nulls and read-only properties,
 * the Python client's nulls and `Accept: *\/*`, Signhost's documented verification properties) is valid per the
 * document (Ajv over the request body schema, path parameters and headers), as a validating gateway would check it;
 * a body-less DELETE and PUT start too. Undocumented properties stay invalid, and the response schemas stay exact.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../src/testing/start-test-service.js';
import { CLIENTS, fixtureText, readFlow } from '../clients/client-fixtures.js';

interface MediaTypeObject {
  readonly schema?: unknown;
}
interface OperationObject {
  readonly parameters?: readonly { name: string; in: string; required?: boolean; schema?: unknown }[];
  readonly requestBody?: { required?: boolean; content: Record<string, MediaTypeObject> };
  readonly responses: Record<string, { content?: Record<string, MediaTypeObject> }>;
}
interface Document {
  readonly paths: Record<string, Record<string, OperationObject>>;
  readonly components: { schemas: Record<string, unknown> };
}

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;
let service: TestService;
let document: Document;
let ajv: Ajv2020;

beforeAll(async () => {
  service = await startTestService();
  document = (await service.client.request('GET', '/api/openapi.json', { auth: false })).json as Document;
  ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, discriminator: true, validateFormats: true }));
  ajv.addSchema(withoutMappings(document) as object, 'openapi.json');
}, 60_000);
afterAll(async () => {
  await service?.dispose();
});

/** ajv's discriminator takes no mapping; the branches' `const` says the same. */
function withoutMappings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMappings);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, key === 'discriminator' && item !== null && typeof item === 'object' ? { propertyName: (item as { propertyName: string }).propertyName } : withoutMappings(item)]),
  );
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The document's path template a request path is an instance of. */
function templateOf(path: string): string {
  const found = Object.keys(document.paths).find((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
  if (found === undefined) throw new Error(`no path for ${path}`);
  return found;
}

/** What a validating gateway finds wrong with a request: body per its media type, required body, headers. */
function requestViolations(method: string, path: string, headers: Readonly<Record<string, string>>, body: string | undefined): string[] {
  const template = templateOf(path);
  const operation = document.paths[template]?.[method.toLowerCase()];
  if (operation === undefined) return [`${method} ${template}: not documented`];
  const problems: string[] = [];
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'header' || parameter.schema === undefined) continue;
    const value = lower[parameter.name.toLowerCase()];
    if (value === undefined) {
      if (parameter.required) problems.push(`header ${parameter.name} required`);
      continue;
    }
    const validate = ajv.compile(parameter.schema as object);
    if (!validate(value)) problems.push(`header ${parameter.name}: ${ajv.errorsText(validate.errors)}`);
  }
  if (body === undefined || body === '') {
    if (operation.requestBody?.required) problems.push('body required');
    return problems;
  }
  const mediaType = (lower['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (operation.requestBody?.content[mediaType] === undefined) return [...problems, `media type ${mediaType} not documented`];
  if (mediaType !== 'application/json') return problems;
  const pointer = `openapi.json#/paths/${escape(template)}/${method.toLowerCase()}/requestBody/content/${escape(mediaType)}/schema`;
  const validate = ajv.getSchema(pointer) as ValidateFunction;
  if (!validate(JSON.parse(body))) problems.push(...(validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`));
  return problems;
}

describe('the official clients’ requests against the served document', () => {
  it.each(CLIENTS)('%s: every request of its recorded flow is valid (0 violations)', (client) => {
    const flow = readFlow(client);
    let checked = 0;
    for (const step of flow.steps) {
      if (step.method === undefined || step.path === undefined) continue;
      const path = `/api/${step.path.replace('{id}', '0b6f6c2a-6d8e-4b5e-9a34-2f0c1f7f9e10').split('?')[0]}`;
      const body = step.body === undefined ? undefined : step.body === '{pdf}' ? '%PDF-1.7' : fixtureText(`${client}/${step.body}`).replaceAll('{postbackUrl}', 'https://example.com/postback');
      const headers = { ...flow.headers, ...step.headers };
      expect(requestViolations(step.method, path, headers, body), `${step.step}: ${step.method} ${path}`).toEqual([]);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });

  it("Signhost's documented verification and authentication properties, read-only echoes included", () => {
    expect(requestViolations('POST', '/api/transaction', { 'Content-Type': 'application/json' }, fixtureText('openapi/create-verifications.json'))).toEqual([]);
  });

  it('a model posted back after signing (IPAddress verification, read-only properties, nulls) and a body-less DELETE', () => {
    const json = { 'Content-Type': 'application/json', Accept: '*/*' };
    const posted = {
      Id: 'x', Status: 30, Files: null, Seal: null, Reference: null, Context: null,
      Signers: [{ SendSignRequest: false, Email: 'a@example.com', Id: null, SignUrl: null, Activities: [], Verifications: [{ Type: 'Scribble', ScribbleName: null }, { Type: 'IPAddress', IPAddress: '192.0.2.1' }], Context: null }],
      Receivers: null,
    };
    expect(requestViolations('POST', '/api/transaction', json, JSON.stringify(posted))).toEqual([]);
    expect(requestViolations('DELETE', '/api/transaction/abc', json, undefined)).toEqual([]);
    expect(requestViolations('DELETE', '/api/transaction/abc', json, '{"SendNotifications":null,"Reason":null}')).toEqual([]);
    expect(requestViolations('PUT', '/api/transaction/abc/start', json, undefined)).toEqual([]);
  });

  it('undocumented properties and wrong types stay invalid, as the service answers 400', () => {
    const json = { 'Content-Type': 'application/json' };
    expect(requestViolations('POST', '/api/transaction', json, '{"Seal":true,"Singers":[]}').join()).toMatch(/additionalProperty.*Singers/);
    expect(requestViolations('POST', '/api/transaction', json, '{"Signers":[{"SendSignRequest":false,"Email":"a@example.com","Emial":"x"}]}').join()).toMatch(/Emial/);
    expect(requestViolations('POST', '/api/transaction', json, '{"Signers":[{"SendSignRequest":false,"Email":null}]}')).not.toEqual([]);
    expect(requestViolations('POST', '/api/transaction', json, '{"Seal":"true"}')).not.toEqual([]);
  });

  it('names no Accept header parameter (versions are response media types); response schemas stay without nulls where the service sends none', () => {
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations)) expect((operation.parameters ?? []).map((p) => p.name)).not.toContain('Accept');
    }
    const schemas = document.components.schemas as Record<string, { properties?: Record<string, unknown> }>;
    expect(schemas.TransactionV2?.properties?.Seal).toEqual({ type: 'boolean' });
    for (const name of ['VerificationScribble', 'VerificationIPAddress', 'Authentication', 'Activity']) expect(JSON.stringify(schemas[name]), name).not.toContain('null');
    expect(JSON.stringify(schemas.VerificationScribbleRequest)).toContain('null');
  });
});
