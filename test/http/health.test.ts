/**
 * `/health`: reports the database (kind, whether it answered, schema version) and the workers, answers 503
 * when either is down, and never names where the data lives. PostgreSQL: test/postgres/service-on-postgres.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../src/testing/start-test-service.js';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

describe('/health on the embedded store', () => {
  it('reports SQLite with its schema version; 503 saying the database is unavailable once the store is closed', async () => {
    service = await startTestService();
    const up = await service.client.request('GET', '/health', { auth: false });
    expect(up.status).toBe(200);
    expect(up.json).toEqual({ Status: 'ok', Database: { Kind: 'sqlite', Status: 'ok', SchemaVersion: expect.any(Number) }, Workers: 'ok' });
    expect((up.json as { Database: { SchemaVersion: number } }).Database.SchemaVersion).toBeGreaterThanOrEqual(1);

    await service.server.store.close();
    const down = await service.client.request('GET', '/health', { auth: false });
    expect(down.status).toBe(503);
    expect(down.json).toEqual({ Status: 'unavailable', Database: { Kind: 'sqlite', Status: 'unavailable' }, Workers: 'ok' });
    expect(down.text).not.toContain(service.dataDir);
  });

  it('answers 503 with the database up when the workers stopped', async () => {
    service = await startTestService({ worker: true });
    expect((await service.client.request('GET', '/health', { auth: false })).status).toBe(200);
    await service.server.service.stopWorkers();
    const stopped = await service.client.request('GET', '/health', { auth: false });
    expect(stopped.status).toBe(503);
    expect(stopped.json).toMatchObject({ Status: 'unavailable', Database: { Kind: 'sqlite', Status: 'ok' }, Workers: 'stopped' });
  });
});
