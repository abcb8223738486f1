/**
 * No uploaded document can take the service down: a PDF that declares millions of objects is refused before it is
 * parsed, one whose parse runs out of heap is refused when its PDF process dies, and throughout `/health` answers and
 * an ordinary seal-only transaction completes in the same serving process.
 */
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../src/testing/start-test-service.js';
import { manyObjectsPdf } from '../pdf/many-objects-pdf.js';

const CONTRACT = readFileSync(join(import.meta.dirname, '../../fixtures/sample/contract.pdf'));

let service: TestService;
beforeAll(async () => {
  // The smallest heap the configuration allows, so that a document of a few MB runs a PDF process out of it.
  service = await startTestService({ env: { PARAPH_PDF_WORK_HEAP_MB: '64' } });
});
afterAll(async () => {
  await service?.dispose();
});

async function sealOnly(): Promise<string> {
  const created = await service.client.request('POST', '/api/transaction', { json: { Seal: true } });
  expect(created.status).toBe(200);
  return (created.json as { Id: string }).Id;
}

async function upload(id: string, pdf: Uint8Array): Promise<{ status: number; message?: string }> {
  const answer = await service.client.request('PUT', `/api/transaction/${id}/file/doc.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
  return { status: answer.status, ...(answer.status >= 400 ? { message: (answer.json as { Message: string }).Message } : {}) };
}

/** One `/health` request on a connection of its own (no keep-alive reuse race with the uploads' connections). */
function health(): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${service.url}/health`, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    }).on('error', reject);
  });
}

/** Asks `/health` every 50 ms until stopped; every answer must be a 200. */
function watchHealth(): { stop(): Promise<number[]> } {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      statuses.push(await health());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return statuses;
    },
  };
}

describe('uploads that would exhaust memory', () => {
  it('are refused with the count or PDF_TOO_COMPLEX while /health answers and a seal-only transaction completes', async () => {
    const watch = watchHealth();
    const declared = upload(await sealOnly(), manyObjectsPdf({ perStream: 1_500_000 }));
    const heavy = upload(await sealOnly(), manyObjectsPdf({ perStream: 300_000, nesting: 1 }));

    const id = await sealOnly();
    expect((await upload(id, CONTRACT)).status).toBe(201);
    expect((await service.client.request('PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    expect(((await service.client.request('GET', `/api/transaction/${id}`)).json as { Status: number }).Status).toBe(30);

    expect(await declared).toEqual({ status: 400, message: expect.stringMatching(/^The PDF declares 1,500,007 objects .*; paraph reads at most 1,000,000/) as unknown });
    expect(await heavy).toEqual({ status: 400, message: expect.stringMatching(/^The PDF is too complex to process \(it needs more than 64 MB of memory\)/) as unknown });
    const statuses = await watch.stop();
    expect(statuses.length).toBeGreaterThan(5);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});
