/**
 * SSRF through PostbackUrl. Against a real `paraph serve` with its defaults, a transaction whose
 * PostbackUrl is http:, or names (in any spelling) a loopback, private, link-local, CGNAT, multicast, unspecified
 * or reserved address, IPv4 or IPv6 (also IPv4-mapped and NAT64), or a name resolving to one, is refused with a 400
 * naming PostbackUrl; public addresses and names that do not resolve yet are accepted. With an explicit allow-list
 * (development) a loopback receiver gets its postbacks, a redirect is not followed, and anything outside the list
 * is still refused. At delivery the URL is checked again and the POST goes to the address that was checked (DNS
 * rebinding), and failures are recorded in generic words that name no port or system error.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { deliverPostback } from '../../src/events/deliver-postback.js';
import { checkPostbackTarget, isAllowedAddress, STRICT_POSTBACK_POLICY } from '../../src/service/delivery/postback-target.js';
import type { ServiceContext } from '../../src/service/context.js';
import type { OutboxMessage } from '../../src/store/store.js';
import { startPostbackReceiver, type PostbackReceiver } from '../../src/testing/start-postback-receiver.js';
import { type ServeProcess, spawnServe, startTestService, type TestService } from '../helpers/service-harness.js';

const served: ServeProcess[] = [];
const services: TestService[] = [];
const receivers: PostbackReceiver[] = [];
const servers: Server[] = [];
afterAll(async () => {
  for (const s of served) await s.dispose();
  for (const s of services) await s.dispose();
  for (const r of receivers) await r.close();
  for (const s of servers) await new Promise((r) => s.close(r));
});

const REFUSED = [
  'http://93.184.216.34/hook', // http: not allowed by default
  'https://127.0.0.1/hook',
  'https://127.1/hook',
  'https://2130706433/hook', // decimal
  'https://0x7f000001/hook', // hex
  'https://0177.0.0.1/hook', // octal
  'https://0x7f.0.0.1/hook',
  'https://localhost:8080/api/transaction',
  'https://[::1]/hook',
  'https://[::ffff:127.0.0.1]/hook', // IPv4-mapped
  'https://[::ffff:a9fe:a9fe]/latest', // IPv4-mapped 169.254.169.254
  'https://[64:ff9b::7f00:1]/hook', // NAT64 of 127.0.0.1
  'https://[::127.0.0.1]/hook', // IPv4-compatible (deprecated) 127.0.0.1
  'https://[::7f00:1]/hook', // the same, in hex
  'https://[::a9fe:a9fe]/latest', // IPv4-compatible 169.254.169.254
  'https://[::8.8.8.8]/hook', // IPv4-compatible: refused whatever it spells
  'https://169.254.169.254/latest/meta-data',
  'https://10.0.0.1/', 'https://172.16.5.4/', 'https://192.168.1.1/', 'https://100.64.0.1/', 'https://0.0.0.0/',
  'https://224.0.0.1/', 'https://255.255.255.255/', 'https://240.0.0.1/', 'https://192.0.2.1/',
  'https://[fe80::1]/', 'https://[fc00::1]/', 'https://[ff02::1]/', 'https://[::]/', 'https://[2001:db8::1]/',
  'https://user:pass@93.184.216.34/hook',
];

describe('PostbackUrl SSRF', () => {
  it('refuses private, loopback, link-local, multicast and reserved targets in every spelling at creation (paraph serve defaults)', async () => {
    const serve = await spawnServe();
    served.push(serve);
    for (const url of REFUSED) {
      const created = await serve.call('POST', '/api/transaction', { json: { Seal: true, PostbackUrl: url } });
      expect([url, created.status]).toEqual([url, 400]);
      expect(created.json.Message).toMatch(/^PostbackUrl: /);
    }
    for (const url of ['https://93.184.216.34/hook', 'https://[2606:2800:220:1:248:1893:25c8:1946]/hook', 'https://not-yet-resolvable.invalid/hook']) {
      const created = await serve.call('POST', '/api/transaction', { json: { Seal: true, PostbackUrl: url } });
      expect([url, created.status, created.text]).toEqual([url, 200, created.text]);
    }
  }, 120_000);

  it('with an allow-list: delivers to the allowed loopback receiver, does not follow its redirect, refuses the rest', async () => {
    const target = await startPostbackReceiver();
    receivers.push(target);
    let redirected = 0;
    const redirecting = createServer((req, res) => {
      redirected++;
      req.resume();
      res.writeHead(302, { location: `${target.url}/stolen` }).end();
    });
    servers.push(redirecting);
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    const redirectPort = (redirecting.address() as { port: number }).port;
    const receiver = await startPostbackReceiver();
    receivers.push(receiver);

    const serve = await spawnServe({
      env: { PARAPH_POSTBACK_ALLOW_HTTP: 'true', PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.1/32', PARAPH_WORKER_INTERVAL_MS: '100' },
    });
    served.push(serve);
    expect((await serve.call('POST', '/api/transaction', { json: { Seal: true, PostbackUrl: 'http://127.0.0.2/hook' } })).status).toBe(400);
    expect((await serve.call('POST', '/api/transaction', { json: { Seal: true, PostbackUrl: 'http://169.254.169.254/' } })).status).toBe(400);

    const ok = await serve.call('POST', '/api/transaction', { json: { Seal: true, PostbackUrl: `${receiver.url}/hook` } });
    expect(ok.status, ok.text).toBe(200);
    const bounced = await serve.call('POST', '/api/transaction', { json: { Seal: true, PostbackUrl: `http://127.0.0.1:${redirectPort}/hook` } });
    expect(bounced.status).toBe(200);
    for (const id of [ok.json.Id, bounced.json.Id]) expect((await serve.call('DELETE', `/api/transaction/${id}`)).status).toBe(200);

    const deadline = Date.now() + 30_000;
    while ((receiver.received.length === 0 || redirected === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(receiver.received.length).toBeGreaterThan(0);
    // The redirect was answered and never followed.
    expect(redirected).toBeGreaterThan(0);
    expect(target.received).toEqual([]);
  }, 120_000);

  it('checks again at delivery, connects to the checked address (DNS rebinding) and records generic failure texts', async () => {
    const receiver = await startPostbackReceiver();
    receivers.push(receiver);
    const service = await startTestService({ env: { PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.1/32' } });
    services.push(service);
    const port = new URL(receiver.url).port;
    const created = await service.client.request('POST', '/api/transaction', { json: { Seal: true, PostbackUrl: `http://rebind.example:${port}/hook` } });
    expect(created.status, created.text).toBe(200);
    const id = (created.json as { Id: string }).Id;
    const ctx = {
      store: service.server.store,
      clock: () => new Date(),
      settings: { publicUrl: service.url, maxFileBytes: 1e6, fileReplaceGuardMs: 0, retentionDays: 30, postbackPolicy: { allowHttp: true, allowedRanges: ['127.0.0.1/32'] } },
    } as unknown as ServiceContext;
    const message: OutboxMessage = { id: 1, transactionId: id, kind: 'postback', payload: { transactionId: id, status: 5, url: `http://rebind.example:${port}/hook` }, dueAt: new Date(), attempts: 1, firstDueAt: new Date() };

    // The name now resolves to a private address outside the allow-list: refused before any connection.
    const rebound = await deliverPostback(ctx, message, { resolve: async () => [{ address: '10.1.2.3', family: 4 }] });
    expect(rebound).toMatchObject({ ok: false, error: expect.stringContaining('PostbackUrl refused') });
    // One answer public, one internal: refused too.
    const mixed = await deliverPostback(ctx, message, { resolve: async () => [{ address: '93.184.216.34', family: 4 }, { address: '169.254.169.254', family: 4 }] });
    expect(mixed.ok).toBe(false);

    // The checked address is the one connected to: the system resolver does not know rebind.example.
    let lookups = 0;
    const delivered = await deliverPostback(ctx, message, {
      resolve: async () => {
        lookups++;
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    expect(delivered.ok).toBe(true);
    expect(lookups).toBe(1);
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);

    // A closed port: a generic text, no port, no ECONNREFUSED.
    const closed = await deliverPostback(ctx, { ...message, payload: { transactionId: id, status: 5, url: 'http://127.0.0.1:9/hook' } });
    expect(closed).toMatchObject({ ok: false, error: 'could not connect or the connection failed' });
  }, 120_000);

  it('judges addresses by range whatever their spelling (ipaddr.js)', async () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:7f00:1', '10.0.0.1', 'fe80::1', '169.254.169.254', '::ffff:169.254.169.254', '0.0.0.0']) {
      expect([address, isAllowedAddress(address, STRICT_POSTBACK_POLICY)]).toEqual([address, false]);
    }
    expect(isAllowedAddress('93.184.216.34', STRICT_POSTBACK_POLICY)).toBe(true);
    expect(isAllowedAddress('127.0.0.1', { allowHttp: false, allowedRanges: ['127.0.0.0/8'] })).toBe(true);
    expect(await checkPostbackTarget('https://internal.example/', STRICT_POSTBACK_POLICY, async () => [{ address: '192.168.0.10', family: 4 }])).toMatchObject({ ok: false, kind: 'address' });
  });
});
