/**
 * Child process of serving-thread.test.ts (not a test itself): runs a whole transaction in this process — upload,
 * metadata with a Search, start, a signer's scribble and signature, the seal, downloads — against the service started
 * in-process, then prints which of pdf.js's globals this (the serving) thread has; then loads pdf.js here on purpose
 * and prints them again, to show the probe would see it. One JSON line on stdout.
 */
import { createTestClient, startTestService } from '../../src/testing/start-test-service.js';
import { makePdf } from '../helpers/service-harness.js';
import { SCRIBBLE_DATA_URL } from '../service/signer/signer-fixture.js';

/** Globals the legacy build of pdf.js (and its core-js polyfills) sets or replaces when it is loaded. */
function pdfjsTraces(): string[] {
  const traces: string[] = [];
  if (Reflect.get(globalThis, 'pdfjsLib') !== undefined) traces.push('globalThis.pdfjsLib');
  if (Reflect.get(globalThis, '__core-js_shared__') !== undefined) traces.push("globalThis['__core-js_shared__']");
  const native = (f: unknown): boolean => typeof f === 'function' && Function.prototype.toString.call(f).includes('[native code]');
  // eslint-disable-next-line @typescript-eslint/unbound-method
  if (!native(Array.prototype.push)) traces.push('Array.prototype.push');
  // eslint-disable-next-line @typescript-eslint/unbound-method
  if (!native(JSON.stringify)) traces.push('JSON.stringify');
  return traces;
}

function expectStatus(step: string, actual: number, expected: number, body: string): void {
  if (actual !== expected) throw new Error(`${step}: status ${actual}, expected ${expected}: ${body}`);
}

const service = await startTestService();
const steps: string[] = [];
try {
  const client = createTestClient(service.url);
  const created = await client.request('POST', '/api/transaction', { json: { Seal: true, Signers: [{ SendSignRequest: false, Email: 'alice@example.com' }] } });
  expectStatus('create', created.status, 200, created.text);
  const tx = created.json as { Id: string; Signers: { SignUrl: string }[] };
  const pdf = await makePdf([['Contract between the parties'], ['Signed by the parties', 'Sign here']]);
  const put = await client.request('PUT', `/api/transaction/${tx.Id}/file/contract.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
  expectStatus('upload', put.status, 201, put.text);
  const metadata = {
    Signers: { Signer1: { FormSets: ['fs'] } },
    FormSets: { fs: { Sign: { Type: 'Signature', Location: { Search: 'Sign here', Top: 20 } }, Parties: { Type: 'Check', Location: { Search: 'parties' } } } },
  };
  const meta = await client.request('PUT', `/api/transaction/${tx.Id}/file/contract.pdf`, { json: metadata });
  expectStatus('metadata', meta.status, 204, meta.text);
  steps.push('uploaded');
  expectStatus('start', (await client.request('PUT', `/api/transaction/${tx.Id}/start`)).status, 204, '');
  const token = tx.Signers[0]!.SignUrl.split('/sign/')[1]!;
  const signer = (method: string, path: string, json?: unknown) =>
    client.request(method, `/api/signer/${token}${path}`, { auth: false, ...(json !== undefined ? { json } : {}) });
  const scribble = await signer('POST', '/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Alice' });
  expectStatus('scribble', scribble.status, 200, scribble.text);
  const signed = await signer('POST', '/sign', { Fields: {} });
  expectStatus('sign', signed.status, 200, signed.text);
  steps.push('signed');
  const status = (await client.request('GET', `/api/transaction/${tx.Id}`)).json as { Status: number };
  if (status.Status !== 30) throw new Error(`status ${status.Status} after signing, expected 30`);
  expectStatus('download', (await client.request('GET', `/api/transaction/${tx.Id}/file/contract.pdf`)).status, 200, '');
  expectStatus('receipt', (await client.request('GET', `/api/file/receipt/${tx.Id}`)).status, 200, '');
  steps.push('sealed');
} finally {
  await service.dispose();
}
const afterFlow = pdfjsTraces();
await import('pdfjs-dist/legacy/build/pdf.mjs');
const afterLoadingPdfjs = pdfjsTraces();
process.stdout.write(`${JSON.stringify({ steps, afterFlow, afterLoadingPdfjs })}\n`);
