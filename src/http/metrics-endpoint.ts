/**
 * Where the metrics are scraped (docs/operations.md#metrics): `GET /metrics` on the service's own address only behind
 * its bearer token (PARAPH_METRICS_TOKEN), or on a separate listener (PARAPH_METRICS_LISTEN) meant for an internal
 * network, which checks the token too when one is set. Without either there is no `/metrics` at all.
 */
import { createServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { metricsAuthorized, type ParaphMetrics } from './metrics.js';

/** Adds `GET /metrics` to `app`, answering 401 without `Authorization: Bearer <token>`. */
export function serveMetricsRoute(app: FastifyInstance, metrics: ParaphMetrics, token: string): void {
  app.get('/metrics', async (request, reply) => {
    if (!metricsAuthorized(request.headers.authorization, token)) {
      return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').send({ Message: 'The metrics need Authorization: Bearer <PARAPH_METRICS_TOKEN>.' });
    }
    const { contentType, body } = await metrics.expose();
    return reply.type(contentType).send(body);
  });
}

/** Listens on `address` with a server that answers only `GET /metrics`. */
export async function listenForMetrics(
  metrics: ParaphMetrics,
  address: { readonly host: string; readonly port: number },
  token: string | undefined,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    if (token !== undefined && !metricsAuthorized(request.headers.authorization, token)) {
      response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' }).end('Authorization: Bearer <PARAPH_METRICS_TOKEN> needed.\n');
      return;
    }
    metrics.expose().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : body),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be collected.\n'),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : address.port;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
