/**
 * `paraphPlugin({ config })` on a fresh data directory hands the host what it created and shows only once — the new
 * account's keys and postback secret: to the host's `onCreated` callback, or else once through the host's logger.
 * The credentials work against the mounted API; a later start on the same directory hands over nothing.
 */
import { rm } from 'node:fs/promises';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { paraphPlugin, type CreatedOnStart } from '../../src/paraph-plugin.js';
import { tempDataDir } from '../../src/testing/start-test-service.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const dir = await tempDataDir();
  dirs.push(dir);
  return dir;
}

/** A host app with paraph mounted under /paraph on `dataDir`; its log lines are collected. */
async function mount(dataDir: string, onCreated?: (created: CreatedOnStart) => void) {
  const lines: { level: number; msg: string; paraphCredentials?: { userToken: string; appKey: string; postbackSecret: string } }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as (typeof lines)[number]);
      done();
    },
  });
  const host = Fastify({ logger: { level: 'info', stream } });
  const config = loadConfig({ env: { PARAPH_DATA_DIR: dataDir, PARAPH_PUBLIC_URL: 'http://127.0.0.1:9/paraph' } });
  await host.register(paraphPlugin, { config, prefix: '/paraph', serviceOptions: { keyKind: 'ecdsa-p256', worker: false }, ...(onCreated ? { onCreated } : {}) });
  await host.ready();
  return { host, lines };
}

describe('paraphPlugin({ config }) on a fresh data directory', () => {
  it('hands the new account to onCreated (once), and those credentials work', async () => {
    const dataDir = await freshDir();
    const handed: CreatedOnStart[] = [];
    const first = await mount(dataDir, (created) => void handed.push(created));
    try {
      expect(handed).toHaveLength(1);
      const credentials = handed[0]!.credentials!;
      expect(credentials.userToken.length).toBeGreaterThan(20);
      expect(credentials.postbackSecret.length).toBeGreaterThan(20);
      // Nothing secret in the host's log when the host takes them itself.
      expect(first.lines.filter((line) => JSON.stringify(line).includes(credentials.appKey))).toEqual([]);
      const created = await first.host.inject({
        method: 'POST',
        url: '/paraph/api/transaction',
        headers: { authorization: `APIKey ${credentials.userToken}`, application: `APPKey ${credentials.appKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ Seal: true }),
      });
      expect(created.statusCode, created.body).toBe(200);
    } finally {
      await first.host.close();
    }
    const again = await mount(dataDir, (created) => void handed.push(created));
    await again.host.close();
    expect(handed).toHaveLength(1);
  }, 60_000);

  it("without onCreated, logs them once as a warning through the host's logger", async () => {
    const dataDir = await freshDir();
    const first = await mount(dataDir);
    await first.host.close();
    const shown = first.lines.filter((line) => line.paraphCredentials !== undefined);
    expect(shown).toHaveLength(1);
    expect(shown[0]!.level).toBe(40);
    expect(shown[0]!.msg).toMatch(/created an account.*APIKey.*APPKey/);
    expect(Object.keys(shown[0]!.paraphCredentials!).sort()).toEqual(['appKey', 'postbackSecret', 'userToken']);

    const again = await mount(dataDir);
    await again.host.close();
    expect(again.lines.filter((line) => line.paraphCredentials !== undefined)).toEqual([]);
  }, 60_000);
});
