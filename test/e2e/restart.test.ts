/**
 * Restarting the service between every two steps of a flow loses nothing: the same data directory, the
 * same port, a new process state each time; the CAs and the account survive, and the flow completes with a sealed
 * PDF and receipt that verify against the CA served before the first restart.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { pemToDer } from '../../src/pades/keys/software.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { verifyReceipt } from '../../src/receipt/verify-receipt.js';
import { pdfsigCheck } from '../helpers/external-tools.js';
import { TestClock, call, digestHeader, freePort, makePdf, startTestService, tempDataDir, type TestService } from '../helpers/service-harness.js';

let current: TestService | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  await current?.dispose();
});

describe('restart between every two steps', () => {
  it('completes a metadata + PDF + seal flow with a restart after each request', async () => {
    dataDir = await tempDataDir();
    const port = await freePort();
    const clock = new TestClock();
    const restart = async (): Promise<TestService> => {
      await current?.stop();
      clock.advance(60_000);
      current = await startTestService({ dataDir, port, clock });
      return current;
    };

    let s = await restart();
    const sealCa = (await call(s.url, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    const signingCa = (await call(s.url, 'GET', '/api/ca/signing.pem', { auth: false })).text;

    s = await restart();
    expect((await call(s.url, 'GET', '/api/ca/seal.pem', { auth: false })).text).toBe(sealCa);
    expect((await call(s.url, 'GET', '/api/ca/signing.pem', { auth: false })).text).toBe(signingCa);
    const created = await call(s.url, 'POST', '/api/transaction', { json: { Seal: true, Reference: 'restart' } });
    expect(created.status).toBe(200);
    const id = created.json.Id as string;

    s = await restart();
    const metadata = { DisplayName: 'Restarted', FormSets: { seal: { Seal: { Type: 'Seal', Location: { Search: '{{Seal}}' } } } } };
    expect((await call(s.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { json: metadata })).status).toBe(202);

    s = await restart();
    const pdf = await makePdf([['Document', '{{Seal}}']]);
    const upload = await call(s.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf', digest: await digestHeader(pdf) } });
    expect(upload.status).toBe(201);

    s = await restart();
    const beforeStart = await call(s.url, 'GET', `/api/transaction/${id}`);
    expect(beforeStart.json).toMatchObject({ Status: 5, Files: { 'doc.pdf': { DisplayName: 'Restarted' } } });
    expect((await call(s.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);

    s = await restart();
    expect((await call(s.url, 'GET', `/api/transaction/${id}`)).json.Status).toBe(30);

    s = await restart();
    const sealed = await call(s.url, 'GET', `/api/transaction/${id}/file/doc.pdf`);
    expect(sealed.status).toBe(200);
    const sig = await pdfsigCheck(sealed.bytes);
    expect(sig.signatures.map((x) => [x.fieldName, x.valid])).toEqual([['seal.Seal', true]]);
    const report = await verifyPdf(sealed.bytes, { trustRoots: [sealCa], now: clock.now() });
    expect(report.valid, report.problems.join('\n')).toBe(true);

    s = await restart();
    const receipt = await call(s.url, 'GET', `/api/file/receipt/${id}`);
    expect(receipt.status).toBe(200);
    const verdict = await verifyReceipt(receipt.bytes, { trustRoots: [pemToDer(sealCa)], now: clock.now() });
    expect(verdict.ok, verdict.problems.join('\n')).toBe(true);
    expect(verdict.attachment?.entries.map((e) => e.type)).toEqual([
      'transaction.created',
      'metadata.uploaded',
      'file.uploaded',
      'transaction.started',
      'transaction.sealed',
      'document.finalized',
      'transaction.completed',
    ]);
  }, 120_000);
});
