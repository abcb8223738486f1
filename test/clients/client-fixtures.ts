/**
 * What the client tests share: the recorded client flows of fixtures/clients/ (see its README), a
 * request builder that puts a fixture's bytes on the wire unchanged, a service with a known postback secret and a log
 * sink for SMS codes, and the response-shape check: every v1 body against the schema derived from Signhost's OpenAPI
 * with the non-nullable properties of the official .NET models required and never null.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { APP_KEY, USER_TOKEN, captureLog, startTestService, type TestService } from '../helpers/service-harness.js';

const FIXTURES = new URL('../../fixtures/clients/', import.meta.url);

/** The clients whose flows are recorded. */
export const CLIENTS = ['dotnet-v5', 'dotnet-v4', 'python'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** The account's postback secret in these tests. */
export const POSTBACK_SECRET = 'client-fixture-secret';

/** One step of a recorded flow: an HTTP request as the client sends it, or something that happens meanwhile. */
export interface FlowStep {
  readonly step: string;
  readonly action?: string;
  readonly method?: string;
  /** Relative to `<base>/api/`, as the client builds it (its own percent-encoding); `{id}` is the transaction. */
  readonly path?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A fixture file of the client's directory, or `{pdf}`. */
  readonly body?: string;
  readonly status?: number;
}

/** A recorded client flow (`fixtures/clients/<client>/flow.json`). */
export interface ClientFlow {
  readonly client: string;
  readonly serializer: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly fileId: string;
  readonly steps: readonly FlowStep[];
}

/** A fixture file's exact text. */
export function fixtureText(path: string): string {
  return readFileSync(new URL(path, FIXTURES), 'utf8');
}

/** A client's recorded flow. */
export function readFlow(client: ClientName): ClientFlow {
  return JSON.parse(fixtureText(`${client}/flow.json`)) as ClientFlow;
}

/** Values the placeholders of a flow stand for. */
export interface FlowValues {
  readonly baseUrl: string;
  readonly postbackUrl: string;
  id: string;
  readonly pdf: Uint8Array;
}

/** Builds the request of an HTTP step: the fixture's bytes with only `{postbackUrl}` filled in. */
export function buildRequest(client: ClientName, flow: ClientFlow, step: FlowStep, values: FlowValues): { url: string; init: RequestInit } {
  const sha256 = createHash('sha256').update(values.pdf).digest('base64');
  const fill = (text: string) =>
    text.replaceAll('{id}', values.id).replaceAll('{appKey}', APP_KEY).replaceAll('{userToken}', USER_TOKEN).replaceAll('{sha256}', sha256);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...flow.headers, ...step.headers })) headers[name] = fill(value);
  let body: string | Uint8Array | undefined;
  if (step.body === '{pdf}') body = values.pdf;
  else if (step.body !== undefined) body = fixtureText(`${client}/${step.body}`).replaceAll('{postbackUrl}', values.postbackUrl);
  return {
    url: `${values.baseUrl}/api/${fill(step.path ?? '')}`,
    init: { method: step.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) },
  };
}

/** The test service, with the account's postback secret set and every log line kept (the SMS codes are logged). */
export interface ClientTestService {
  readonly service: TestService;
  smsCode(signerId: string): string | undefined;
}

/** Starts it. */
export async function startClientTestService(): Promise<ClientTestService> {
  const log = captureLog();
  const service = await startTestService({ logger: log.logger, env: { PARAPH_POSTBACK_SECRET: POSTBACK_SECRET } });
  return { service, smsCode: log.smsCode };
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validateTransaction = ajv.compile(JSON.parse(fixtureText('signhost-response.schema.json')) as object);

/**
 * Problems of a version-1 transaction body (GET, create, DELETE, postback) against the schema derived from Signhost's
 * OpenAPI (fixtures/clients/signhost-response.schema.json); empty when a .NET client can parse it.
 */
export function responseShapeProblems(body: unknown): string[] {
  if (validateTransaction(body)) return [];
  return (validateTransaction.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

/** The Checksum the .NET `SignhostApiReceiver` computes: SHA-1 of `Id||Status|secret`, lowercase hex. */
export function receiverChecksum(body: { Id: string; Status: number }, secret: string): string {
  return createHash('sha1').update(`${body.Id}||${body.Status}|${secret}`, 'utf8').digest('hex');
}
