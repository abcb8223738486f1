/**
 * Pathological PDFs from the hazard corpus are uploaded to a running service (with metadata
 * that searches their text) while ordinary seal transactions proceed. Each hazard gets its answer (400 naming the
 * page, or accepted after normalization with both SHA-256s in the audit trail), every ordinary transaction completes,
 * and the process's resident memory comes back to where it was.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../src/testing/start-test-service.js';
import { qpdfCheck } from '../helpers/external-tools.js';

const CORPUS = join(import.meta.dirname, '../../fixtures/corpus');
const CONTRACT = readFileSync(join(import.meta.dirname, '../../fixtures/sample/contract.pdf'));
const METADATA = { FormSets: { main: { sig: { Type: 'Signature', Location: { Search: '{{Signer1}}' } } } } };

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ env: { PARAPH_TEXT_PAGE_MS: '10000', PARAPH_TEXT_MAX_HEAP_MB: '512' } });
});
afterAll(async () => {
  await service?.dispose();
});

async function newTransaction(): Promise<string> {
  const created = await service.client.request('POST', '/api/transaction', { json: { Seal: true } });
  expect(created.status).toBe(200);
  return (created.json as { Id: string }).Id;
}

async function uploadPdf(id: string, fileId: string, pdf: Uint8Array): Promise<{ status: number; json: unknown }> {
  return service.client.request('PUT', `/api/transaction/${id}/file/${fileId}`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
}

/** A seal-only transaction from creation to status 30 with the sample contract. */
async function sealContract(): Promise<number> {
  const id = await newTransaction();
  expect((await uploadPdf(id, 'contract.pdf', CONTRACT)).status).toBe(201);
  expect((await service.client.request('PUT', `/api/transaction/${id}/start`)).status).toBe(204);
  const got = await service.client.request('GET', `/api/transaction/${id}`);
  return (got.json as { Status: number }).Status;
}

/** Uploads metadata that searches `{{Signer1}}` and then the hazard PDF, so its text is indexed at upload. */
async function uploadHazard(file: string): Promise<{ id: string; status: number; message?: string }> {
  const id = await newTransaction();
  expect((await service.client.request('PUT', `/api/transaction/${id}/file/doc`, { json: METADATA })).status).toBe(202);
  const answer = await uploadPdf(id, 'doc', readFileSync(join(CORPUS, file)));
  return { id, status: answer.status, ...(answer.status >= 400 ? { message: (answer.json as { Message: string }).Message } : {}) };
}

function rssMb(): number {
  return process.memoryUsage.rss() / 1048576;
}

describe('hazardous uploads to a running service', () => {
  it('answers each hazard while other transactions complete, and memory comes back', async () => {
    expect(await sealContract()).toBe(30); // warm: pdf.js threads, keys, store
    const baseline = rssMb();

    // The cycle alone with ordinary transactions, then the other hazards with more ordinary transactions. PDFium, the
    // default engine, breaks the cycle itself and reads the page (as poppler does); pdf.js refuses it (corpus.test.ts).
    const [cycle, first] = await Promise.all([uploadHazard('form-pattern-cycle.pdf'), Promise.all([sealContract(), sealContract(), sealContract()])]);
    expect(first).toEqual([30, 30, 30]);
    expect(cycle).toMatchObject({ status: 201 });

    const hazards = Promise.all([
      uploadHazard('type3-huge-image.pdf'),
      uploadHazard('flate-bomb.pdf'),
      uploadHazard('empty-password-aes256.pdf'),
      uploadHazard('broken-xref.pdf'),
    ]);
    const [[type3, bomb, encrypted, broken], second] = await Promise.all([hazards, Promise.all([sealContract(), sealContract()])]);
    expect(second).toEqual([30, 30]);
    expect([type3, bomb, encrypted, broken].map((r) => r.message)).toEqual([undefined, undefined, undefined, undefined]);
    expect(type3.status).toBe(201);
    expect(bomb.status).toBe(201);
    expect(encrypted.status).toBe(201);
    expect(broken.status).toBe(201);

    // The service works on the rewrite; the audit trail keeps the upload's SHA-256 and why it was rewritten.
    for (const [normalized, file, reason] of [
      [encrypted, 'empty-password-aes256.pdf', 'encrypted-empty-password'],
      [broken, 'broken-xref.pdf', 'damaged-xref'],
    ] as const) {
      const uploaded = readFileSync(join(CORPUS, file));
      const stored = await service.client.request('GET', `/api/transaction/${normalized.id}/file/doc`);
      expect(stored.status).toBe(200);
      expect((await qpdfCheck(stored.bytes)).ok).toBe(true);
      const entries = await service.server.store.listAuditEntries(normalized.id);
      const upload = entries.find((e) => e.type === 'file.uploaded');
      expect(upload?.data).toMatchObject({
        sha256: createHash('sha256').update(stored.bytes).digest('hex'),
        normalizedFrom: { sha256: createHash('sha256').update(uploaded).digest('hex'), bytes: uploaded.length, reason: expect.stringMatching(new RegExp(`^${reason}: `)) },
      });
    }

    // Extraction threads end or go idle (10 s); memory held for the hazards is given back.
    let settled = rssMb();
    for (let i = 0; i < 60 && settled > baseline + 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      settled = rssMb();
    }
    expect(settled, `RSS ${Math.round(settled)} MB, baseline ${Math.round(baseline)} MB`).toBeLessThanOrEqual(baseline + 200);
    expect(await sealContract()).toBe(30);
  });
});
