/**
 * Structured logs: every request is logged with its request id (also sent back as `x-request-id`), and
 * neither the credentials, nor BSNs, nor document contents appear in the log.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/http/app.js';
import { APP_KEY, USER_TOKEN, call, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';

let service: TestService;
const lines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino(loggerOptions('debug'), sink);
  service = await startTestService({ logger });
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

describe('request logs', () => {
  it('carry the request id and no secrets, BSNs or document text', async () => {
    const created = await call(service.url, 'POST', '/api/transaction', {
      json: { Signers: [{ SendSignRequest: false, Email: 'secret.person@example.com', BSN: '111222333', Verifications: [{ Type: 'DigiD', Bsn: '111222333' }, { Type: 'Scribble' }] }] },
    });
    expect(created.status).toBe(200);
    const requestId = created.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const pdf = await makePdf([['TOPSECRETCONTENT']]);
    await call(service.url, 'PUT', `/api/transaction/${created.json.Id}/file/a.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
    await call(service.url, 'GET', '/api/transaction/unknown', { headers: { authorization: 'APIKey wrong-token-value', application: 'APPKey wrong-app-value' } });
    await call(service.url, 'POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'bad', BSN: '999888777' }] } });

    const log = lines.join('\n');
    expect(lines.some((l) => (JSON.parse(l) as { reqId?: string }).reqId === requestId)).toBe(true);
    for (const secret of [USER_TOKEN, APP_KEY, 'wrong-token-value', 'wrong-app-value', '111222333', '999888777', 'TOPSECRETCONTENT', 'secret.person']) {
      expect(log).not.toContain(secret);
    }
  }, 60_000);
});
