/**
 * Transaction service benchmark: the embedded service (SQLite store, RSA seal as in production) on
 * 127.0.0.1 in this process, loaded with autocannon and a fetch client.
 * - GET /api/transaction/{id}: requests/s and p99 latency (autocannon, 10 connections, 10 s; SERVICE_BENCH_SECONDS),
 *   next to a bare node:http server answering the same body (the reference).
 * - Seal-only transactions (create + upload + start, which seals and builds the sealed receipt), completed per second
 *   with 4 clients in parallel, for a 1-page and a 100-page PDF, next to sealPdf alone on the same PDF.
 * - GET /api/transaction/{id} while a signer signs a 1000-page document (SERVICE_BENCH_SIGN_PAGES) with seal and
 *   receipt, again and again: the GET's p99 shows whether signing holds up the serving thread.
 * - RSS over many seal-only transactions (default 2,000; `SERVICE_BENCH_TX=10000 npm run bench -- service`).
 * Targets (2 cores): GET ≥ 3,000 req/s with p99 < 20 ms (also during a sign); ≥ 20 seal-only transactions/s (1 page);
 * memory flat.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { benchPdf } from './gen-pdf.js';
import { sealPdf } from '../src/pades/seal-pdf.js';
import { testPki } from '../src/testing/test-pki.js';
import { fmt, printTable } from './lib.js';
import { APP, autocannon, HEADERS, sealOnlyRate, USER, type AutocannonResult } from './service-load.js';

/** A started, sealed transaction of `pdf` with one signer who has consented: the signer's token. */
async function readyToSign(url: string, pdf: Uint8Array): Promise<string> {
  const created = await fetch(`${url}/api/transaction`, {
    method: 'POST',
    headers: { ...HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({ Seal: true, Signers: [{ Email: 'signer@example.com', SendSignRequest: false, Verifications: [{ Type: 'Consent' }] }] }),
  });
  const { Id } = (await created.json()) as { Id: string };
  const upload = await fetch(`${url}/api/transaction/${Id}/file/doc.pdf`, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/pdf' }, body: pdf });
  if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
  const start = await fetch(`${url}/api/transaction/${Id}/start`, { method: 'PUT', headers: HEADERS });
  if (start.status !== 204) throw new Error(`start: ${start.status} ${await start.text()}`);
  const tx = (await (await fetch(`${url}/api/transaction/${Id}`, { headers: HEADERS })).json()) as { Signers: { SignUrl: string }[] };
  const token = tx.Signers[0]!.SignUrl.split('/sign/')[1]!;
  const consent = await fetch(`${url}/api/signer/${token}/verification`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Type: 'Consent' }) });
  if (consent.status !== 200) throw new Error(`consent: ${consent.status} ${await consent.text()}`);
  return token;
}

/** Signs with `token`; returns the time it took, ms. */
async function signOnce(url: string, token: string): Promise<number> {
  const started = performance.now();
  const signed = await fetch(`${url}/api/signer/${token}/sign`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (signed.status !== 200) throw new Error(`sign: ${signed.status} ${await signed.text()}`);
  return performance.now() - started;
}

/** Reference for the GET: autocannon against a bare node:http server in this process answering the same body. */
async function bareServerRequestsPerSecond(body: string, seconds: number): Promise<number> {
  const bare = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  try {
    const port = (bare.address() as { port: number }).port;
    return (await autocannon({ url: `http://127.0.0.1:${port}/`, connections: 10, duration: seconds })).requests.average;
  } finally {
    bare.closeAllConnections();
    bare.close();
  }
}

/** Reference for seal-only transactions: the library's sealPdf alone (RSA-2048 test seal), sequential, per second. */
async function sealPdfPerSecond(pdf: Uint8Array, count: number): Promise<number> {
  const pki = await testPki();
  const started = performance.now();
  for (let i = 0; i < count; i++) await sealPdf(pdf, { signer: pki.seal.signer, signingTime: new Date(), organizationName: 'Bench B.V.' });
  return (count / (performance.now() - started)) * 1000;
}

function rssMb(): number {
  return process.memoryUsage().rss / 1024 / 1024;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paraph-bench-'));
  let server: RunningServer | undefined;
  const quick = process.argv.includes('--quick');
  const seconds = Number(process.env.SERVICE_BENCH_SECONDS ?? 10);
  try {
    const startRss = rssMb();
    const config = loadConfig({
      env: { PORT: '0', PARAPH_DATA_DIR: dataDir, PARAPH_USER_TOKEN: USER, PARAPH_APP_KEY: APP, PARAPH_FILE_REPLACE_GUARD_MS: '0', PARAPH_LOG_LEVEL: 'silent',
        // The per-account rate limit (default 1200/min) would answer most of the load with 429: measure the service, not the limit.
        PARAPH_ACCOUNT_REQUESTS_PER_MINUTE: '10000000',
        // autocannon keeps sending on a connection after the server's `Connection: close` (Node answers those with 503).
        PARAPH_MAX_REQUESTS_PER_CONNECTION: '1000000' },
    });
    server = await startServer(config, { logger: false, worker: false });
    const url = server.url;
    const onePage = new Uint8Array(readFileSync(await benchPdf(1)));
    const hundred = new Uint8Array(readFileSync(await benchPdf(100)));

    // Warm up (JIT, SQLite caches, pdf.js load).
    await sealOnlyRate(url, onePage, 10, 2);

    const created = await fetch(`${url}/api/transaction`, { method: 'POST', headers: { ...HEADERS, 'content-type': 'application/json' }, body: JSON.stringify({ Seal: true, Signers: [{ Email: 'a@example.com', SignRequestMessage: 'Please sign.' }, { Email: 'b@example.com', SignRequestMessage: 'Please sign.' }] }) });
    const { Id } = (await created.json()) as { Id: string };
    await fetch(`${url}/api/transaction/${Id}/file/doc.pdf`, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/pdf' }, body: onePage });
    const get = await autocannon({ url: `${url}/api/transaction/${Id}`, connections: 10, duration: seconds, headers: HEADERS });
    if (get.non2xx > 0) throw new Error(`GET answered ${get.non2xx} non-2xx responses (${JSON.stringify(get.statusCodeStats)}): the table would measure refusals, not the service`);
    const body = await (await fetch(`${url}/api/transaction/${Id}`, { headers: HEADERS })).text();
    const bare = await bareServerRequestsPerSecond(body, seconds);
    printTable(`Service: GET /api/transaction/{id} (autocannon, 10 connections, ${seconds} s, in-process)`, ['req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'bare node:http server, same body (ref) req/s', 'target'], [
      [fmt(get.requests.average, 0), fmt(get.latency.p50), fmt(get.latency.p99), String(get.non2xx), String(get.errors), fmt(bare, 0), '≥ 3,000 req/s, p99 < 20 ms'],
    ]);

    // GET while 1000-page documents are signed one after another (each sign: fill, signature, seal, receipt).
    const signPages = Number(process.env.SERVICE_BENCH_SIGN_PAGES ?? 1000);
    const big = new Uint8Array(readFileSync(await benchPdf(signPages)));
    const tokens: string[] = [];
    for (let i = 0; i < (quick ? 2 : 4); i++) tokens.push(await readyToSign(url, big));
    const signMs: number[] = [];
    let signing = true;
    const signer = (async () => {
      for (const token of tokens) signMs.push(await signOnce(url, token));
      signing = false;
    })();
    const during: AutocannonResult[] = [];
    while (signing) during.push(await autocannon({ url: `${url}/api/transaction/${Id}`, connections: 10, duration: 2, headers: HEADERS }));
    await signer;
    const p99 = Math.max(...during.map((r) => r.latency.p99));
    const requests = during.reduce((sum, r) => sum + r.requests.total, 0);
    printTable(`Service: GET /api/transaction/{id} while ${tokens.length} documents of ${signPages} pages are signed one after another (autocannon, 10 connections, 2 s rounds)`, ['GET requests', 'GET p99 ms (worst round)', 'sign ms (each)', 'target'], [
      [String(requests), fmt(p99), signMs.map((ms) => fmt(ms, 0)).join(', '), 'p99 < 20 ms'],
    ]);

    const rate1 = await sealOnlyRate(url, onePage, quick ? 40 : 200, 4);
    const rate100 = await sealOnlyRate(url, hundred, quick ? 8 : 20, 4);
    const seal1 = await sealPdfPerSecond(onePage, quick ? 10 : 50);
    const seal100 = await sealPdfPerSecond(hundred, quick ? 4 : 20);
    printTable('Service: seal-only transactions (create + upload + start → sealed, receipt), 4 clients', ['PDF', 'transactions/s', 'sealPdf alone, sequential (ref) per second', 'target'], [
      [`1 page (${fmt(onePage.length / 1024)} KiB)`, fmt(rate1), fmt(seal1), '≥ 20/s'],
      [`100 pages (${fmt(hundred.length / 1024)} KiB)`, fmt(rate100), fmt(seal100), '–'],
    ]);

    const total = Number(process.env.SERVICE_BENCH_TX ?? 2000);
    const checkpoints = new Map<number, number>();
    const every = Math.max(1, Math.floor(total / 5));
    const rate = await sealOnlyRate(url, onePage, total, 4, (n) => {
      if (n % every === 0) checkpoints.set(n, rssMb());
    });
    const rows = [...checkpoints].map(([n, rss]) => [String(n), fmt(rss), fmt(startRss)]);
    printTable(`Service: RSS over ${total} seal-only transactions (${fmt(rate)}/s)`, ['transactions', 'RSS MB', 'RSS MB of this process before the service started (ref)'], rows);
  } finally {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
