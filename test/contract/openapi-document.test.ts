/**
 * The OpenAPI document is the contract: Redocly's linter finds no errors in it; the response check every
 * test runs under (response-contract.setup.ts) does refuse what the document does not describe; a TypeScript
 * client generated with `openapi-typescript` type-checks a program that creates, uploads, starts and reads a
 * transaction, and that program runs against the live service; the interactive page is served without any
 * third-party request.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_HEADERS, startTestService, type TestService } from '../../src/testing/start-test-service.js';
import { contractChecker, type OpenApiDocument } from './response-contract.js';

/** The `run` of client/create-and-start.ts.template (compiled against the generated types inside the test). */
type GeneratedClientProgram = (
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  pdf: Uint8Array<ArrayBuffer>,
  metadata: unknown,
) => Promise<{ statusAfterCreate: number; uploadStatuses: readonly number[]; startStatus: number; statusAfterStart: number; signUrl: string | null | undefined }>;

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
const run = promisify(execFile);

let service: TestService;
let document: OpenApiDocument & Record<string, unknown>;
beforeAll(async () => {
  service = await startTestService();
  const response = await service.client.request('GET', '/api/openapi.json', { auth: false });
  document = response.json as OpenApiDocument & Record<string, unknown>;
});
afterAll(async () => {
  await service.dispose();
});

describe('the served OpenAPI document', () => {
  it('has no errors in Redocly’s lint (recommended rules)', async () => {
    const dir = await mkdtemp(join(root, 'test', 'contract', '.lint-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(document));
      const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
      const result = await run(process.execPath, [cli, 'lint', file, '--format', 'json'], { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 * 1024 * 1024 }).catch(
        (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
      );
      const report = JSON.parse(result.stdout) as { totals: { errors: number }; problems: { severity: string; message: string }[] };
      expect(report.problems.filter((p) => p.severity === 'error').map((p) => p.message)).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names its schemas: both response versions, a Verification per type under a mapped discriminator, FileMetaData and Location', () => {
    const schemas = (document.components as { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown>; discriminator?: { mapping?: Record<string, string> } }> }).schemas;
    for (const name of ['TransactionV1', 'TransactionV2', 'SignerV1', 'ReceiverV1', 'Activity', 'PartialTransactionV1', 'FileMetaData', 'Location', 'ErrorModel', 'Status', 'Language', 'ActivityCode']) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(Object.keys(schemas.Verification?.discriminator?.mapping ?? {})).toContain('eIDAS Login');
    // Version 1 states its nulls: Reference is required and may be null; version 2 may leave it out.
    expect(schemas.TransactionV1?.required).toContain('Reference');
    expect(schemas.TransactionV1?.properties?.Reference).toEqual({ type: ['string', 'null'] });
    expect(schemas.TransactionV2?.required).not.toContain('Reference');
    expect(JSON.stringify(document)).not.toContain('InlineVerification');
  });

  it('documents the signer session with every property (Documents[].Fields included) and the postbacks as webhooks', () => {
    const schemas = (document.components as { schemas: Record<string, { properties?: Record<string, { items?: { properties?: Record<string, unknown> } }>; additionalProperties?: unknown }> }).schemas;
    const session = schemas.SignerSession;
    expect(session?.additionalProperties).toBe(false);
    expect(Object.keys(session?.properties ?? {})).toEqual(expect.arrayContaining(['WaitingFor', 'Documents', 'Verifications', 'ReturnUrl', 'ScribbleName', 'SecureDownload']));
    expect(Object.keys(session?.properties?.Documents?.items?.properties ?? {})).toContain('Fields');
    // Every key the session sends is PascalCase, as in the rest of the API (the fields and their widgets included).
    const keys: string[] = [];
    const collect = (schema: unknown): void => {
      if (schema === null || typeof schema !== 'object') return;
      const properties = (schema as { properties?: Record<string, unknown> }).properties;
      if (properties !== undefined) keys.push(...Object.keys(properties));
      for (const value of Object.values(schema)) collect(value);
    };
    collect(session);
    expect(keys).toEqual(expect.arrayContaining(['Fields', 'Key', 'Options', 'Widgets', 'PageNumber']));
    expect(keys.filter((key) => !/^[A-Z]/.test(key))).toEqual([]);
    const webhook = (document.webhooks as Record<string, { post?: { requestBody?: { content?: Record<string, unknown> } } }>).transactionPostback;
    expect(webhook?.post?.requestBody?.content?.['application/json']).toEqual({ schema: { oneOf: [{ $ref: '#/components/schemas/PostbackV1' }, { $ref: '#/components/schemas/PostbackV2' }] } });
    expect(schemas.PostbackV1?.properties).toHaveProperty('Checksum');
  });

  it('the response check refuses an undocumented status, a v1 body without its nulls and a wrong type', () => {
    const checker = contractChecker(document);
    const path = '/api/transaction/{transactionId}';
    const v2 = { Id: '0b6f6c2a-6d8e-4b5e-9a34-2f0c1f7f9e10', Status: 5, Files: {}, Seal: true, Signers: [], Receivers: [], SignRequestMode: 2, DaysToExpire: 30, Language: 'nl-NL', SendEmailNotifications: true, CreatedDateTime: '2026-11-21T10:00:00.000+00:00', ModifiedDateTime: '2026-11-21T10:00:00.000+00:00' };
    const json = 'application/json; charset=utf-8';
    const v2Type = 'application/vnd.signhost.v2+json; charset=utf-8';
    expect(checker.problem({ method: 'GET', path, status: 200, contentType: v2Type, body: JSON.stringify(v2) })).toBeUndefined();
    // Plain JSON is version 1: a body without its nulls is not what that media type describes.
    expect(checker.problem({ method: 'GET', path, status: 200, contentType: json, body: JSON.stringify(v2) })).toMatch(/does not match/);
    const v1 = { ...v2, Reference: null, PostbackUrl: null, CanceledDateTime: null, Context: null };
    expect(checker.problem({ method: 'GET', path, status: 200, contentType: json, body: JSON.stringify(v1) })).toBeUndefined();
    expect(checker.problem({ method: 'GET', path, status: 200, contentType: json, body: JSON.stringify({ ...v1, Seal: null }) })).toMatch(/does not match/);
    expect(checker.problem({ method: 'GET', path, status: 200, contentType: v2Type, body: JSON.stringify({ ...v2, Status: 7 }) })).toMatch(/does not match/);
    expect(checker.problem({ method: 'GET', path, status: 418, contentType: json, body: '{"Message":"x"}' })).toMatch(/status not documented/);
    expect(checker.problem({ method: 'GET', path, status: 200, contentType: 'text/html', body: '<p>' })).toMatch(/media type/);
  });

  it('serves the interactive page and its assets itself, with no third-party URL', async () => {
    const page = await service.client.request('GET', '/api/docs/static/index.html', { auth: false });
    expect(page.status).toBe(200);
    const initializer = await service.client.request('GET', '/api/docs/static/swagger-initializer.js', { auth: false });
    expect(initializer.status).toBe(200);
    // Scripts, styles and the document come from the service itself (a CDN would break offline use).
    expect(page.text).not.toMatch(/(?:src|href)=["']?(?:https?:)?\/\//);
    expect(initializer.text).not.toMatch(/url:\s*["']https?:/);
    expect((await service.client.request('GET', '/api/docs/static/swagger-ui-bundle.js', { auth: false })).status).toBe(200);
    expect((await service.client.request('GET', '/api/docs/json', { auth: false })).status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('every response carries helmet’s security headers; JSON may load nothing', async () => {
    const health = await service.client.request('GET', '/health', { auth: false });
    expect(health.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(health.headers.get('x-frame-options')).toBe('DENY');
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    expect(health.headers.get('referrer-policy')).toBe('no-referrer');
  });
});

describe('a client generated with openapi-typescript', () => {
  it('type-checks a program that creates, uploads metadata and the PDF, starts and reads; the program runs against the service', async () => {
    const dir = await mkdtemp(join(here, 'client', '.gen-'));
    try {
      const blob = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));
      const nodes = await openapiTS(JSON.stringify(document), {
        transform: (schema) => ('contentMediaType' in schema && schema.contentMediaType === 'application/pdf' ? blob : undefined),
      });
      await writeFile(join(dir, 'generated-paths.ts'), astToString(nodes));
      const program = join(dir, 'create-and-start.ts');
      await writeFile(program, await readFile(join(here, 'client', 'create-and-start.ts.template'), 'utf8'));
      const options: ts.CompilerOptions = {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        types: [],
        skipLibCheck: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
      };
      const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram([program], options));
      expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);

      const { run: runClient } = (await import(pathToFileURL(program).href)) as { run: GeneratedClientProgram };
      const pdf = new Uint8Array(await readFile(join(root, 'fixtures', 'sample', 'contract.pdf')));
      const metadata: unknown = JSON.parse(await readFile(join(root, 'fixtures', 'sample', 'metadata.json'), 'utf8'));
      const result = await runClient(service.url, AUTH_HEADERS, pdf, metadata);
      expect(result.statusAfterCreate).toBe(5);
      expect(result.uploadStatuses).toEqual([202, 201]);
      expect(result.startStatus).toBe(204);
      expect(result.statusAfterStart).toBe(10);
      expect(result.signUrl).toMatch(/\/sign\//);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
