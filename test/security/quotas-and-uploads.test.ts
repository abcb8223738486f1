/**
 * Against a real `paraph serve`, a refused upload (not a PDF, more pages than
 * `PARAPH_MAX_PAGES`) leaves nothing in the blob store; an account that uses up
 * its storage quota (`PARAPH_ACCOUNT_STORAGE_BYTES`) or its request rate (`PARAPH_ACCOUNT_REQUESTS_PER_MINUTE`) gets
 * 429 `{"Message"}` with `Retry-After`. (Stream inflation budgets and the page limit inside the PDF parser are the
 * real-world-PDF work's tests.)
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makePdf, spawnServe, type ServeProcess } from '../helpers/service-harness.js';

const served: ServeProcess[] = [];
afterAll(async () => {
  for (const s of served) await s.dispose();
});

/** Blob files in the data directory (temporary files excluded). */
async function blobFiles(dataDir: string): Promise<string[]> {
  const entries = await readdir(join(dataDir, 'blobs'), { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && /^[0-9a-f]{64}$/.test(e.name)).map((e) => e.name);
}

describe('uploads and quotas', () => {
  it('removes refused uploads at once, applies the page limit and the storage and rate quotas with 429 and Retry-After', async () => {
    const onePage = await makePdf([['One page']]);
    const serve = await spawnServe({
      env: { PARAPH_MAX_PAGES: '2', PARAPH_ACCOUNT_STORAGE_BYTES: String(3 * onePage.length + 100), PARAPH_ACCOUNT_REQUESTS_PER_MINUTE: '40' },
    });
    served.push(serve);
    const put = (id: string, fileId: string, body: Uint8Array) =>
      serve.call('PUT', `/api/transaction/${id}/file/${fileId}`, { body, headers: { 'content-type': 'application/pdf' } });
    const tx = (await serve.call('POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;

    const garbage = new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(500, 0x41)]));
    const notPdf = await put(tx, 'garbage.pdf', garbage);
    expect(notPdf.status).toBe(400);
    expect(notPdf.json).toEqual({ Message: expect.any(String) });

    const threePages = await makePdf([['1'], ['2'], ['3']]);
    const tooMany = await put(tx, 'long.pdf', threePages);
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.Message).toBe('The PDF has 3 pages; this service accepts at most 2.');

    expect(await blobFiles(serve.dataDir)).toEqual([]);

    // Storage quota: three one-page PDFs fit, the fourth does not (and is not kept).
    for (const [i, page] of ['a', 'b', 'c'].entries()) {
      const pdf = await makePdf([[`Document ${page}`]]);
      expect((await put(tx, `doc${i}.pdf`, pdf)).status).toBe(201);
    }
    const kept = await blobFiles(serve.dataDir);
    const over = await put(tx, 'doc3.pdf', await makePdf([['Document d, a little longer than the others']]));
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.json.Message).toContain('storage quota');
    expect((await blobFiles(serve.dataDir)).sort()).toEqual(kept.sort());

    // Rate quota: 40 per minute, so a burst of 50 sees 429s with Retry-After.
    const answers = await Promise.all(Array.from({ length: 50 }, () => serve.call('GET', `/api/transaction/${tx}`)));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    for (const a of limited) {
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(a.json.Message).toMatch(/^Too many requests/);
    }
    // Another account's quota, and the unauthenticated /health, are not affected.
    expect((await serve.call('GET', '/health', { auth: false })).status).toBe(200);
  }, 180_000);
});
