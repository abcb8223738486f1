/**
 * Responses the official clients can parse: every version-1 body — create, GET at each
 * status, DELETE, postbacks — checked against the schema derived from Signhost's OpenAPI `Transaction`, `Signer` and
 * `Receiver` with the non-nullable properties of the .NET models required and never null
 * (fixtures/clients/signhost-response.schema.json); version 2 too. And the OpenAPI document the service serves
 * names every property the clients send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostbackReceiver, type PostbackReceiver } from '../../src/testing/start-postback-receiver.js';
import { call, makePdf } from '../helpers/service-harness.js';
import { SCRIBBLE_DATA_URL } from '../service/signer/signer-fixture.js';
import { CLIENTS, fixtureText, responseShapeProblems, startClientTestService, type ClientTestService } from './client-fixtures.js';

let s: ClientTestService;
let receiver: PostbackReceiver;

beforeAll(async () => {
  [s, receiver] = await Promise.all([startClientTestService(), startPostbackReceiver()]);
}, 60_000);

afterAll(async () => {
  await Promise.all([s?.service.dispose(), receiver?.close()]);
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const V2 = { accept: 'application/vnd.signhost.v2+json' };

/** Checks a body in both versions. */
async function expectParsable(id: string, label: string): Promise<Json> {
  const v1 = await call(s.service.url, 'GET', `/api/transaction/${id}`, { headers: { accept: 'application/vnd.signhost.v1+json' } });
  expect(v1.status, label).toBe(200);
  expect(responseShapeProblems(v1.json), `${label} v1`).toEqual([]);
  const v2 = await call(s.service.url, 'GET', `/api/transaction/${id}`, { headers: V2 });
  expect(responseShapeProblems(v2.json), `${label} v2`).toEqual([]);
  return v1.json as Json;
}

async function started(body: Json, signers = 1): Promise<{ id: string; tokens: string[] }> {
  const created = await call(s.service.url, 'POST', '/api/transaction', { json: { PostbackUrl: `${receiver.url}/shape`, ...body } });
  expect(created.status, created.text).toBe(200);
  expect(responseShapeProblems(created.json)).toEqual([]);
  const id = created.json.Id as string;
  const pdf = await makePdf([['Shape test']]);
  expect((await call(s.service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
  expect((await call(s.service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
  const tokens = (created.json.Signers as { SignUrl: string }[]).slice(0, signers).map((x) => x.SignUrl.split('/sign/')[1] as string);
  return { id, tokens };
}

const signer = (token: string, method: string, path: string, json?: unknown) =>
  call(s.service.url, method, `/api/signer/${token}${path}`, { auth: false, ...(json !== undefined ? { json } : {}) });

describe('every version-1 body parses in the .NET models', () => {
  it('created from each client fixture, at 5', async () => {
    for (const client of CLIENTS) {
      const created = await call(s.service.url, 'POST', '/api/transaction', {
        body: fixtureText(`${client}/create.json`).replace('{postbackUrl}', `${receiver.url}/shape`),
        headers: { 'content-type': 'application/json' },
      });
      expect(created.status, created.text).toBe(200);
      const tx = await expectParsable(created.json.Id as string, client);
      expect(tx.Status).toBe(5);
    }
  });

  it('at 10, 30 (signed), 40 (rejected), 60 (cancelled, during the grace period), with every postback', async () => {
    const signed = await started({ Seal: true, Signers: [{ SendSignRequest: false, Email: 'a@example.com', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] }] });
    let tx = await expectParsable(signed.id, 'at 10');
    expect(tx.Status).toBe(10);
    expect(tx.Signers[0]).toMatchObject({ ShowUrl: expect.stringMatching(/\/show\//), ReceiptUrl: expect.stringMatching(/\/receipt\//) });
    const [token] = signed.tokens as [string];
    expect((await signer(token, 'POST', '/verification', { Type: 'Consent' })).status).toBe(200);
    expect((await signer(token, 'POST', '/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'A' })).status).toBe(200);
    expect((await signer(token, 'POST', '/sign', { Fields: {} })).status).toBe(200);
    await s.service.server.events.drain();
    tx = await expectParsable(signed.id, 'at 30');
    expect(tx.Status).toBe(30);
    // Info is there for the activities that have one and left out for the others (docs/design/api.md#response-values).
    for (const activity of tx.Signers[0].Activities as Json[]) expect(activity.Info === undefined || typeof activity.Info === 'string').toBe(true);

    const rejected = await started({ Signers: [{ SendSignRequest: false, Email: 'b@example.com', Verifications: [{ Type: 'Consent' }] }] });
    expect((await signer(rejected.tokens[0] as string, 'POST', '/reject', { Reason: 'No' })).status).toBe(202);
    tx = await expectParsable(rejected.id, 'at 40');
    expect(tx).toMatchObject({ Status: 40, Signers: [{ RejectReason: 'No' }] });

    const cancelled = await started({ Signers: [{ SendSignRequest: false, Email: 'c@example.com' }] });
    const deleted = await call(s.service.url, 'DELETE', `/api/transaction/${cancelled.id}`);
    expect(responseShapeProblems(deleted.json)).toEqual([]);
    expect(deleted.json).not.toHaveProperty('CancelationReason');
    tx = await expectParsable(cancelled.id, 'at 60');
    expect(tx.Status).toBe(60);

    await s.service.server.events.drain();
    const postbacks = receiver.received.filter((r) => r.path === '/shape');
    expect(postbacks.map((r) => JSON.parse(r.body).Status)).toEqual(expect.arrayContaining([10, 30, 40, 60]));
    for (const postback of postbacks) {
      const { Checksum: checksum, ...body } = JSON.parse(postback.body) as Json;
      expect(typeof checksum).toBe('string');
      expect(responseShapeProblems(body), postback.body).toEqual([]);
    }
  });
});

describe('the OpenAPI document the service serves', () => {
  /** The property paths of `value` that `schema` does not name (following arrays, records and the verification oneOf). */
  let components: Json = {};
  /** A schema with its `$ref` to a named schema followed. */
  const deref = (schema: Json | undefined): Json | undefined =>
    typeof schema?.$ref === 'string' ? deref(components[(schema.$ref as string).replace('#/components/schemas/', '')] as Json) : schema;
  function undocumented(refOrSchema: Json | undefined, value: unknown, path: string): string[] {
    const schema = deref(refOrSchema);
    if (Array.isArray(value)) return value.flatMap((item, i) => undocumented(schema?.items as Json | undefined, item, `${path}[${i}]`));
    if (typeof value !== 'object' || value === null) return [];
    const branch: Json | undefined = schema?.oneOf
      ? (schema.oneOf as Json[]).map(deref).find((b) => (b?.properties?.Type?.const ?? b?.properties?.Type?.enum?.[0]) === (value as Json).Type)
      : schema;
    return Object.entries(value).flatMap(([key, item]) => {
      const child = (branch?.properties as Json | undefined)?.[key] ??
        (typeof branch?.additionalProperties === 'object' ? branch.additionalProperties : undefined) ??
        (branch?.patternProperties ? Object.values(branch.patternProperties as Json)[0] : undefined);
      const at = path === '' ? key : `${path}.${key}`;
      if (child === undefined) return [at];
      // A schema that says nothing about its members (Context, identity Attributes) takes any JSON.
      const structured = ['properties', 'items', 'oneOf', 'patternProperties', 'additionalProperties'].some((k) => k in (child as Json));
      return structured ? undocumented(child as Json, item, at) : [];
    });
  }

  it('names every property the clients and the OpenAPI examples send', async () => {
    const openapi = (await call(s.service.url, 'GET', '/api/openapi.json', { auth: false })).json as Json;
    components = openapi.components.schemas as Json;
    const createSchema = openapi.paths['/api/transaction'].post.requestBody.content['application/json'].schema as Json;
    const metadataSchema = openapi.paths['/api/transaction/{transactionId}/file/{fileId}'].put.requestBody.content['application/json'].schema as Json;
    for (const [file, schema] of [
      ...CLIENTS.map((client) => [`${client}/create.json`, createSchema] as const),
      ...CLIENTS.map((client) => [`${client}/file-metadata.json`, metadataSchema] as const),
      ['openapi/create-verifications.json', createSchema] as const,
    ]) {
      expect(undocumented(schema, JSON.parse(fixtureText(file)), ''), file).toEqual([]);
    }
  });
});
