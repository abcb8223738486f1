/**
 * Nothing is lost on a crash (docs/design/events.md#outbox): `paraph serve` is killed with SIGKILL while postbacks
 * (slow receiver, in flight) and mails are pending, then started again on the same data: every postback and every sign
 * request arrives at least once; duplicates only for deliveries that were in flight.
 */
import type { ChildProcess } from 'node:child_process';
import { openSqliteDatabase } from '../../src/store/sqlite-driver.js';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyPostback } from '../../src/events/verify-postback.js';
import { startPostbackReceiver, type PostbackReceiver } from '../../src/testing/start-postback-receiver.js';
import { startSmtpSink, type SmtpSink } from '../../src/testing/start-smtp-sink.js';
import { call, digestHeader, freePort, makePdf, spawnServe, tempDataDir } from '../helpers/service-harness.js';

const SECRET = 'kill-secret';
const children = new Set<ChildProcess>();
const cleanup: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const fn of cleanup) await fn();
});

async function serve(dataDir: string, port: number, smtpUrl: string): Promise<ChildProcess> {
  const { child } = await spawnServe({
    dataDir,
    port,
    env: {
      PARAPH_POSTBACK_SECRET: SECRET,
      PARAPH_SMTP_URL: smtpUrl,
      PARAPH_OUTBOX_LEASE_MS: '1500',
      PARAPH_FILE_REPLACE_GUARD_MS: '0',
      // The receiver runs on loopback: the development allow-list (SECURITY.md).
      PARAPH_POSTBACK_ALLOW_HTTP: 'true',
      PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.0/8',
    },
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

function outboxRows(dataDir: string): { id: number; kind: string; status: string }[] {
  const db = openSqliteDatabase(join(dataDir, 'paraph.db'));
  try {
    return db.prepare('SELECT id, kind, status FROM outbox ORDER BY id').all() as { id: number; kind: string; status: string }[];
  } finally {
    db.close();
  }
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

describe('SIGKILL with pending postbacks and mails', () => {
  it('delivers every one after the restart, at least once', async () => {
    let slow = true;
    const receiver: PostbackReceiver = await startPostbackReceiver({ delayMs: () => (slow ? 1500 : 0) });
    const sink: SmtpSink = await startSmtpSink();
    const dataDir = await tempDataDir();
    cleanup.push(() => receiver.close(), () => sink.close(), () => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = await serve(dataDir, port, sink.url);

    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await call(base, 'POST', '/api/transaction', {
        json: {
          Reference: `kill-${i}`,
          PostbackUrl: `${receiver.url}/${i % 2 === 0 ? 'a' : 'b'}`,
          Signers: [{ Email: `signer${i}@example.com`, SendSignRequest: true, SignRequestMessage: `Please sign ${i}` }],
        },
      });
      expect(created.status, created.text).toBe(200);
      const id = created.json.Id as string;
      const pdf = await makePdf([[`Kill test ${i}`]]);
      expect((await call(base, 'PUT', `/api/transaction/${id}/file/k.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf', digest: digestHeader(pdf) } })).status).toBe(201);
      ids.push(id);
    }
    for (const id of ids) expect((await call(base, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    await new Promise((r) => setTimeout(r, 300));
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const delivered = () => new Set(receiver.received.filter((r) => r.answeredWith === 200).map((r) => r.headers['x-paraph-delivery-id'] as string));
    const mailed = () => new Set(sink.received.flatMap((m) => m.to));
    const pendingAtKill = outboxRows(dataDir).filter((row) => row.status === 'pending').length;
    expect(pendingAtKill, 'rows must still be pending at the kill').toBeGreaterThan(0);

    slow = false;
    const second = await serve(dataDir, port, sink.url);
    // Each transaction owes two postbacks (started; the sign request's 101 activity) and one mail.
    await until(() => delivered().size >= 2 * ids.length && mailed().size >= ids.length, 30_000);
    await until(() => outboxRows(dataDir).every((row) => row.status === 'done'), 10_000);
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));

    const rows = outboxRows(dataDir);
    expect(rows.every((row) => row.status === 'done'), JSON.stringify(rows)).toBe(true);
    const postbackRows = rows.filter((row) => row.kind === 'postback').map((row) => String(row.id));
    expect(postbackRows).toHaveLength(2 * ids.length);
    expect([...delivered()].sort()).toEqual([...postbackRows].sort());
    expect([...mailed()].sort()).toEqual(ids.map((_, i) => `signer${i}@example.com`).sort());
    for (const r of receiver.received) expect(verifyPostback(r.body, r.headers, SECRET).valid).toBe(true);
    // Duplicates only where a delivery was in flight: at most one postback per URL, and mails being sent.
    expect(receiver.received.length - postbackRows.length).toBeLessThanOrEqual(2);
    expect(sink.received.length - ids.length).toBeLessThanOrEqual(ids.length);
    // Per URL, rows arrive in enqueue order (first deliveries).
    for (const path of ['/a', '/b']) {
      const firsts: number[] = [];
      for (const r of receiver.received.filter((x) => x.path === path)) {
        const id = Number(r.headers['x-paraph-delivery-id']);
        if (!firsts.includes(id)) firsts.push(id);
      }
      expect(firsts).toEqual([...firsts].sort((x, y) => x - y));
    }
  }, 120_000);
});
