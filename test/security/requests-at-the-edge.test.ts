/**
 * Small holes at the API's edge: a name or DisplayName holding an unpaired UTF-16 surrogate (valid JSON, no valid
 * text) is a 400 naming the property, not a 500 at signing; answers that hold transactions, documents and receipts
 * say `Cache-Control: no-store`; credentials that match no account are throttled per client address (429 with
 * Retry-After, before the credentials are looked up). The service runs on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthFailureThrottle, throttleKey } from '../../src/http/auth-throttle.js';
import { call, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';
import { createSigningTransaction, SCRIBBLE_DATA_URL } from '../service/signer/signer-fixture.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.dispose();
});

describe('unpaired surrogates', () => {
  it('in a signer name, a DisplayName, FileMetaData or a signer API body: 400 naming the property', async () => {
    const lone = 'Ann \ud800 Smit';
    const created = await call(service.url, 'POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'a@example.com', ScribbleName: lone }] } });
    expect([created.status, created.json.Message]).toEqual([400, 'Signers[0].ScribbleName: contains an unpaired UTF-16 surrogate (\\ud800); send valid Unicode text']);
    const file = await call(service.url, 'POST', '/api/transaction', { json: { Files: { 'a.pdf': { DisplayName: 'x\udc00' } } } });
    expect([file.status, file.json.Message]).toEqual([400, 'Files.a.pdf.DisplayName: contains an unpaired UTF-16 surrogate (\\udc00); send valid Unicode text']);
    // A pair (an emoji) is fine.
    expect((await call(service.url, 'POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'a@example.com', ScribbleName: 'Ann 😀 Smit' }] } })).status).toBe(200);

    const id = (await call(service.url, 'POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    const metadata = await call(service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, {
      body: Buffer.from('{"DisplayName":"Offer \\ud83d"}', 'utf8'),
      headers: { 'content-type': 'application/json' },
    });
    expect([metadata.status, metadata.json.Message]).toEqual([400, 'FileMetaData.DisplayName: contains an unpaired UTF-16 surrogate (\\ud83d); send valid Unicode text']);

    const tx = await createSigningTransaction(service.url, { signers: [{ Email: 'b@example.com', Verifications: [{ Type: 'Scribble' }] }] });
    const path = `/api/signer/${tx.signers[0]!.token}/verification`;
    const named = await call(service.url, 'POST', path, { auth: false, json: { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: lone } });
    expect([named.status, named.json.Message]).toEqual([400, 'Name: contains an unpaired UTF-16 surrogate (\\ud800); send valid Unicode text']);
    // The signer can still sign with a valid name.
    expect((await call(service.url, 'POST', path, { auth: false, json: { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Ann Smit' } })).status).toBe(200);
    const signed = await call(service.url, 'POST', `/api/signer/${tx.signers[0]!.token}/sign`, { auth: false, json: { Fields: { contract: { 'f1.city': 'Leiden' } } } });
    expect(signed.status, signed.text).toBeLessThan(300);
  });
});

describe('Cache-Control', () => {
  it('is no-store on API JSON, errors, documents and receipts', async () => {
    const id = (await call(service.url, 'POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    await call(service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { body: await makePdf([['Contract']]), headers: { 'content-type': 'application/pdf' } });
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    await service.server.events.drain();
    await service.server.worker.tick();
    const answers = {
      transaction: await call(service.url, 'GET', `/api/transaction/${id}`),
      file: await call(service.url, 'GET', `/api/transaction/${id}/file/a.pdf`),
      receipt: await call(service.url, 'GET', `/api/file/receipt/${id}`),
      refused: await call(service.url, 'GET', `/api/transaction/${id}`, { auth: false }),
    };
    expect(answers.transaction.json.Status).toBe(30);
    expect(answers.file.text.slice(0, 200)).toContain('%PDF');
    expect(answers.receipt.headers.get('content-type')).toContain('application/pdf');
    for (const [name, answer] of Object.entries(answers)) expect([name, answer.headers.get('cache-control')]).toEqual([name, 'no-store']);
  });
});

describe('failed credentials', () => {
  it('are throttled per address: 429 with Retry-After after the burst, also for the right key, until time passes', async () => {
    const local = await startTestService();
    try {
      const wrong = { authorization: 'APIKey wrong-user-token', application: 'APPKey wrong-app-key' };
      for (let i = 0; i < 20; i++) expect((await call(local.url, 'GET', '/api/transaction/x', { auth: false, headers: wrong })).status).toBe(401);
      const refused = await call(local.url, 'GET', '/api/transaction/x', { auth: false, headers: wrong });
      expect(refused.status).toBe(429);
      // The bucket refills on the real clock: a slow machine may spend a second or more on the burst.
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(6);
      expect(refused.json.Message).toBe(`Too many requests with wrong credentials from your address: retry after ${retryAfter} s with the right APIKey and APPKey.`);
      // Checked before the look-up: a guess that happens to be right is refused too, so guessing gains nothing.
      expect((await call(local.url, 'POST', '/api/transaction', { json: {} })).status).toBe(429);
      // Requests without credentials are a plain 401 and spend nothing.
      expect((await call(local.url, 'GET', '/api/transaction/x', { auth: false })).status).toBe(401);
    } finally {
      await local.dispose();
    }
  });

  it('refill with time; an IPv6 /64 is one address; right credentials spend nothing', () => {
    let now = 0;
    const throttle = new AuthFailureThrottle({ burst: 2, perMinute: 6 }, () => now);
    throttle.fail('2001:db8:1:2::1');
    throttle.fail('2001:db8:1:2:ffff::9');
    expect(() => throttle.check('2001:db8:1:2:0:0:0:7')).toThrow('retry after 10 s');
    expect(() => throttle.check('2001:db8:1:3::1')).not.toThrow();
    expect(() => throttle.check('10.0.0.1')).not.toThrow();
    now += 10_000;
    expect(() => throttle.check('2001:db8:1:2::1')).not.toThrow();
    expect(throttleKey('2001:DB8:0001:0002:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(throttleKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(throttleKey('::1')).toBe('0:0:0:0::/64');
  });
});
