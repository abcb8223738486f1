/**
 * Slow and greedy clients. A real `paraph serve` keeps answering /health and API calls while 2,000 stalled
 * connections (unfinished headers, unauthenticated POST bodies to /api/signer/x/..., silent sockets) are held from
 * ten other loopback addresses; connections above the per-address cap are closed at once, and the stalled ones are
 * closed by the header and body timeouts. With the total cap filled by anonymous stalled clients (timeouts far away),
 * honest clients still get answers: a new connection takes the slot of the oldest stalled one, and a refused upload
 * is closed rather than drained.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServe, type ServeProcess } from '../helpers/service-harness.js';
import { holdStalledConnections, type StalledConnections } from './stalled-connections.js';

const served: ServeProcess[] = [];
const held: StalledConnections[] = [];
afterAll(async () => {
  for (const h of held) h.destroy();
  for (const s of served) await s.dispose();
});

describe('slow clients', () => {
  it('holds 2,000 stalled connections and still answers /health and the API; caps and timeouts close them', async () => {
    const serve = await spawnServe({
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

  it('at the total cap, new connections take the slots of the oldest stalled ones; serving goes on when they go', async () => {
    const serve = await spawnServe({ env: { PARAPH_MAX_CONNECTIONS: '40', PARAPH_MAX_CONNECTIONS_PER_ADDRESS: '1000', PARAPH_HEADERS_TIMEOUT_MS: '60000' } });
    served.push(serve);
    const stalled = await holdStalledConnections(serve.port, 100, 5, ['silent']);
    held.push(stalled);
    // At most 40 stay open; the server closes the others (the oldest, as newer ones arrive).
    expect(await stalled.waitClosed(60, 15_000)).toBeGreaterThanOrEqual(60);
    stalled.destroy();
    await stalled.waitClosed(100, 15_000);
    expect((await serve.call('GET', '/health')).status).toBe(200);
  }, 180_000);

  it('answers /health and an authenticated GET while anonymous slow clients fill the total cap', async () => {
    // Timeouts far away: only the cap's eviction and the closing of refused requests can make room.
    const serve = await spawnServe({
      env: { PARAPH_MAX_CONNECTIONS: '200', PARAPH_MAX_CONNECTIONS_PER_ADDRESS: '100', PARAPH_HEADERS_TIMEOUT_MS: '120000', PARAPH_BODY_TIMEOUT_MS: '120000' },
    });
    served.push(serve);
    const created = await serve.call('POST', '/api/transaction', { json: { Seal: true } });
    expect(created.status, created.text).toBe(200);
    // 300 anonymous connections from five addresses (60 each, under the per-address cap): 100 more than the total cap.
    const stalled = await holdStalledConnections(serve.port, 300, 5, ['silent', 'headers', 'body', 'refusedUpload']);
    held.push(stalled);
    for (let i = 0; i < 5; i++) expect((await serve.call('GET', '/health')).status).toBe(200);
    const got = await serve.call('GET', `/api/transaction/${created.json.Id}`);
    expect(got.status, got.text).toBe(200);
    // The 75 refused uploads (401) were closed while their clients kept sending, and enough others made room.
    expect(await stalled.waitClosed(100, 30_000)).toBeGreaterThanOrEqual(100);
    const refusedUploads = stalled.sockets.filter((_s, i) => i % 4 === 3);
    const deadline = Date.now() + 30_000;
    while (refusedUploads.some((s) => !s.closed) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(refusedUploads.filter((s) => !s.closed)).toHaveLength(0);
  }, 180_000);
});
