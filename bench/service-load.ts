/** The load the service benchmarks put on a running paraph service: autocannon GETs and seal-only transactions. */
import { createRequire } from 'node:module';

export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

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

