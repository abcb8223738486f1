/**
 * Metadata whose Search without Occurence matches more often than the cap is a
 * clear 400 naming the field and the count; the cap is `PARAPH_MAX_WIDGETS_PER_LOCATION` (default 1000, see
 * find-text-linear.test.ts for 102,400 matches against the default).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ env: { PARAPH_MAX_WIDGETS_PER_LOCATION: '3' } });
}, 60_000);
afterAll(async () => {
  await service?.dispose();
});

describe('widgets per Location', () => {
  it('400 naming the field and the count past the configured cap; within it, one widget per match', async () => {
    const id = (await call(service.url, 'POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    const pdf = await makePdf([['Initials here', 'Initials here'], ['Initials here', 'Initials here']]);
    const put = await call(service.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
    expect(put.status, put.text).toBe(201);
    const metadata = (location: Record<string, unknown>) => ({ FormSets: { f: { initials: { Type: 'SingleLine', Location: location } } } });
    const refused = await call(service.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { json: metadata({ Search: 'Initials here' }) });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      Message: expect.stringMatching(/^FormSets\.f\.initials\.Location: Search text "Initials here" occurs 4 times in the document.* at most 3 /),
    });
    const onPage = await call(service.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { json: metadata({ Search: 'Initials here', PageNumber: 2 }) });
    expect(onPage.status, onPage.text).toBe(204);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
  }, 60_000);
});
