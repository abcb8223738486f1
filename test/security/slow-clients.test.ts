/**
 * Slow and greedy clients. A real `paraph serve` keeps answering /health and API calls while
 * 2,000 stalled connections (unfinished headers, unauthenticated POST bodies to /api/signer/x/..., silent sockets)
 * are held from ten other loopback addresses; connections above the per-address cap are closed at once, and the
 * stalled ones are closed by the header and body timeouts. A total cap closes connections beyond it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { holdStalledConnections, startServe, type ServeProcess, type StalledConnections } from './harness.js';

const served: ServeProcess[] = [];
const held: StalledConnections[] = [];
afterAll(async () => {
  for (const h of held) h.destroy();
  for (const s of served) await s.dispose();
});

describe('slow clients', () => {
  it('holds 2,000 stalled connections and still answers /health and the API; caps and timeouts close them', async () => {
    const serve = await startServe({
      env: { PARAPH_HEADERS_TIMEOUT_MS: '3000', PARAPH_BODY_TIMEOUT_MS: '3000', PARAPH_MAX_CONNECTIONS_PER_ADDRESS: '50', PARAPH_MAX_CONNECTIONS: '1000' },
    });
    served.push(serve);
    const stalled = await holdStalledConnections(serve.port, 2000, 10, ['headers', 'body', 'silent']);
    held.push(stalled);

    // Ten addresses × 50 allowed: at least 1,500 are closed at once by the per-address cap.
    expect(await stalled.waitClosed(1500, 15_000)).toBeGreaterThanOrEqual(1500);
    const health = await serve.call('GET', '/health');
    expect(health.status).toBe(200);
    const created = await serve.call('POST', '/api/transaction', { json: { Seal: true } });
    expect(created.status, created.text).toBe(200);
    const got = await serve.call('GET', `/api/transaction/${created.json.Id}`);
    expect(got.status).toBe(200);

    // The rest (stalled headers, stalled body, silent) are closed by the timeouts.
    expect(await stalled.waitClosed(2000, 60_000)).toBe(2000);
    expect((await serve.call('GET', '/health')).status).toBe(200);
  }, 180_000);

  it('closes connections beyond the total cap at once and keeps serving when they go', async () => {
    const serve = await startServe({ env: { PARAPH_MAX_CONNECTIONS: '40', PARAPH_MAX_CONNECTIONS_PER_ADDRESS: '1000', PARAPH_HEADERS_TIMEOUT_MS: '60000' } });
    served.push(serve);
    const stalled = await holdStalledConnections(serve.port, 100, 5, ['silent']);
    held.push(stalled);
    // At most 40 stay open; the server drops the others.
    expect(await stalled.waitClosed(60, 15_000)).toBeGreaterThanOrEqual(60);
    stalled.destroy();
    await stalled.waitClosed(100, 15_000);
    expect((await serve.call('GET', '/health')).status).toBe(200);
  }, 180_000);
});
