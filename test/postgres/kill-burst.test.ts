/**
 * Scale-out under crashes (docs/design/storage.md#jobs): kill -9 of random `paraph serve` processes (three on one
 * PostgreSQL database) during a burst of 200 transactions with postbacks to a receiver that refuses 30% of what it gets
 * (each request, at random). After the survivors catch up, every transaction is at its end state, every postback was
 * delivered (at least once, in order, duplicates only with the same delivery id), no document or audit entry is lost,
 * and every receipt's audit chain verifies.
 *
 * Two choices keep this within a few minutes; they follow from the service's own timings, not from its guarantees:
 * - Refused postbacks are retried from PARAPH_RETRY_BASE_MS = 1 s (then 2 s, 4 s …; the default is 30 s), so that a
 *   receiver refusing each request at random 30% of the time does not hold its URL's queue for many minutes.
 * - A process killed while it applies a signature leaves the signing hold, which goes stale after 5 minutes
 *   (SIGNING_HOLD_STALE_MS; test/service/stale-signing-hold.test.ts). So a process with a sign request of this test
 *   in flight is not chosen as a victim; every other request is fair game.
 * A process killed while it receives an upload leaves that fileId's re-upload guard slot taken until its lease ends
 * (30 s, src/service/policies/upload-guard.ts): the client then uploads the PDF under another fileId rather than wait.
 */
import { createHash } from 'node:crypto';
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pemToDer } from '../../src/pades/keys/software.js';
import { verifyReceipt } from '../../src/receipt/verify-receipt.js';
import { createTestClient } from '../../src/testing/start-test-service.js';
import { checkServedResponse } from '../contract/served-contract.js';
import { makePdf, runCli, spawnServe, stopChild, type ApiResponse, type ServeProcess } from '../helpers/service-harness.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { seededRandom } from '../../src/testing/generate-pdf.js';
import { SCRIBBLE_DATA_URL } from '../service/signer/signer-fixture.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

const TRANSACTIONS = 200;
/** Every SIGNER_EVERY-th transaction has one signer (signed through the signer API); the others are seal-only. */
const SIGNER_EVERY = 10;
const URLS = 100;
const CONCURRENCY = 6;
/** Finished flows at which a process is killed. */
const KILL_AT = [25, 65, 105, 145];
const REFUSE = 0.3;
const CATCH_UP_MS = 180_000;
const SEED = 1717;

const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
const POSTBACK_SECRET = 'kill-burst-postback-secret';
const SEAL_ONLY_ENTRIES = ['transaction.created', 'file.uploaded', 'transaction.started', 'transaction.sealed', 'document.finalized', 'transaction.completed'];

/** One request the postback receiver got. */
interface Received {
  readonly path: string;
  readonly id: string;
  readonly status: number;
  readonly deliveryId: string;
  readonly checksumHeader: string | undefined;
  readonly checksumBody: unknown;
  readonly code: number;
  /** Milliseconds since the receiver started. */
  readonly at: number;
}

/** A transaction the client got an Id for. */
interface Flow {
  readonly id: string;
  readonly url: string;
  readonly signer: boolean;
  readonly pdf: Uint8Array;
  readonly fileId: string;
  /** The upload was sent again after its process died: the first copy may have been stored too. */
  readonly uploadResent: boolean;
}

let cluster: PgCluster | undefined;
let dataDir: string;
let databaseUrl: string;
let receiver: Server;
let receiverBase: string;
const received: Received[] = [];
/** Every child ever spawned, for cleanup. */
const children: ChildProcess[] = [];
/** Healthy processes not killed. */
const alive: ServeProcess[] = [];
const killed: ServeProcess[] = [];
/** Sign requests in flight per base URL (such a process is not killed, see the header). */
const signing = new Map<string, number>();
const random = seededRandom(SEED);

/** The settings of every process (PostgreSQL, the data directory and the test account come from the harness). */
const ENV = {
  // Sender notices have an address, as an operator configures it (without one each process warns once).
  PARAPH_NOTIFICATION_EMAIL: 'sender@example.com',
  PARAPH_POSTBACK_SECRET: POSTBACK_SECRET,
  PARAPH_POSTBACK_ALLOW_HTTP: 'true',
  PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.1/32',
  // Jobs locked by a killed process run elsewhere once it has been silent for 3 s.
  PARAPH_OUTBOX_LEASE_MS: '3000',
  PARAPH_RETRY_BASE_MS: '1000',
  PARAPH_WORKER_INTERVAL_MS: '200',
  PARAPH_ACCOUNT_REQUESTS_PER_MINUTE: '1000000',
};

async function serve(): Promise<ServeProcess> {
  const one = await spawnServe({
    dataDir,
    postgres: { url: databaseUrl, masterKey: MASTER_KEY },
    // Mail files beside the data directory, which a PostgreSQL deployment leaves empty.
    env: { ...ENV, PARAPH_MAIL_DIR: `${dataDir}.mail` },
    spawned: (child) => children.push(child),
  });
  alive.push(one);
  return one;
}

/** Whether the `nth` request (0-based) of a delivery is refused: a seeded draw per delivery id and request. */
function refuses(deliveryId: string, nth: number): boolean {
  return createHash('sha256').update(`${SEED}:${deliveryId}:${nth}`).digest().readUInt32BE(0) / 2 ** 32 < REFUSE;
}

function startReceiver(): Promise<void> {
  const since = Date.now();
  const seen = new Map<string, number>();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const deliveryId = String(req.headers['x-paraph-delivery-id'] ?? '');
      const nth = seen.get(deliveryId) ?? 0;
      const code = refuses(deliveryId, nth) ? 500 : 200;
      seen.set(deliveryId, nth + 1);
      let body: { Id?: unknown; Status?: unknown; Checksum?: unknown } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        // recorded with an empty Id; the assertions catch it
      }
      const checksum = req.headers.checksum;
      received.push({
        path: req.url ?? '',
        id: String(body.Id ?? ''),
        status: Number(body.Status),
        deliveryId,
        checksumHeader: Array.isArray(checksum) ? checksum[0] : checksum,
        checksumBody: body.Checksum,
        code,
        at: Date.now() - since,
      });
      res.writeHead(code).end();
    });
  });
  return new Promise((resolve) =>
    receiver.listen(0, '127.0.0.1', () => {
      const address = receiver.address();
      receiverBase = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
      resolve();
    }),
  );
}

beforeAll(async () => {
  cluster = await startPgCluster();
  dataDir = mkdtempSync(join(tmpdir(), 'paraph-killburst-'));
  databaseUrl = await cluster.createDatabase();
  const migrated = await runCli(['migrate', '--database-url', databaseUrl], { cwd: dataDir });
  expect(migrated.code, migrated.out).toBe(0);
  await startReceiver();
  // One after the other: the first creates the account and keys.
  for (let i = 0; i < 3; i++) await serve();
}, 300_000);

afterAll(async () => {
  await Promise.all(children.map((child) => stopChild(child, 10_000)));
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  await cluster?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (dataDir) rmSync(`${dataDir}.mail`, { recursive: true, force: true });
}, 60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Requests that went to a process that died under them and were sent again. */
let resent = 0;
/** Requests answered 503 (and sent again to another process). */
const unavailable: string[] = [];
/** Uploads sent again that met the guard of a first copy that was stored (fine), or of one that was not (stalled). */
let guardAfterStored = 0;
let guardStalls = 0;

/**
 * Sends a request to a random live process; when the connection fails (its process was killed), sends it again to
 * another. `retried` tells the caller whether an earlier copy may have reached the service.
 */
async function send(
  method: string,
  path: string,
  options: { json?: unknown; body?: Uint8Array; headers?: Record<string, string>; auth?: boolean; sign?: boolean } = {},
): Promise<{ response: ApiResponse; retried: boolean }> {
  const { sign, ...request } = options;
  const deadline = Date.now() + 60_000;
  for (let attempt = 0; ; attempt++) {
    const target = alive[Math.floor(random() * alive.length)] as ServeProcess;
    if (sign) signing.set(target.url, (signing.get(target.url) ?? 0) + 1);
    try {
      const response = (await createTestClient(target.url).request(method, path, request)) as ApiResponse;
      // fastify's answer while its server closes: a load balancer sends the request elsewhere. Not expected here
      // (no process is stopped gracefully), so counted; every other answer is held to the OpenAPI document.
      if (response.status !== 503 || Date.now() > deadline) {
        await checkServedResponse(target.url, { method, path }, response);
        return { response, retried: attempt > 0 };
      }
      unavailable.push(`${target.url} ${method} ${path}`);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      resent++;
      await sleep(100);
    } finally {
      if (sign) signing.set(target.url, (signing.get(target.url) ?? 1) - 1);
    }
  }
}

function expectStatus(what: string, got: { response: ApiResponse; retried: boolean }, ok: number, onRetry: readonly string[] = []): void {
  const { response, retried } = got;
  if (response.status === ok) return;
  const code = response.headers.get('paraph-error-code') ?? '';
  if (retried && onRetry.includes(code)) return;
  throw new Error(`${what}: ${response.status} ${code} ${response.text}${retried ? ' (sent again after a killed process)' : ''}`);
}

/**
 * Uploads the PDF and returns its fileId. Sent again after its process died, the upload meets the re-upload guard
 * slot the dead process took (409 UPLOAD_CONFLICT), whether or not that copy was stored; the slot stays taken for
 * ten minutes (SHARED_LEASE_MS in src/service/policies/upload-guard.ts). Then the file is there, or it is uploaded under
 * another fileId.
 */
async function uploadFile(index: number, id: string, pdf: Uint8Array): Promise<{ fileId: string; resent: boolean }> {
  let resent = false;
  for (let round = 0; round < 5; round++) {
    const fileId = round === 0 ? 'agreement.pdf' : `agreement-${round}.pdf`;
    const upload = await send('PUT', `/api/transaction/${id}/file/${fileId}`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
    resent ||= upload.retried;
    if (upload.response.status === 201) return { fileId, resent };
    expectStatus(`upload ${index}`, upload, 201, ['UPLOAD_CONFLICT']);
    const files = (await send('GET', `/api/transaction/${id}`)).response.json.Files as Record<string, unknown>;
    if (fileId in files) {
      guardAfterStored++;
      return { fileId, resent };
    }
    guardStalls++;
  }
  throw new Error(`upload ${index}: refused five times`);
}

/** One transaction from create to its end state (30), each request on a random live process. */
async function runFlow(index: number): Promise<Flow> {
  const signer = index % SIGNER_EVERY === SIGNER_EVERY - 1;
  // Two consecutive transactions share a URL (created at nearly the same time, so their postbacks interleave), and
  // no URL gets two signer flows (theirs are four postbacks each).
  const url = `${receiverBase}/hook/${Math.floor(index / (TRANSACTIONS / URLS)) % URLS}`;
  const created = await send('POST', '/api/transaction', {
    json: {
      Seal: true,
      Reference: `burst-${index}`,
      PostbackUrl: url,
      Signers: signer ? [{ SendSignRequest: false, Email: `signer${index}@example.com`, SendSignConfirmation: false, Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] }] : [],
    },
  });
  expectStatus(`create ${index}`, created, 200);
  const id = created.response.json.Id as string;
  const pdf = await makePdf([[`Burst transaction ${index}`]]);
  const upload = await uploadFile(index, id, pdf);
  const flow: Flow = { id, url, signer, pdf, fileId: upload.fileId, uploadResent: upload.resent };
  const start = await send('PUT', `/api/transaction/${id}/start`);
  expectStatus(`start ${index}`, start, 204, ['TRANSACTION_ALREADY_STARTED', 'START_CONFLICT']);
  if (!signer) return flow;
  const got = await send('GET', `/api/transaction/${id}`);
  expectStatus(`get ${index}`, got, 200);
  const token = (got.response.json.Signers as { SignUrl: string }[])[0]?.SignUrl.split('/sign/')[1] as string;
  const consent = await send('POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'Consent' } });
  expectStatus(`consent ${index}`, consent, 200, ['VERIFICATION_ALREADY_DONE']);
  const scribble = await send('POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: `Signer ${index}` } });
  expectStatus(`scribble ${index}`, scribble, 200, ['VERIFICATION_ALREADY_DONE']);
  const signed = await send('POST', `/api/signer/${token}/sign`, { auth: false, json: {}, sign: true });
  expectStatus(`sign ${index}`, signed, 200);
  expect(signed.response.json.TransactionStatus).toBe(30);
  return flow;
}

/** Kills a random live process with no sign request in flight and starts a replacement (on a new port). */
async function killOne(): Promise<void> {
  const victims = alive.filter((p) => (signing.get(p.url) ?? 0) === 0);
  const victim = victims[Math.floor(random() * victims.length)];
  if (victim === undefined) return;
  alive.splice(alive.indexOf(victim), 1);
  killed.push(victim);
  victim.child.kill('SIGKILL');
  await serve();
}

async function burst(): Promise<{ flows: Flow[]; kills: number; ms: number }> {
  const started = Date.now();
  const flows: Flow[] = [];
  let next = 0;
  let finished = 0;
  let done = false;
  const worker = async () => {
    // After one flow failed the others stop too (else they would still be sending while afterAll stops the processes).
    while (next < TRANSACTIONS && !done) {
      const index = next++;
      try {
        flows.push(await runFlow(index));
      } catch (error) {
        done = true;
        throw error;
      }
      finished++;
    }
  };
  let kills = 0;
  const killer = async () => {
    for (const at of KILL_AT) {
      while (finished < at && !done) await sleep(50);
      if (done) return;
      // Never all at once: the replacement of the last victim is up before the next kill (three alive, two after).
      while (alive.length < 3 || alive.every((p) => (signing.get(p.url) ?? 0) > 0)) await sleep(20);
      await killOne();
      kills++;
    }
  };
  const killing = killer();
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    done = true;
    await killing;
  }
  return { flows, kills, ms: Date.now() - started };
}

/** A GET on any live process, sent again when its process is gone. */
async function get(path: string, options: { auth?: boolean } = {}): Promise<ApiResponse> {
  return (await send('GET', path, options)).response;
}

function twoHundred(r: Received): boolean {
  return r.code >= 200 && r.code < 300;
}

/** For a failure message: what the receiver and the outbox tables (while there are such) say about deliveries. */
async function diagnose(deliveryIds: readonly string[]): Promise<string> {
  if (deliveryIds.length === 0) return '';
  const lines = received.filter((r) => deliveryIds.includes(r.deliveryId)).map((r) => `received ${JSON.stringify(r)}`);
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const ids = deliveryIds.map(Number);
    const rows = await client.query('SELECT id, status, attempts, due_at, lease_until, last_error FROM outbox WHERE id = ANY($1)', [ids]);
    const attempts = await client.query('SELECT outbox_id, attempt, at, outcome, response_code, detail FROM outbox_attempts WHERE outbox_id = ANY($1) ORDER BY id', [ids]);
    lines.push(`now ${Date.now()}`, ...rows.rows.map((r) => `outbox ${JSON.stringify(r)}`), ...attempts.rows.map((r) => `attempt ${JSON.stringify(r)}`));
  } catch (error) {
    lines.push(`no outbox tables to read: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  return lines.join('\n');
}

/** The outbox rows of a transaction and the job-engine jobs of their keys, for a failure message. */
async function diagnoseTransaction(transactionId: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const rows = await client.query('SELECT id, kind, order_key, status, attempts, due_at, last_error FROM outbox WHERE transaction_id = $1 ORDER BY id', [
      transactionId,
    ]);
    const keys = rows.rows.map((r: { id: string; order_key: string | null }) => `paraph:${r.order_key === null ? `row:${r.id}` : `key:${r.order_key}`}`);
    const jobs = await client.query(
      'SELECT key, queue_name, run_at, attempts, last_error, locked_by, locked_at FROM graphile_worker.jobs WHERE key = ANY($1)',
      [keys],
    );
    const nodes = await client.query('SELECT pool_id, heartbeat_at FROM job_nodes');
    return [
      `now ${Date.now()}`,
      ...rows.rows.map((r) => `outbox ${JSON.stringify(r)}`),
      ...jobs.rows.map((r) => `job ${JSON.stringify(r)}`),
      ...nodes.rows.map((r) => `node ${JSON.stringify(r)}`),
    ].join('\n');
  } catch (error) {
    return `no diagnosis: ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function inPool<T>(items: readonly T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await each(items[next++] as T);
    }),
  );
}

/** Every PDF is the upload plus valid signatures and every receipt verifies; returns the audit entries counted. */
async function checkDocuments(flows: readonly Flow[]): Promise<number> {
  const sealCaPem = (await get('/api/ca/seal.pem', { auth: false })).text;
  // openssl checks the signer's signature against the signing CA, the seal against the seal CA.
  const caPems = `${(await get('/api/ca/signing.pem', { auth: false })).text}\n${sealCaPem}`;
  let entries = 0;
  await inPool(flows, 3, async (flow) => {
    const file = await get(`/api/transaction/${flow.id}/file/${flow.fileId}`);
    expect(file.status, `file of ${flow.id}`).toBe(200);
    expect(Buffer.from(file.bytes.subarray(0, flow.pdf.length)).equals(Buffer.from(flow.pdf)), `file of ${flow.id} starts with the upload`).toBe(true);
    const tools = await checkSignedPdf(file.bytes, caPems);
    const signatures = Array.from({ length: flow.signer ? 2 : 1 }, () => true);
    expect(tools.pdfsig.map((s) => s.valid), tools.details).toEqual(signatures);
    expect(tools.openssl, tools.details).toEqual(signatures);
    expect(tools.qpdf, tools.details).toBe(true);
    const receipt = await get(`/api/file/receipt/${flow.id}`);
    expect(receipt.status, `receipt of ${flow.id}`).toBe(200);
    const verdict = await verifyReceipt(receipt.bytes, { trustRoots: [pemToDer(sealCaPem)], now: new Date() });
    expect(verdict.ok, verdict.problems.join('\n')).toBe(true);
    const all = verdict.attachment?.entries.map((e) => e.type) ?? [];
    entries += all.length;
    // An upload sent again after the guard window stores the same file a second time (its own audit entry).
    const types = flow.uploadResent ? all.filter((t, i) => t !== 'file.uploaded' || all[i - 1] !== 'file.uploaded') : all;
    if (!flow.signer) expect(types, `audit of ${flow.id}`).toEqual(SEAL_ONLY_ENTRIES);
    else for (const once of [...SEAL_ONLY_ENTRIES, 'signer.signed']) expect(types.filter((t) => t === once), `${once} in the audit of ${flow.id}`).toHaveLength(1);
  });
  return entries;
}

/** Waits (at most CATCH_UP_MS) until every postback seen was accepted and each transaction's final one came. */
async function postbacksCaughtUp(flows: readonly Flow[]): Promise<number> {
  const started = Date.now();
  const done = () => {
    const accepted = new Set(received.filter(twoHundred).map((r) => r.deliveryId));
    const finals = new Set(received.filter((r) => twoHundred(r) && r.status === 30).map((r) => r.id));
    return received.every((r) => accepted.has(r.deliveryId)) && flows.every((f) => finals.has(f.id));
  };
  while (!done() && Date.now() - started < CATCH_UP_MS) await sleep(500);
  return Date.now() - started;
}

describe('kill -9 during a burst of 200 transactions on three processes sharing PostgreSQL', () => {
  it('loses nothing: end states, postbacks at least once and in order, documents, audit chains', async () => {
    const { flows, kills, ms: burstMs } = await burst();
    expect(flows).toHaveLength(TRANSACTIONS);
    expect(kills).toBeGreaterThanOrEqual(3);
    const byId = new Map(flows.map((f) => [f.id, f]));

    // Every transaction at its end state (each flow ends at 30 in its last answer; read again from any process).
    const statuses = await Promise.all(flows.map(async (f) => (await get(`/api/transaction/${f.id}`)).json.Status as number));
    expect(flows.filter((_, i) => statuses[i] !== 30).map((f) => f.id)).toEqual([]);

    // Documents and receipts are read while the survivors deliver the postbacks still due.
    const [auditEntries, catchUpMs] = await Promise.all([checkDocuments(flows), postbacksCaughtUp(flows)]);

    // Every postback is for a transaction of this test, to its own URL, with the right checksum.
    for (const r of received) {
      const flow = byId.get(r.id);
      expect(flow, `postback for an unknown transaction: ${JSON.stringify(r)}`).toBeDefined();
      expect(`${receiverBase}${r.path}`).toBe(flow?.url);
      const checksum = createHash('sha1').update(`${r.id}||${r.status}|${POSTBACK_SECRET}`).digest('hex');
      expect([r.checksumHeader, r.checksumBody]).toEqual([checksum, checksum]);
    }

    // Duplicates only with the same delivery id: one delivery id is one (URL, Id, Status).
    const deliveries = new Map<string, string>();
    for (const r of received) {
      const what = `${r.path} ${r.id} ${r.status}`;
      expect(deliveries.get(r.deliveryId) ?? what, `delivery ${r.deliveryId}`).toBe(what);
      deliveries.set(r.deliveryId, what);
    }
    // Every delivery refused at some attempt was accepted later (at least once).
    const accepted = received.filter(twoHundred);
    const acceptedIds = new Set(accepted.map((r) => r.deliveryId));
    const neverAccepted = [...new Set(received.map((r) => r.deliveryId))].filter((d) => !acceptedIds.has(d));
    expect(neverAccepted, `after ${catchUpMs} ms: ${await diagnose(neverAccepted)}`).toEqual([]);

    // In order: per transaction, the first accepted copy of each delivery comes in the order the changes were
    // committed (delivery ids grow with it), and the statuses never go back.
    const firstAccepted = new Map<string, Received>();
    for (const r of accepted) if (!firstAccepted.has(r.deliveryId)) firstAccepted.set(r.deliveryId, r);
    const perTransaction = new Map<string, Received[]>();
    for (const r of firstAccepted.values()) perTransaction.set(r.id, [...(perTransaction.get(r.id) ?? []), r]);
    for (const flow of flows) {
      const sequence = perTransaction.get(flow.id) ?? [];
      const ids = sequence.map((r) => Number(r.deliveryId));
      expect(ids, `delivery order of ${flow.id}`).toEqual([...ids].sort((a, b) => a - b));
      const statuses = sequence.map((r) => r.status);
      expect(statuses, `status order of ${flow.id}`).toEqual([...statuses].sort((a, b) => a - b));
      if (statuses.at(-1) !== 30) expect.fail(`last postback of ${flow.id}: ${statuses.join(', ') || 'none'}\n${await diagnoseTransaction(flow.id)}`);
      if (flow.signer) expect([...new Set(statuses)], `statuses of ${flow.id}`).toEqual([10, 20, 30]);
      // A seal-only transaction has exactly one postback (its 30): every copy received carries one delivery id.
      else expect(new Set(received.filter((r) => r.id === flow.id).map((r) => r.deliveryId)).size, `deliveries of ${flow.id}`).toBe(1);
    }
    // Across the transactions sharing a URL, deliveries of rows committed at nearly the same moment may swap
    // (their ids come from a sequence before commit): counted, not asserted.
    let swaps = 0;
    for (let u = 0; u < URLS; u++) {
      const ids = [...firstAccepted.values()].filter((r) => r.path === `/hook/${u}`).map((r) => Number(r.deliveryId));
      for (let i = 1; i < ids.length; i++) if ((ids[i] as number) < (ids[i - 1] as number)) swaps++;
    }

    // No process, killed or not, logged a warning or an error.
    for (const { url: base, output } of [...killed, ...alive]) expect(output().split('\n').filter((line) => line.includes('"level":')), base).toEqual([]);
    expect(unavailable).toEqual([]);

    console.log(
      JSON.stringify({
        burstMs,
        catchUpMs,
        kills,
        resent,
        guardAfterStored,
        guardStalls,
        postbackRequests: received.length,
        refused: received.filter((r) => !twoHundred(r)).length,
        deliveries: deliveries.size,
        duplicateAccepts: accepted.length - acceptedIds.size,
        crossTransactionSwaps: swaps,
        auditEntries,
      }),
    );
  }, 420_000);
});
