/**
 * Prism (`@stoplight/prism-cli`) as a validating proxy in front of the service, judging the traffic by the document
 * the service serves: a whole flow goes through it — create, file metadata and PDF upload, start, poll, a signer's
 * journey through the signer API, the signed file and the receipt — and Prism finds no request and no response that
 * the document does not describe; nor in the documented refusals (invalid JSON, wrong credentials, unknown file,
 * receipt or signer token) and a cancellation with and without a body, sent twice. With `--errors` Prism answers
 * 422 (request) or 500 (response) in place of a violating exchange; every violation of any severity also goes into
 * its `sl-violations` header and its log.
 *
 * The flow reads transactions as version 1 (plain JSON) only: Prism 5 picks a response schema by comparing media
 * types on their `+json` suffix alone, so it would judge a `application/vnd.signhost.v2+json` answer by the first
 * JSON schema listed (version 1). Version 2 answers are checked by the Ajv contract check every test runs under.
 * Prism 5 also proxies every non-JSON body as UTF-8 text, so a byte above 0x7F does not survive it in either
 * direction: the uploaded PDF is plain ASCII (uncompressed), and the PDFs downloaded through it are judged by status
 * and media type, their bytes read from the service directly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_HEADERS, startTestService, type TestService } from '../helpers/service-harness.js';
import { SCRIBBLE_DATA_URL } from '../service/signer/signer-fixture.js';

interface Exchange {
  readonly status: number;
  readonly contentType: string;
  readonly bytes: Uint8Array;
  readonly json: unknown;
}

let service: TestService;
let prism: ChildProcess;
let proxy: string;
let dir: string;
let log = '';
/** What Prism said about each exchange it judged: its `sl-violations` header, or the problem it answered instead. */
const violations: string[] = [];

beforeAll(async () => {
  service = await startTestService();
  dir = await mkdtemp(join(tmpdir(), 'paraph-prism-'));
  const documentFile = join(dir, 'openapi.json');
  await writeFile(documentFile, await (await fetch(`${service.url}/api/openapi.json`)).text());
  const cli = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');
  prism = spawn(process.execPath, [cli, 'proxy', documentFile, service.url, '--errors', '--host', '127.0.0.1', '--port', '0', '--multiprocess', 'false'], {
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proxy = await new Promise<string>((resolve, reject) => {
    const seen = (chunk: Buffer): void => {
      log += chunk.toString('utf8');
      const listening = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (listening?.[1] !== undefined) resolve(listening[1]);
    };
    prism.stdout?.on('data', seen);
    prism.stderr?.on('data', seen);
    prism.once('exit', (code) => reject(new Error(`Prism exited (${String(code)}) before listening:\n${log}`)));
  });
});
afterAll(async () => {
  if (prism !== undefined && prism.exitCode === null) {
    const exited = new Promise((resolve) => prism.once('exit', resolve));
    prism.kill();
    await exited;
  }
  await service?.dispose();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** One request through Prism; its verdict on the exchange is recorded. */
async function via(
  method: string,
  path: string,
  options: { json?: unknown; raw?: string; pdf?: Uint8Array; auth?: boolean; accept?: string; headers?: Record<string, string> } = {},
): Promise<Exchange> {
  const headers: Record<string, string> = { ...(options.auth === false ? {} : AUTH_HEADERS), accept: options.accept ?? 'application/json', ...options.headers };
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (options.json !== undefined || options.raw !== undefined) {
    headers['content-type'] = 'application/json';
    body = options.raw ?? JSON.stringify(options.json);
  } else if (options.pdf !== undefined) {
    headers['content-type'] = 'application/pdf';
    body = new Uint8Array(options.pdf);
  }
  const response = await fetch(`${proxy}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const contentType = response.headers.get('content-type') ?? '';
  const reported = response.headers.get('sl-violations');
  if (reported !== null) violations.push(`${method} ${path} → ${response.status}: ${reported}`);
  if (contentType.startsWith('application/problem+json')) violations.push(`${method} ${path}: Prism answered ${response.status} ${Buffer.from(bytes).toString('utf8')}`);
  const text = Buffer.from(bytes).toString('utf8');
  return { status: response.status, contentType, bytes, json: contentType.includes('json') && text !== '' ? (JSON.parse(text) as unknown) : undefined };
}

/** A one-page PDF of ASCII bytes only (uncompressed content, no binary comment), with its cross-reference table. */
function asciiPdf(lines: readonly string[]): Uint8Array {
  const text = lines.map((line, i) => `BT /F1 12 Tf 72 ${742 - i * 20} Td (${line}) Tj ET`).join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
  ];
  let pdf = '%PDF-1.7\n';
  const offsets = objects.map((body, i) => {
    const offset = pdf.length;
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(pdf);
}

const field = (value: unknown, ...keys: (string | number)[]): unknown =>
  keys.reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[key] : undefined), value);

describe('Prism as a validating proxy over a full flow', () => {
  it('finds no request and no response off the document: create, upload, start, poll, sign, download signed file and receipt', async () => {
    const created = await via('POST', '/api/transaction', {
      json: {
        Reference: 'prism-flow',
        Seal: true,
        Signers: [{ Email: 'signer@example.com', SignRequestMessage: 'Please sign the contract.', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] }],
      },
    });
    expect(created.status).toBe(200);
    const id = field(created.json, 'Id') as string;

    const metadata = {
      DisplayName: 'Contract',
      Signers: { Signer1: { FormSets: ['f'] } },
      FormSets: {
        f: {
          sig: { Type: 'Signature', Location: { PageNumber: 1, Left: 300, Top: 200, Width: 200, Height: 80 } },
          city: { Type: 'SingleLine', Location: { PageNumber: 1, Left: 72, Top: 240, Width: 150, Height: 20 } },
        },
      },
    };
    expect((await via('PUT', `/api/transaction/${id}/file/contract`, { json: metadata })).status).toBe(202);
    const pdf = asciiPdf(['Contract between the parties', 'Article 1. Scope']);
    expect((await via('PUT', `/api/transaction/${id}/file/contract`, { pdf })).status).toBe(201);
    expect((await via('PUT', `/api/transaction/${id}/start`)).status).toBe(204);

    const started = await via('GET', `/api/transaction/${id}`);
    expect(field(started.json, 'Status')).toBe(10);
    const signUrl = field(started.json, 'Signers', 0, 'SignUrl') as string;
    const token = signUrl.split('/sign/')[1] as string;

    const session = await via('GET', `/api/signer/${token}`, { auth: false });
    expect(field(session.json, 'State')).toBe('verify');
    expect(field(session.json, 'Documents', 0, 'Fields', 1, 'Key')).toBe('city');
    const shown = await via('GET', `/api/signer/${token}/file/contract`, { auth: false, accept: 'application/pdf' });
    expect(shown.status).toBe(200);
    expect((await via('POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'Consent' } })).status).toBe(200);
    expect((await via('POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Sam Signer' } })).status).toBe(200);
    const signed = await via('POST', `/api/signer/${token}/sign`, { auth: false, json: { Fields: { contract: { city: 'Delft' } } } });
    expect(signed.status).toBe(200);
    expect(field(signed.json, 'SignerStatus')).toBe('signed');

    let status: unknown;
    for (let poll = 0; poll < 100 && status !== 30; poll++) {
      if (poll > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      status = field((await via('GET', `/api/transaction/${id}`)).json, 'Status');
    }
    expect(status).toBe(30);

    const download = await via('GET', `/api/transaction/${id}/file/contract`, { accept: 'application/pdf' });
    expect(download.status).toBe(200);
    expect(download.contentType).toBe('application/pdf');
    const signedPdf = (await service.client.request('GET', `/api/transaction/${id}/file/contract`)).bytes;
    expect(Buffer.from(signedPdf.subarray(0, pdf.length - 6)).equals(Buffer.from(pdf.subarray(0, pdf.length - 6)))).toBe(true);
    const receipt = await via('GET', `/api/file/receipt/${id}`, { accept: 'application/pdf' });
    expect(receipt.status).toBe(200);
    expect(receipt.contentType).toBe('application/pdf');

    expect(violations).toEqual([]);
    expect(log).not.toMatch(/Violation:/);
  });

  it('finds the documented refusals and the cancellation on the document too', async () => {
    const created = await via('POST', '/api/transaction', { json: { Reference: null, PostbackUrl: null, Signers: [{ Email: 'a@example.com', SendSignRequest: false }] }, accept: '*/*' });
    expect(created.status).toBe(200);
    const id = field(created.json, 'Id') as string;
    expect((await via('POST', '/api/transaction', { raw: '{"Signers": [' })).status).toBe(400);
    expect((await via('GET', `/api/transaction/${id}`, { headers: { authorization: 'APIKey not-the-token' } })).status).toBe(401);
    expect((await via('PUT', `/api/transaction/${id}/start`)).status).toBe(400);
    expect((await via('GET', `/api/transaction/${id}/file/missing`, { accept: 'application/pdf' })).status).toBe(404);
    expect((await via('GET', `/api/file/receipt/${id}`, { accept: 'application/pdf' })).status).toBe(404);
    expect((await via('GET', '/api/signer/no-such-token', { auth: false })).status).toBe(404);
    expect((await via('POST', '/api/signer/no-such-token/reject', { auth: false, json: { Reason: 'No.' } })).status).toBe(404);
    expect((await via('DELETE', `/api/transaction/${id}`, { json: { SendNotifications: false, Reason: 'Replaced by a new contract.' } })).status).toBe(200);
    expect((await via('DELETE', `/api/transaction/${id}`)).status).toBe(200);
    expect(field((await via('GET', `/api/transaction/${id}`)).json, 'Status')).toBe(60);
    expect((await via('GET', '/health', { auth: false })).status).toBe(200);
    expect((await via('GET', '/api/ca/seal.pem', { auth: false, accept: '*/*' })).status).toBe(200);
    expect(violations).toEqual([]);
    expect(log).not.toMatch(/Violation:/);
  });

  it('is a judge that speaks: a body off the document gets Prism’s 422 naming the property, and is not forwarded', async () => {
    const refused = await via('POST', '/api/transaction', { json: { Signers: 'not a list' } });
    expect(refused.status).toBe(422);
    expect(field(refused.json, 'validation', 0, 'location')).toEqual(['body', 'Signers']);
    expect(violations.splice(0)).toEqual([expect.stringContaining('POST /api/transaction: Prism answered 422')]);
  });
});
