/**
 * The signing page wherever the service is mounted: paraph in a host fastify app under `/paraph` (the plugin's
 * prefix, `PARAPH_PUBLIC_URL` ending in it), and the same reached through a sub-path proxy that maps `/ext/esign/`
 * onto it. In Chromium a signer opens the SignUrl, sees the documents (pdf.js and its worker load from the page's
 * assets), consents, signs with a typed signature and fills the fields; every request of the page stays under the
 * mount path and none fails. The service is embedded with `createService` and the plugin on purpose (the mount is the
 * subject), not started through the test harness.
 */
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createService, type ParaphService } from '../../src/create-service.js';
import { paraphPlugin } from '../../src/paraph-plugin.js';
import { APP_KEY, call, freePort, tempDataDir, USER_TOKEN } from '../helpers/service-harness.js';
import { createSigningTransaction } from '../service/signer/signer-fixture.js';
import { openWindow } from './browser.js';
import { visible } from './walk.js';

let host: FastifyInstance;
let service: ParaphService;
let proxy: Server;
let dataDir: string;
let origin: string;
let proxyOrigin: string;

beforeAll(async () => {
  dataDir = await tempDataDir();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  service = await createService(
    loadConfig({
      env: { PARAPH_DATA_DIR: dataDir, PARAPH_PUBLIC_URL: `${origin}/paraph`, PARAPH_USER_TOKEN: USER_TOKEN, PARAPH_APP_KEY: APP_KEY, PARAPH_FILE_REPLACE_GUARD_MS: '0' },
    }),
    { keyKind: 'ecdsa-p256' },
  );
  host = Fastify({ routerOptions: { maxParamLength: 4096 } });
  host.get('/', async () => 'the host app');
  await host.register(paraphPlugin, { service, prefix: '/paraph' });
  await host.listen({ host: '127.0.0.1', port });
  // A reverse proxy publishing the service under another path: /ext/esign/<x> → /paraph/<x>.
  proxy = createServer((incoming, outgoing) => {
    const url = incoming.url ?? '/';
    if (!url.startsWith('/ext/esign/')) return void outgoing.writeHead(404).end();
    const forwarded = httpRequest(
      { host: '127.0.0.1', port, method: incoming.method, path: `/paraph/${url.slice('/ext/esign/'.length)}`, headers: { ...incoming.headers, host: `127.0.0.1:${port}` } },
      (answer) => {
        const headers = { ...answer.headers };
        if (typeof headers.location === 'string' && headers.location.startsWith('/paraph/')) headers.location = `/ext/esign/${headers.location.slice('/paraph/'.length)}`;
        outgoing.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyOrigin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await host?.close();
  await service?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A signer's whole journey on the page at `signUrl`; returns the URLs the page requested. */
async function signOnPage(signUrl: string, mount: string): Promise<string[]> {
  const win = await openWindow('desktop', [new URL(mount).origin]);
  const { page } = win;
  const requested: string[] = [];
  const failed: string[] = [];
  page.on('request', (request) => void requested.push(request.url()));
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  try {
    await page.goto(signUrl);
    await visible(page, '#step-consent');
    await expect.poll(() => page.locator('.page canvas').count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await page.locator('#consent-box').check();
    await page.locator('#consent-confirm').click();
    await visible(page, '#step-scribble');
    await page.locator('#scribble-confirm').click();
    await visible(page, '#step-sign');
    await page.locator('input[data-field="f1.city"]').fill('Utrecht');
    await page.locator('input[data-field="f1.agree"]').check();
    await page.locator('#sign-button').click();
    await visible(page, '#message.success');
    expect(failed).toEqual([]);
    expect(win.problems).toEqual([]);
    return requested;
  } finally {
    await win.close();
  }
}

describe('the signing page under a prefix', () => {
  for (const route of ['the host prefix /paraph', 'a sub-path proxy /ext/esign'] as const) {
    it(`takes a signer from the SignUrl to signed, via ${route}`, async () => {
      const base = `${origin}/paraph`;
      const transaction = await createSigningTransaction(base, {
        seal: false,
        signers: [{ Email: 'carla@example.com', ScribbleName: 'Carla de Vries', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] }],
      });
      const signer = transaction.signers[0]!;
      expect(signer.signUrl.startsWith(`${base}/sign/`)).toBe(true);
      const mount = route === 'a sub-path proxy /ext/esign' ? `${proxyOrigin}/ext/esign` : base;
      const requested = await signOnPage(`${mount}${signer.signUrl.slice(base.length)}`, mount);
      // Assets, pdf.js, its worker and the signer API: all under the mount path.
      expect(requested.filter((url) => !url.startsWith(`${mount}/`) && !url.startsWith('data:') && !url.startsWith('blob:'))).toEqual([]);
      expect(requested.some((url) => url.startsWith(`${mount}/sign/assets/pdf.worker.min.mjs`))).toBe(true);
      expect(requested.some((url) => url.startsWith(`${mount}/api/signer/${signer.token}`))).toBe(true);
      const got = await call(base, 'GET', `/api/transaction/${transaction.id}`);
      expect(got.json.Status).toBe(30);
    }, 120_000);
  }
});
