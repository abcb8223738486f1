/**
 * The pdf-lib steps of an upload (opening and normalizing, the page count, the
 * placement check) and of a start (writing the fields) run in worker threads with a heap cap and a time budget
 * (src/service/pdf-jobs/pdf-work.ts). A crafted PDF with a flat tree of 150,000 pages (15 MB) takes pdf-lib seconds: on the
 * serving thread /health waited that long; now /health and another transaction's upload and start answer
 * meanwhile, and past the budget (PARAPH_PDF_WORK_MS, PARAPH_PDF_WORK_HEAP_MB) the upload gets 400 PDF_TOO_COMPLEX.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { makePdf, spawnServe, type ServeProcess } from '../helpers/service-harness.js';

const served: ServeProcess[] = [];
afterAll(async () => {
  for (const s of served) await s.dispose();
});

/** A flat page tree of `count` empty A4 pages, classic cross-reference table. */
function flatPageTree(count: number): Uint8Array {
  const parts: string[] = ['%PDF-1.7\n'];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const add = (num: number, body: string): void => {
    offsets[num] = length;
    const text = `${num} 0 obj\n${body}\nendobj\n`;
    parts.push(text);
    length += text.length;
  };
  add(1, '<< /Type /Catalog /Pages 2 0 R >>');
  add(2, `<< /Type /Pages /Count ${count} /Kids [${Array.from({ length: count }, (_, i) => `${i + 3} 0 R`).join(' ')}] >>`);
  for (let i = 0; i < count; i++) add(i + 3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>');
  const size = count + 3;
  const rows = ['xref', `0 ${size}`, '0000000000 65535 f '];
  for (let i = 1; i < size; i++) rows.push(`${String(offsets[i]).padStart(10, '0')} 00000 n `);
  parts.push(`${rows.join('\n')}\ntrailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
  return new TextEncoder().encode(parts.join(''));
}

/** Calls /health every 25 ms until `until` settles; the slowest answer, ms. */
async function slowestHealth(serve: ServeProcess, until: Promise<unknown>): Promise<{ maxMs: number; count: number }> {
  let done = false;
  void until.finally(() => (done = true));
  let maxMs = 0;
  let count = 0;
  while (!done) {
    const started = performance.now();
    const health = await serve.call('GET', '/health', { auth: false });
    expect(health.status).toBe(200);
    maxMs = Math.max(maxMs, performance.now() - started);
    count++;
    await new Promise((r) => setTimeout(r, 25));
  }
  return { maxMs, count };
}

const put = (serve: ServeProcess, id: string, fileId: string, body: Uint8Array) =>
  serve.call('PUT', `/api/transaction/${id}/file/${fileId}`, { body, headers: { 'content-type': 'application/pdf' } });

describe('pdf-lib work off the serving thread', () => {
  const hostile = flatPageTree(150_000);

  it('answers /health and another transaction promptly while a 150,000-page PDF is being opened', async () => {
    const serve = await spawnServe({ env: { PARAPH_ACCOUNT_REQUESTS_PER_MINUTE: '100000', PARAPH_MAX_FILE_BYTES: String(64 * 1024 * 1024) } });
    served.push(serve);
    const attacked = (await serve.call('POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    const other = (await serve.call('POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    // A first flow starts a worker thread and loads the sealing code, so that what is measured is the document's work.
    const warm = (await serve.call('POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    expect((await put(serve, warm, 'warm-up.pdf', await makePdf([['Warm up']]))).status).toBe(201);
    expect((await serve.call('PUT', `/api/transaction/${warm}/start`)).status).toBe(204);

    const started = performance.now();
    const upload = put(serve, attacked, 'book.pdf', hostile);
    const otherFlow = (async () => {
      await new Promise((r) => setTimeout(r, 300));
      const t = performance.now();
      expect((await put(serve, other, 'contract.pdf', await makePdf([['Contract']]))).status).toBe(201);
      expect((await serve.call('PUT', `/api/transaction/${other}/start`)).status).toBe(204);
      return performance.now() - t;
    })();
    const { maxMs, count } = await slowestHealth(serve, upload);
    const refused = await upload;
    const uploadMs = performance.now() - started;
    const otherMs = await otherFlow;
    console.log(`150,000-page upload: ${Math.round(uploadMs)} ms; /health ${count}× max ${Math.round(maxMs)} ms; other upload+start ${Math.round(otherMs)} ms`);
    expect(refused.status).toBe(400);
    expect(refused.json.Message).toBe('The PDF has 150000 pages; this service accepts at most 5000.');
    expect(maxMs).toBeLessThan(1000);
    expect(otherMs).toBeLessThan(uploadMs);
  }, 180_000);

  it('refuses a PDF past the time budget or the heap cap with 400 PDF_TOO_COMPLEX, and the next upload gets a new thread', async () => {
    const serve = await spawnServe({ env: { PARAPH_PDF_WORK_MS: '500', PARAPH_MAX_FILE_BYTES: String(64 * 1024 * 1024) } });
    served.push(serve);
    const id = (await serve.call('POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    expect((await put(serve, id, 'warm-up.pdf', await makePdf([['Warm up']]))).status).toBe(201);
    const slow = await put(serve, id, 'book.pdf', hostile);
    expect(slow.status).toBe(400);
    expect(slow.json.Message).toMatch(/^The PDF is too complex to process \(processing it took more than 0\.5 s\)/);
    expect((await put(serve, id, 'after.pdf', await makePdf([['After']]))).status).toBe(201);
    expect((await serve.call('PUT', `/api/transaction/${id}/start`)).status).toBe(204);

    const small = await spawnServe({ env: { PARAPH_PDF_WORK_HEAP_MB: '64', PARAPH_MAX_FILE_BYTES: String(64 * 1024 * 1024) } });
    served.push(small);
    const tx = (await small.call('POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    const big = await put(small, tx, 'book.pdf', hostile);
    expect(big.status).toBe(400);
    expect(big.json.Message).toMatch(/^The PDF is too complex to process \(it needs more than 64 MB of memory\)/);
    expect((await put(small, tx, 'after.pdf', await makePdf([['After']]))).status).toBe(201);
  }, 180_000);
});
