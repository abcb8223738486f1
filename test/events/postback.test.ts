/**
 * Postback format (docs/design/events.md#checksum): the documented Checksum test vector, the HMAC header,
 * verifyPostback on genuine and tampered postbacks, sending (2xx only, redirects not followed, timeout), and the retry
 * schedule.
 */
import fc from 'fast-check';
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { nextRetryAt, retryDelayMs, RETRY_WINDOW_MS } from '../../src/events/backoff.js';
import { createHmac } from 'node:crypto';
import { deliverySignature, postbackChecksum, postbackSignature, renderPostback, sendPostback } from '../../src/events/postback.js';
import { verifyPostback } from '../../src/events/verify-postback.js';
import { startPostbackReceiver, type PostbackReceiver } from '../../src/testing/start-postback-receiver.js';
import type { Transaction } from '../../src/domain/transaction.js';
import { TEST_NOW } from '../helpers/test-now.js';

const receivers: PostbackReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const TX: Transaction = {
  Id: 'b10ae331-af78-4e79-a39e-5b64693b6b68',
  AccountId: 'acc',
  Status: 20,
  Seal: true,
  Reference: 'ref-1',
  PostbackUrl: 'http://127.0.0.1/hook',
  SignRequestMode: 2,
  DaysToExpire: 30,
  SendEmailNotifications: false,
  Language: 'en-US',
  CreatedDateTime: '2026-11-21T10:00:00.000+00:00',
  ModifiedDateTime: '2026-11-21T10:00:00.000+00:00',
  ExpiresDateTime: '2026-12-21T10:00:00.000+00:00',
  Files: [],
  Signers: [],
  Receivers: [],
  version: 1,
};

/** A delivery sent now (verifyPostback compares with the system clock by default). */
const DELIVERY = { id: 'paraph-postback-1', at: new Date() };

describe('Checksum and signature', () => {
  it('matches the documented Checksum test vector', () => {
    expect(postbackChecksum('b10ae331-af78-4e79-a39e-5b64693b6b68', 20, 'SharedSecret')).toBe('cdc09eee2ed6df2846dcc193aedfef59f2834f8d');
  });

  it('puts the checksum in the body and the header, and signs the exact body', () => {
    const request = renderPostback(TX, 20, { secret: 'SharedSecret', version: 2, baseUrl: 'http://127.0.0.1:1', delivery: DELIVERY });
    const body = JSON.parse(request.body) as Record<string, unknown>;
    expect(body.Id).toBe(TX.Id);
    expect(body.Status).toBe(20);
    expect(body.Reference).toBe('ref-1');
    expect(body.Checksum).toBe('cdc09eee2ed6df2846dcc193aedfef59f2834f8d');
    expect(request.headers.checksum).toBe('cdc09eee2ed6df2846dcc193aedfef59f2834f8d');
    expect(request.headers['x-paraph-signature']).toBe(postbackSignature(request.body, 'SharedSecret'));
    expect(verifyPostback(request.body, request.headers, 'SharedSecret')).toMatchObject({ valid: true, transaction: { Id: TX.Id, Status: 20 } });
  });

  it('version 1 bodies carry null for absent properties, version 2 omit them', () => {
    const v1 = JSON.parse(renderPostback(TX, 20, { secret: 's', version: 1, baseUrl: 'http://x', delivery: DELIVERY }).body) as Record<string, unknown>;
    const v2 = JSON.parse(renderPostback(TX, 20, { secret: 's', version: 2, baseUrl: 'http://x', delivery: DELIVERY }).body) as Record<string, unknown>;
    expect(v1.CanceledDateTime).toBeNull();
    expect('CanceledDateTime' in v2).toBe(false);
  });

  it('verifyPostback refuses any changed body byte, a wrong secret, a missing or wrong header', () => {
    const request = renderPostback(TX, 30, { secret: 'k3y', version: 1, baseUrl: 'http://x', delivery: DELIVERY });
    fc.assert(
      fc.property(fc.nat({ max: request.body.length - 1 }), fc.integer({ min: 1, max: 255 }), (index, delta) => {
        const bytes = Buffer.from(request.body, 'utf8');
        bytes[index] = (bytes[index]! + delta) % 256;
        expect(verifyPostback(bytes, request.headers, 'k3y').valid).toBe(false);
      }),
      { numRuns: 200 },
    );
    expect(verifyPostback(request.body, request.headers, 'other').valid).toBe(false);
    const { 'x-paraph-signature': _sig, ...noSig } = request.headers;
    expect(verifyPostback(request.body, noSig, 'k3y')).toEqual({ valid: false, reason: 'X-Paraph-Signature header missing' });
    expect(verifyPostback(request.body, { ...request.headers, checksum: '0'.repeat(40) }, 'k3y')).toEqual({ valid: false, reason: 'Checksum header does not match' });
    // A body re-signed with the right HMAC but a forged Checksum field is refused too.
    const forged = request.body.replace(/"Checksum":"[0-9a-f]+"/, `"Checksum":"${'1'.repeat(40)}"`);
    expect(verifyPostback(forged, { 'x-paraph-signature': postbackSignature(forged, 'k3y') }, 'k3y').valid).toBe(false);
    expect(verifyPostback(request.body, new Headers(request.headers), 'k3y').valid).toBe(true);
  });

  it('during a secret rotation signs with the new and the replaced secret; verifyPostback takes one secret or several', () => {
    const request = renderPostback(TX, 30, { secret: 'new-key', previousSecret: 'old-key', version: 1, baseUrl: 'http://x', delivery: DELIVERY });
    expect(JSON.parse(request.body).Checksum).toBe(postbackChecksum(TX.Id, 30, 'new-key'));
    expect(request.headers['checksum-previous']).toBe(postbackChecksum(TX.Id, 30, 'old-key'));
    expect(request.headers['x-paraph-signature']).toBe(postbackSignature(request.body, 'new-key'));
    expect(request.headers['x-paraph-signature-previous']).toBe(postbackSignature(request.body, 'old-key'));
    expect(request.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    for (const secrets of ['new-key', 'old-key', ['other', 'old-key'], ['new-key', 'old-key']]) expect(verifyPostback(request.body, request.headers, secrets).valid).toBe(true);
    expect(verifyPostback(request.body, request.headers, ['other', 'third']).valid).toBe(false);
    // The previous signatures prove nothing once the body changes.
    expect(verifyPostback(request.body.replace('"Status":30', '"Status":40'), request.headers, 'old-key').valid).toBe(false);
    // Without the previous secret's headers, the old secret verifies nothing.
    const { 'x-paraph-signature-previous': _p, ...withoutPrevious } = request.headers;
    expect(verifyPostback(request.body, withoutPrevious, 'old-key').valid).toBe(false);
    expect(() => verifyPostback(request.body, request.headers, [])).toThrow(/postback secret/);
    expect(() => verifyPostback(request.body, request.headers, ['new-key', ''])).toThrow(/empty string/);
  });

  it('signs the delivery id and send time (Standard Webhooks); verifyPostback refuses an old one, a changed id or time', () => {
    const at = new Date(TEST_NOW);
    const request = renderPostback(TX, 30, { secret: 'k3y', version: 1, baseUrl: 'http://x', delivery: { id: 'paraph-postback-7', at } });
    expect(request.headers['webhook-id']).toBe('paraph-postback-7');
    expect(request.headers['webhook-timestamp']).toBe(String(at.getTime() / 1000));
    expect(request.headers['webhook-signature']).toBe(deliverySignature('paraph-postback-7', at.getTime() / 1000, request.body, 'k3y'));
    // Standard Webhooks' construction: base64 HMAC-SHA256 over "<id>.<timestamp>.<body>" with the secret's bytes.
    const expected = createHmac('sha256', 'k3y').update(`paraph-postback-7.${at.getTime() / 1000}.${request.body}`).digest('base64');
    expect(request.headers['webhook-signature']).toBe(`v1,${expected}`);
    // Keeps Signhost's Checksum and the body HMAC.
    expect(request.headers.checksum).toBe(postbackChecksum(TX.Id, 30, 'k3y'));
    const at5min = new Date(at.getTime() + 300_000);
    expect(verifyPostback(request.body, request.headers, 'k3y', { now: at5min }).valid).toBe(true);
    const late = verifyPostback(request.body, request.headers, 'k3y', { now: new Date(at.getTime() + 301_000) });
    expect(late).toEqual({ valid: false, reason: 'webhook-timestamp is 301 s from now, more than the 300 s tolerated: an old postback replayed, or a clock off' });
    expect(verifyPostback(request.body, request.headers, 'k3y', { now: new Date(at.getTime() + 3_600_000), toleranceSeconds: 3600 }).valid).toBe(true);
    expect(verifyPostback(request.body, request.headers, 'k3y', { now: new Date(at.getTime() - 301_000) }).valid).toBe(false);
    // A replay with a fresh time or another id does not carry a matching signature.
    const refreshed = { ...request.headers, 'webhook-timestamp': String(at.getTime() / 1000 + 3600) };
    expect(verifyPostback(request.body, refreshed, 'k3y', { now: new Date(at.getTime() + 3_600_000) })).toEqual({
      valid: false,
      reason: 'webhook-signature does not match the delivery id, time and body',
    });
    expect(verifyPostback(request.body, { ...request.headers, 'webhook-id': 'paraph-postback-8' }, 'k3y', { now: at }).valid).toBe(false);
    const { 'webhook-timestamp': _t, ...noTime } = request.headers;
    expect(verifyPostback(request.body, noTime, 'k3y', { now: at })).toEqual({ valid: false, reason: 'webhook-id, webhook-timestamp or webhook-signature header missing' });
  });
});

describe('sendPostback', () => {
  it('succeeds on 2xx only and sends the rendered headers and body', async () => {
    const statuses = [204, 500, 404];
    const receiver = await startPostbackReceiver({ respond: (n) => statuses[n] ?? 200 });
    receivers.push(receiver);
    const request = renderPostback(TX, 20, { secret: 'SharedSecret', version: 1, baseUrl: 'http://x', delivery: DELIVERY });
    expect(await sendPostback(`${receiver.url}/hook`, request)).toEqual({ ok: true, httpStatus: 204 });
    expect(await sendPostback(`${receiver.url}/hook`, request)).toEqual({ ok: false, httpStatus: 500, error: 'HTTP 500' });
    expect(await sendPostback(`${receiver.url}/hook`, request)).toMatchObject({ ok: false, httpStatus: 404 });
    const first = receiver.received[0]!;
    expect(first.path).toBe('/hook');
    expect(first.body).toBe(request.body);
    expect(first.headers.checksum).toBe('cdc09eee2ed6df2846dcc193aedfef59f2834f8d');
    expect(verifyPostback(first.body, first.headers, 'SharedSecret').valid).toBe(true);
  });

  it('does not follow redirects, refuses non-http URLs, and gives up after the timeout', async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/redirect') res.writeHead(307, { location: '/target' }).end();
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 2_000);
      else res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const request = renderPostback(TX, 20, { secret: 's', version: 1, baseUrl: 'http://x', delivery: DELIVERY });
      expect(await sendPostback(`http://127.0.0.1:${port}/redirect`, request)).toMatchObject({ ok: false, httpStatus: 307 });
      expect(hits).toEqual(['/redirect']);
      expect(await sendPostback('ftp://127.0.0.1/x', request)).toMatchObject({ ok: false });
      expect(await sendPostback(`http://127.0.0.1:${port}/slow`, request, { timeoutMs: 200 })).toEqual({ ok: false, error: 'no answer within 200 ms' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('retry schedule', () => {
  it('first retry within a minute, later ones at most an hour apart, never shorter than the previous base', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempts, r) => {
        const delay = retryDelayMs(attempts, () => r);
        expect(delay).toBeGreaterThan(0);
        expect(delay).toBeLessThanOrEqual(3_600_000);
        if (attempts === 1) expect(delay).toBeLessThan(60_000);
      }),
    );
    expect(retryDelayMs(10, () => 0.99)).toBeGreaterThan(1_800_000);
  });

  it('starts from the configured base (PARAPH_RETRY_BASE_MS): the first retry after 50–100 % of it, doubling, capped at an hour', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 3_600_000 }), fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), (base, attempts, r) => {
        const delay = retryDelayMs(attempts, () => r, base);
        const expected = Math.min(3_600_000, base * 2 ** (attempts - 1));
        expect(delay).toBeGreaterThanOrEqual(Math.floor(expected / 2));
        expect(delay).toBeLessThanOrEqual(Math.ceil(expected));
      }),
    );
  });

  it('gives up 72 hours after the row was first due', () => {
    const first = new Date(TEST_NOW);
    let now = first;
    let attempts = 0;
    for (;;) {
      attempts++;
      const next = nextRetryAt(now, first, attempts, () => 0.5);
      if (next === undefined) break;
      expect(next.getTime() - first.getTime()).toBeLessThanOrEqual(RETRY_WINDOW_MS);
      now = next;
    }
    expect(now.getTime() - first.getTime()).toBeGreaterThan(RETRY_WINDOW_MS - 3_600_000);
    expect(attempts).toBeGreaterThan(70);
  });
});
