/**
 * Three `paraph serve` processes on one PostgreSQL database, every request sent to a random one of them.
 * The three spec flows (seal-only, one signer, two signers), two signers racing to sign, the same file uploaded to two
 * processes within the re-upload guard window (exactly one 409), and a signer's sign replayed on another process
 * (the same answer, one signature). The processes start one after the other (the first creates the account and keys).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pemToDer } from '../../src/pades/keys/software.js';
import { verifyReceipt } from '../../src/receipt/verify-receipt.js';
import { call, makePdf, runCli, spawnServe, type ApiResponse, type ServeProcess } from '../helpers/service-harness.js';
import { checkSignedPdf, pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { seededRandom } from '../../src/testing/generate-pdf.js';
import { SCRIBBLE_DATA_URL } from '../service/signer/signer-fixture.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

const MASTER_KEY = Buffer.alloc(32, 9).toString('base64');
// Long enough that two uploads sent together on a loaded machine are surely within it.
const GUARD_MS = 10_000;

let cluster: PgCluster;
let dataDir: string;
let databaseUrl: string;
const served: ServeProcess[] = [];
const random = seededRandom(171717);

async function serve(): Promise<ServeProcess> {
  const one = await spawnServe({
    dataDir,
    postgres: { url: databaseUrl, masterKey: MASTER_KEY },
    env: {
      // Mail files beside the data directory, which a PostgreSQL deployment leaves empty (the tests check it).
      PARAPH_MAIL_DIR: `${dataDir}.mail`,
      // Sender notices have an address, as an operator configures it (without one each process warns once).
      PARAPH_NOTIFICATION_EMAIL: 'sender@example.com',
      PARAPH_FILE_REPLACE_GUARD_MS: String(GUARD_MS),
    },
  });
  served.push(one);
  return one;
}

/** A random process's base URL. */
function any(): string {
  return (served[Math.floor(random() * served.length)] as ServeProcess).url;
}

/** Two different processes, in random order. */
function twoDifferent(): [string, string] {
  const first = Math.floor(random() * served.length);
  const second = (first + 1 + Math.floor(random() * (served.length - 1))) % served.length;
  return [(served[first] as ServeProcess).url, (served[second] as ServeProcess).url];
}

beforeAll(async () => {
  cluster = await startPgCluster();
  dataDir = mkdtempSync(join(tmpdir(), 'paraph-three-'));
  databaseUrl = await cluster.createDatabase();
  const migrated = await runCli(['migrate', '--database-url', databaseUrl], { cwd: dataDir });
  expect(migrated.code, migrated.out).toBe(0);
  await serve();
  await serve();
  await serve();
}, 300_000);

afterAll(async () => {
  await Promise.all(served.map((one) => one.stop(15_000)));
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(`${dataDir}.mail`, { recursive: true, force: true });
}, 60_000);

const signer = (base: string, token: string, path: string, json?: unknown): Promise<ApiResponse> =>
  call(base, json === undefined ? 'GET' : 'POST', `/api/signer/${token}${path}`, { auth: false, ...(json !== undefined ? { json } : {}) });

interface Started {
  readonly id: string;
  readonly tokens: readonly string[];
}

/** Creates a transaction with `signers` (Consent and Scribble each), uploads one PDF and starts it, each on a random process. */
async function startedTransaction(signers: number, seal = true): Promise<Started> {
  const created = await call(any(), 'POST', '/api/transaction', {
    json: {
      Seal: seal,
      Signers: Array.from({ length: signers }, (_, i) => ({ SendSignRequest: false, Email: `signer${i + 1}@example.com`, Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] })),
    },
  });
  expect(created.status, created.text).toBe(200);
  const id = created.json.Id as string;
  const pdf = await makePdf([['Agreement signed across processes']]);
  const upload = await call(any(), 'PUT', `/api/transaction/${id}/file/agreement.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
  expect(upload.status, upload.text).toBe(201);
  const start = await call(any(), 'PUT', `/api/transaction/${id}/start`);
  expect(start.status, start.text).toBe(204);
  const got = await call(any(), 'GET', `/api/transaction/${id}`);
  expect(got.json.Status).toBe(10);
  return { id, tokens: (got.json.Signers as { SignUrl: string }[]).map((s) => s.SignUrl.split('/sign/')[1] as string) };
}

/** Consent and scribble, each step on a random process. */
async function verify(token: string, name: string): Promise<void> {
  expect((await signer(any(), token, '/verification', { Type: 'Consent' })).status).toBe(200);
  const scribble = await signer(any(), token, '/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: name });
  expect(scribble.status, scribble.text).toBe(200);
}

async function download(id: string): Promise<Uint8Array> {
  const file = await call(any(), 'GET', `/api/transaction/${id}/file/agreement.pdf`);
  expect(file.status).toBe(200);
  return file.bytes;
}

/** The audit entry types of a completed transaction, from its verified receipt. */
async function receiptEntryTypes(id: string, sealCaPem: string): Promise<string[]> {
  const receipt = await call(any(), 'GET', `/api/file/receipt/${id}`);
  expect(receipt.status).toBe(200);
  const verdict = await verifyReceipt(receipt.bytes, { trustRoots: [pemToDer(sealCaPem)], now: new Date() });
  expect(verdict.ok, verdict.problems.join('\n')).toBe(true);
  return verdict.attachment?.entries.map((e) => e.type) ?? [];
}

/** Every signature pdfsig finds is valid, and there are `count` of them; qpdf accepts the file. */
async function expectSignatures(pdf: Uint8Array, count: number): Promise<void> {
  const sig = await pdfsigCheck(pdf);
  expect(sig.signatures.map((s) => s.valid), sig.stdout + sig.stderr).toEqual(Array.from({ length: count }, () => true));
  const qpdf = await qpdfCheck(pdf);
  expect(qpdf.ok, qpdf.stdout + qpdf.stderr).toBe(true);
}

async function sealCa(): Promise<string> {
  const pems = await Promise.all(served.map(async ({ url: base }) => (await call(base, 'GET', '/api/ca/seal.pem', { auth: false })).text));
  // One seal for the whole deployment: every process serves the same CA.
  expect(new Set(pems).size).toBe(1);
  return pems[0] as string;
}

describe('three paraph serve processes on one PostgreSQL database', () => {
  it('runs the seal-only flow with each request on a random process, and keeps nothing in the data directory', async () => {
    const sealCaPem = await sealCa();
    const created = await call(any(), 'POST', '/api/transaction', { json: { Seal: true, Reference: 'three-seal' } });
    expect(created.status).toBe(200);
    const id = created.json.Id as string;
    const pdf = await makePdf([['Sealed by one of three processes']]);
    expect((await call(any(), 'PUT', `/api/transaction/${id}/file/agreement.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
    expect((await call(any(), 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    expect((await call(any(), 'GET', `/api/transaction/${id}`)).json.Status).toBe(30);
    const sealed = await download(id);
    expect(Buffer.from(sealed.subarray(0, pdf.length)).equals(Buffer.from(pdf))).toBe(true);
    const tools = await checkSignedPdf(sealed, sealCaPem);
    expect(tools.pdfsig.map((s) => s.valid), tools.details).toEqual([true]);
    expect(tools.openssl, tools.details).toEqual([true]);
    expect(tools.qpdf, tools.details).toBe(true);
    expect(await receiptEntryTypes(id, sealCaPem)).toEqual([
      'transaction.created',
      'file.uploaded',
      'transaction.started',
      'transaction.sealed',
      'document.finalized',
      'transaction.completed',
    ]);
    expect(readdirSync(dataDir)).toEqual([]);
  }, 180_000);

  it('a seal-only transaction started on all three processes at once is sealed once', async () => {
    const sealCaPem = await sealCa();
    const id = (await call(any(), 'POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    const pdf = await makePdf([['Started three times at once']]);
    expect((await call(any(), 'PUT', `/api/transaction/${id}/file/agreement.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
    const starts = await Promise.all(served.map(({ url: base }) => call(base, 'PUT', `/api/transaction/${id}/start`)));
    const outcomes = starts.map((r) => (r.status === 204 ? '204' : `${r.status} ${r.headers.get('paraph-error-code')}`));
    expect(outcomes.filter((o) => o === '204'), outcomes.join(', ')).toHaveLength(1);
    for (const o of outcomes) expect(['204', '409 START_CONFLICT', '400 TRANSACTION_ALREADY_STARTED']).toContain(o);
    expect((await call(any(), 'GET', `/api/transaction/${id}`)).json.Status).toBe(30);
    await expectSignatures(await download(id), 1);
    const types = await receiptEntryTypes(id, sealCaPem);
    expect(types.filter((t) => t === 'transaction.sealed')).toHaveLength(1);
    expect(types.filter((t) => t === 'transaction.started')).toHaveLength(1);
  }, 180_000);

  it('runs the one-signer flow: verification, sign and download on random processes; signed and sealed', async () => {
    const sealCaPem = await sealCa();
    const tx = await startedTransaction(1);
    await verify(tx.tokens[0] as string, 'Ada Lovelace');
    const signed = await signer(any(), tx.tokens[0] as string, '/sign', {});
    expect(signed.status, signed.text).toBe(200);
    expect(signed.json.TransactionStatus).toBe(30);
    await expectSignatures(await download(tx.id), 2);
    const types = await receiptEntryTypes(tx.id, sealCaPem);
    expect(types.filter((t) => t === 'signer.signed')).toHaveLength(1);
    expect(types.filter((t) => t === 'transaction.sealed')).toHaveLength(1);
  }, 180_000);

  it('runs the two-signer flow in turn on random processes: two signer signatures and one seal', async () => {
    const sealCaPem = await sealCa();
    const tx = await startedTransaction(2);
    const [one, two] = tx.tokens as [string, string];
    await verify(one, 'Ada Lovelace');
    expect((await signer(any(), one, '/sign', {})).json.TransactionStatus).toBe(10);
    await verify(two, 'Grace Hopper');
    const done = await signer(any(), two, '/sign', {});
    expect(done.status, done.text).toBe(200);
    expect(done.json.TransactionStatus).toBe(30);
    await expectSignatures(await download(tx.id), 3);
    const types = await receiptEntryTypes(tx.id, sealCaPem);
    expect(types.filter((t) => t === 'signer.signed')).toHaveLength(2);
    expect(types.filter((t) => t === 'transaction.sealed')).toHaveLength(1);
  }, 180_000);

  it('two signers racing to sign on different processes: the second is refused until the first has signed, one seal', async () => {
    const sealCaPem = await sealCa();
    const tx = await startedTransaction(2);
    const [one, two] = tx.tokens as [string, string];
    await verify(one, 'Ada Lovelace');
    const [a, b] = twoDifferent();
    // Signers sign in turn (docs/design/transactions.md#signing-order): while the first signs on one process, the
    // second keeps trying on another.
    let firstDone = false;
    const first = signer(a, one, '/sign', {}).finally(() => (firstDone = true));
    const refusals = new Set<string>();
    do {
      const early = await signer(b, two, '/sign', {});
      refusals.add(`${early.status} ${early.headers.get('paraph-error-code')}`);
    } while (!firstDone);
    expect((await first).status, (await first).text).toBe(200);
    // Before the first signed: not at turn; while it signs: in progress; after: the second's verification is missing.
    for (const refusal of refusals) expect(['409 SIGNER_NOT_AT_TURN', '409 SIGNING_IN_PROGRESS', '400 VERIFICATION_MISSING']).toContain(refusal);
    await verify(two, 'Grace Hopper');
    const second = await signer(b, two, '/sign', {});
    expect(second.status, second.text).toBe(200);
    expect(second.json.TransactionStatus).toBe(30);
    await expectSignatures(await download(tx.id), 3);
    const types = await receiptEntryTypes(tx.id, sealCaPem);
    expect(types.filter((t) => t === 'signer.signed')).toHaveLength(2);
    expect(types.filter((t) => t === 'transaction.sealed')).toHaveLength(1);
  }, 180_000);

  it('the same file uploaded to two processes within the guard window: exactly one 409', async () => {
    const pdf = await makePdf([['Uploaded twice at once']]);
    const upload = (base: string, id: string) =>
      call(base, 'PUT', `/api/transaction/${id}/file/agreement.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });

    // At the same moment, a few times over: the PDF, and the metadata of another file.
    const metadata = { Signers: { Signer1: { FormSets: ['f'] } }, FormSets: { f: { sig: { Type: 'Signature', Location: { PageNumber: 1 } } } } };
    const putMetadata = (base: string, id: string) => call(base, 'PUT', `/api/transaction/${id}/file/terms.pdf`, { json: metadata });
    for (let round = 0; round < 4; round++) {
      const together = (await call(any(), 'POST', '/api/transaction', { json: { Seal: true, Signers: [{ SendSignRequest: false, Email: 'a@example.com' }] } })).json.Id as string;
      const [a, b] = twoDifferent();
      const pdfs = (await Promise.all([upload(a, together), upload(b, together)])).map((r) => r.status);
      expect(pdfs.sort()).toEqual([201, 409]);
      const [c, d] = twoDifferent();
      const metas = (await Promise.all([putMetadata(c, together), putMetadata(d, together)])).map((r) => r.status);
      expect(metas.sort()).toEqual([202, 409]);
    }

    // One after the other, the second within the window of the first.
    const after = (await call(any(), 'POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    const [c, d] = twoDifferent();
    expect((await upload(c, after)).status).toBe(201);
    const again = await upload(d, after);
    expect(again.status, again.text).toBe(409);
  }, 120_000);

  it("a signer's sign replayed on another process answers the same and signs nothing more", async () => {
    const tx = await startedTransaction(1, false);
    const token = tx.tokens[0] as string;
    await verify(token, 'Ada Lovelace');
    const [a, b] = twoDifferent();
    // Sent twice at the same moment (a double click landing on two processes): one signs, the other waits or replays.
    const both = await Promise.all([signer(a, token, '/sign', {}), signer(b, token, '/sign', {})]);
    const ok = both.filter((r) => r.status === 200);
    expect(ok.length, both.map((r) => `${r.status} ${r.text}`).join('\n')).toBeGreaterThanOrEqual(1);
    for (const r of both) if (r.status !== 200) expect([r.status, r.headers.get('paraph-error-code')], r.text).toEqual([409, 'SIGNING_IN_PROGRESS']);
    const answer = (ok[0] as ApiResponse).json;
    expect(answer).toMatchObject({ SignerStatus: 'signed', TransactionStatus: 30 });
    for (const r of ok) expect(r.json).toEqual(answer);
    const signedPdf = await download(tx.id);
    // Replayed later on each process: the same answer, the same bytes.
    for (const { url: base } of served) {
      const replay = await signer(base, token, '/sign', {});
      expect(replay.status, replay.text).toBe(200);
      expect(replay.json).toEqual(answer);
    }
    const after = await download(tx.id);
    expect(Buffer.from(after).equals(Buffer.from(signedPdf))).toBe(true);
    await expectSignatures(after, 1);
  }, 180_000);

  it('no process logged a warning or an error through all of this', () => {
    expect(served).toHaveLength(3);
    for (const { output } of served) expect(output().split('\n').filter((line) => line.includes('"level":'))).toEqual([]);
  });
});
