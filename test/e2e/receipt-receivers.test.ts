/**
 * The receipt is built before the receivers' copies go out (the copies carry it), so it must not call them "not
 * sent": it says they go with the signed documents, and the copies do go out.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchFiles } from '../helpers/scratch-files.js';
import { call, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';

const exec = promisify(execFile);
const scratch = scratchFiles('receipt-receivers');
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

describe('receivers on the receipt', () => {
  it('shows a receiver of a finished transaction as "sent with the signed documents", in the receipt language', async () => {
    for (const [language, expected] of [['en-US', 'sent with the signed documents'], ['nl-NL', 'verzonden met de ondertekende documenten']] as const) {
      const created = await call(service.url, 'POST', '/api/transaction', {
        json: { Seal: true, Language: language, Receivers: [{ Email: 'archive@example.com', Name: 'Archive', Message: 'For the archive' }] },
      });
      expect(created.status).toBe(200);
      const id = created.json.Id as string;
      const pdf = await makePdf([['Contract']]);
      expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/contract.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
      expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
      const receipt = await call(service.url, 'GET', `/api/file/receipt/${id}`);
      expect(receipt.status).toBe(200);
      const { stdout: text } = await exec('pdftotext', ['-layout', '-enc', 'UTF-8', scratch.file(receipt.bytes), '-']);
      const flat = text.replace(/\s+/g, ' ');
      expect(flat).toContain(`Archive archive@example.com ${expected}`);
      expect(flat).not.toMatch(/not sent|niet verzonden/);
    }
  });
});
