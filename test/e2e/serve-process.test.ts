/**
 * `paraph serve` as a process (docs/design/api.md#authentication, docs/design/storage.md#running-the-service): with
 * zero configuration it listens on 127.0.0.1, creates the bootstrap account and prints its credentials once (not on the
 * next start), answers /health, and shuts down cleanly on SIGTERM. Killed with SIGKILL at random moments of seal-only
 * flows, it restarts on the same data with every transaction at 5 or 30, never half done, and every sealed one
 * complete.
 */
import { X509Certificate } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AUTH_HEADERS, APP_KEY, USER_TOKEN, call, freePort, makePdf, spawnServe, tempDataDir, type ServeProcess, type SpawnServeOptions } from '../helpers/service-harness.js';
import { seededRandom } from '../../src/testing/generate-pdf.js';

const dirs: string[] = [];
const started: ServeProcess[] = [];

afterAll(async () => {
  for (const served of started) served.child.kill('SIGKILL');
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** `paraph serve` in `dataDir` as an operator starts it: only what `env` sets. */
async function serve(dataDir: string, port: number, env: Record<string, string> = {}, options: SpawnServeOptions = {}): Promise<ServeProcess> {
  const served = await spawnServe({ zeroConfig: true, dataDir, port, env, ...options });
  started.push(served);
  return served;
}

describe('paraph serve', () => {
  it('with PORT=0 prints the public URL with the port it got, not :0', async () => {
    const dir = await tempDataDir();
    dirs.push(dir);
    const served = await serve(dir, 0, {}, { until: /public URL \S+,/ });
    const out = served.output();
    await served.stop();
    const listening = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
    expect(Number(listening?.[2])).toBeGreaterThan(0);
    expect(out).toContain(`(public URL ${listening?.[1]}, data in`);
  }, 90_000);

  it('starts with zero configuration, prints the base URL and new credentials once, and stops on SIGTERM', async () => {
    const dir = await tempDataDir();
    dirs.push(dir);
    const port = await freePort();
    const first = await serve(dir, port);
    const printed = first.output();
    expect(printed).toContain(`listening on http://127.0.0.1:${port}`);
    expect(printed).toContain(`data in ${dir}/data`);
    const userToken = /Authorization: APIKey (\S+)/.exec(printed)?.[1];
    const appKey = /Application: APPKey (\S+)/.exec(printed)?.[1];
    expect(userToken).toBeDefined();
    const created = await call(`http://127.0.0.1:${port}`, 'POST', '/api/transaction', {
      json: { Seal: true },
      auth: false,
      headers: { authorization: `APIKey ${userToken}`, application: `APPKey ${appKey}` },
    });
    expect(created.status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await serve(dir, port);
    expect(second.output()).not.toContain('APIKey');
    const got = await call(`http://127.0.0.1:${port}`, 'GET', `/api/transaction/${created.json.Id}`, {
      auth: false,
      headers: { authorization: `APIKey ${userToken}`, application: `APPKey ${appKey}` },
    });
    expect(got.json.Status).toBe(5);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 120_000);

  it('reads a JSON config file given with --config', async () => {
    const dir = await tempDataDir();
    dirs.push(dir);
    const port = await freePort();
    await writeFile(join(dir, 'paraph.json'), JSON.stringify({ port, dataDir: 'store', organizationName: 'Config File Org', bootstrapAccount: { userToken: 'cfg-user', appKey: 'cfg-app' } }));
    const served = await serve(dir, port, {}, { args: ['--config', 'paraph.json'], until: /listening on/ });
    const out = served.output();
    expect(out).toContain(`data in ${join(dir, 'store')}`);
    const pem = (await call(`http://127.0.0.1:${port}`, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    expect(new X509Certificate(pem).subject).toContain('O=Config File Org');
    const created = await call(`http://127.0.0.1:${port}`, 'POST', '/api/transaction', {
      json: { Seal: true },
      auth: false,
      headers: { authorization: 'APIKey cfg-user', application: 'APPKey cfg-app' },
    });
    expect(created.status).toBe(200);
    expect(await served.stop()).toBe(0);
  }, 120_000);

  it('refuses a bad configuration with a message naming the variable', async () => {
    const dir = await tempDataDir();
    dirs.push(dir);
    const served = await serve(dir, 0, { PORT: 'http' }, { until: 'exit' });
    const err = served.output();
    expect(await served.exited).toBe(2);
    expect(err).toContain('PORT: must be an integer from 0 to 65535 (got "http")');
  }, 60_000);

  it('survives SIGKILL at random moments of seal-only flows: every transaction ends at 5 or 30, never half done', async () => {
    const dir = await tempDataDir();
    dirs.push(dir);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { PARAPH_DATA_DIR: dir, PARAPH_USER_TOKEN: USER_TOKEN, PARAPH_APP_KEY: APP_KEY, PARAPH_FILE_REPLACE_GUARD_MS: '0' };
    const pdf = await makePdf([['Crash test document']]);
    const random = seededRandom(424242);
    const ids = new Set<string>();
    for (let round = 0; round < 3; round++) {
      const served = await serve(dir, port, env);
      // Flows run until the kill; requests cut off by it fail on the client side, which is expected.
      let firstSeal: () => void = () => undefined;
      const sealedOnce = new Promise<void>((resolve) => (firstSeal = resolve));
      const flows = Array.from({ length: 3 }, async () => {
        for (;;) {
          const created = await call(url, 'POST', '/api/transaction', { json: { Seal: true } });
          ids.add(created.json.Id as string);
          await call(url, 'PUT', `/api/transaction/${created.json.Id}/file/doc.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
          if ((await call(url, 'PUT', `/api/transaction/${created.json.Id}/start`)).status === 204) firstSeal();
        }
      }).map((p) => p.catch(() => undefined));
      // The kill comes at a random moment once the service has sealed (a slow, loaded machine starts it late).
      await Promise.race([sealedOnce, new Promise((r) => setTimeout(r, 60_000))]);
      await new Promise((r) => setTimeout(r, Math.floor(random() * 3000)));
      served.child.kill('SIGKILL');
      await served.exited;
      await Promise.all(flows);
    }
    const served = await serve(dir, port, env);
    let sealed = 0;
    for (const id of ids) {
      const got = await call(url, 'GET', `/api/transaction/${id}`);
      expect(got.status, got.text).toBe(200);
      expect([5, 30]).toContain(got.json.Status);
      if (got.json.Status === 30) {
        sealed++;
        expect((await call(url, 'GET', `/api/transaction/${id}/file/doc.pdf`)).status).toBe(200);
        expect((await call(url, 'GET', `/api/file/receipt/${id}`)).status).toBe(200);
      } else {
        // Still startable: upload (again) and start complete the flow.
        if (got.json.Files['doc.pdf'] === undefined) {
          expect((await call(url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf', ...AUTH_HEADERS } })).status).toBe(201);
        }
        expect((await call(url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
      }
    }
    expect(ids.size).toBeGreaterThan(4);
    expect(sealed).toBeGreaterThan(0);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  }, 420_000);
});
