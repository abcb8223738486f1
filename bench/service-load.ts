/** The load the service benchmarks put on a running paraph service: autocannon GETs and seal-only transactions. */
import { createRequire } from 'node:module';

export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
}
/** A running autocannon load: awaitable for its result, and an emitter of each response as it comes. */
type AutocannonRun = Promise<AutocannonResult> & {
  on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): void;
};
type Autocannon = (options: Record<string, unknown>) => AutocannonRun;
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/**
 * An autocannon run with the 99th percentile of its 2xx response times at microsecond precision: autocannon's own
 * percentiles are whole milliseconds, too coarse to tell a few percent at a p99 of a few milliseconds.
 */
export async function autocannonWithP99(options: Record<string, unknown>): Promise<AutocannonResult & { readonly p99Ms: number }> {
  const times: number[] = [];
  const run = autocannon(options);
  run.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) times.push(responseTimeMs);
  });
  const result = await run;
  times.sort((a, b) => a - b);
  return { ...result, p99Ms: times.length === 0 ? Number.NaN : times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)]! };
}

export const USER = 'bench-user-token';
export const APP = 'bench-app-key';
export const HEADERS = { authorization: `APIKey ${USER}`, application: `APPKey ${APP}` };

async function sealOnly(url: string, pdf: Uint8Array): Promise<void> {
  const created = await fetch(`${url}/api/transaction`, {
    method: 'POST',
    headers: { ...HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({ Seal: true }),
  });
  if (created.status !== 200) throw new Error(`create: ${created.status} ${await created.text()}`);
  const { Id } = (await created.json()) as { Id: string };
  const upload = await fetch(`${url}/api/transaction/${Id}/file/doc.pdf`, { method: 'PUT', headers: { ...HEADERS, 'content-type': 'application/pdf' }, body: pdf });
  if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
  const start = await fetch(`${url}/api/transaction/${Id}/start`, { method: 'PUT', headers: HEADERS });
  if (start.status !== 204) throw new Error(`start: ${start.status} ${await start.text()}`);
}

/** Runs `count` seal-only transactions with `clients` in parallel; returns transactions per second. */
export async function sealOnlyRate(url: string, pdf: Uint8Array, count: number, clients: number, onDone?: (n: number) => void): Promise<number> {
  let next = 0;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) {
        next++;
        await sealOnly(url, pdf);
        onDone?.(++done);
      }
    }),
  );
  return (count / (performance.now() - started)) * 1000;
}

