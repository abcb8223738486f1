/**
 * A second generated client: `@hey-api/openapi-ts` builds a fetch SDK from the document the service serves; a
 * program using it (client/hey-api-journey.ts.template, no casts) type-checks strictly together with the generated
 * code, and runs a whole flow against the live service — create, metadata and PDF upload, start, poll, a signer's
 * journey through the signer API, the signed PDF and the receipt.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_HEADERS, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';
import { SCRIBBLE_DATA_URL } from '../service/signer/signer-fixture.js';

/** The `run` of client/hey-api-journey.ts.template (compiled against the generated SDK inside the test). */
type JourneyProgram = (
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  pdf: Uint8Array<ArrayBuffer>,
  scribble: string,
) => Promise<{
  statusAfterCreate: number;
  uploadStatuses: readonly number[];
  startStatus: number;
  statusAfterStart: number;
  sessionState: string;
  fieldKeys: readonly string[];
  shownBytes: number;
  verificationStatuses: readonly number[];
  signerStatus: string;
  finalStatus: number;
  signed: Uint8Array;
  receipt: Uint8Array;
}>;

const here = fileURLToPath(new URL('.', import.meta.url));

let service: TestService;
let dir: string | undefined;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.dispose();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('a client generated with @hey-api/openapi-ts', () => {
  it('type-checks strictly with a program that runs create, upload, start, poll, a signer journey and both downloads; the program runs', async () => {
    dir = await mkdtemp(join(here, 'client', '.hey-'));
    const document: unknown = (await service.client.request('GET', '/api/openapi.json', { auth: false })).json;
    await createClient({
      input: document as Record<string, unknown>,
      output: { path: join(dir, 'hey-api') },
      plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
      logs: { level: 'silent' },
    });
    const program = join(dir, 'journey.ts');
    await writeFile(program, await readFile(join(here, 'client', 'hey-api-journey.ts.template'), 'utf8'));
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
      skipLibCheck: true,
      noUncheckedIndexedAccess: true,
    };
    const problems = (compilerOptions: ts.CompilerOptions, only?: string): string[] =>
      ts
        .getPreEmitDiagnostics(ts.createProgram([program], compilerOptions))
        .filter((d) => only === undefined || d.file?.fileName === only)
        .map((d) => `${d.file?.fileName.slice(dir?.length) ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    // The generated SDK and the program together compile strictly; the program also with exact optional properties
    // (the generator's own fetch runtime is not written for that flag, so its files are left out of that check).
    expect(problems(options)).toEqual([]);
    expect(problems({ ...options, exactOptionalPropertyTypes: true }, program.replaceAll('\\', '/'))).toEqual([]);

    const { run } = (await import(pathToFileURL(program).href)) as { run: JourneyProgram };
    const pdf = new Uint8Array(await makePdf([['Contract between the parties', 'Article 1. Scope']]));
    const result = await run(service.url, AUTH_HEADERS, pdf, SCRIBBLE_DATA_URL);
    expect(result.statusAfterCreate).toBe(5);
    expect(result.uploadStatuses).toEqual([202, 201]);
    expect(result.startStatus).toBe(204);
    expect(result.statusAfterStart).toBe(10);
    expect(result.sessionState).toBe('verify');
    expect(result.fieldKeys).toEqual(['sig', 'city']);
    expect(result.shownBytes).toBeGreaterThan(pdf.length);
    expect(result.verificationStatuses).toEqual([200, 200]);
    expect(result.signerStatus).toBe('signed');
    expect(result.finalStatus).toBe(30);
    expect(Buffer.from(result.signed.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(Buffer.from(result.signed.subarray(0, pdf.length)).equals(Buffer.from(pdf))).toBe(true);
    expect(Buffer.from(result.receipt.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
  });
});
