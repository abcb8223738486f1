/**
 * The standalone transaction service (docs/design/storage.md#running-the-service): `createService` plus paraph's own
 * fastify app, listening on HOST:PORT. Server-level settings (listen address, and whatever limits the HTTP server gets)
 * belong here, not in the plugin a host application mounts. `close()` shuts down gracefully: stop accepting, let
 * in-flight requests finish, stop the workers, close the store.
 */
import type { FastifyInstance } from 'fastify';
import { securitySettings, type ServiceConfig } from './config.js';
import { applyConnectionLimits, type ConnectionCounters } from './http/connection-limits.js';
import { listenForMetrics, serveMetricsRoute } from './http/metrics-endpoint.js';
import {
  createService,
  type CreatedCredentials,
  type ParaphService,
  type ServiceOptions,
  type StartServerOptions,
} from './create-service.js';
import type { EventWorker } from './events/event-worker.js';
import { buildApp, loggerOptions } from './http/app.js';
import type { TimerWorker } from './events/timer-worker.js';
import type { Store } from './store/store.js';
import { tracingExporters, tracingSampler } from './http/tracing-settings.js';

export type { CreatedCredentials, ServiceOptions, StartServerOptions };

/** A listening service. */
export interface RunningServer {
  /** `http://host:port` actually listened on. */
  readonly url: string;
  readonly app: FastifyInstance;
  readonly service: ParaphService;
  readonly store: Store;
  readonly worker: TimerWorker;
  /** The outbox worker (postbacks, mails). */
  readonly events: EventWorker;
  /** Set when this start created the bootstrap account (credentials and postback secret, shown once). */
  readonly createdCredentials?: CreatedCredentials;
  /** Set when this start generated a postback secret for an existing account that had none. */
  readonly generatedPostbackSecret?: string;
  /** Whether this start created the CAs. */
  readonly createdKeys: boolean;
  /** Where the master key came from; `generatedKeyFile` is set when this start generated it. */
  readonly masterKey: { readonly id: string; readonly source: 'configured' | 'file'; readonly generatedKeyFile?: string };
  /** `http://host:port` of the separate metrics listener (PARAPH_METRICS_LISTEN), when configured. */
  readonly metricsUrl?: string;
  /**
   * Graceful shutdown; safe to call twice. `/health/ready` answers 503 at once and no new connection is accepted; the
   * requests in flight may finish for `drainMs` (default 0), after which signing still in progress stops at its next
   * step (503 `SIGNING_ABORTED`, nothing of it kept); then the workers hand back their deliveries and the store closes.
   */
  close(options?: { readonly drainMs?: number }): Promise<void>;
}

/**
 * Starts the service on its own fastify app (to mount it into an existing app, use `paraphPlugin`).
 *
 * @example
 * const server = await startServer(loadConfig({ env: process.env }));
 * console.log(`listening on ${server.url}`);
 */
export async function startServer(config: ServiceConfig, options: ServiceOptions = {}): Promise<RunningServer> {
  // Tracing is configured by OpenTelemetry's own variables; its SDK is loaded only when they ask for it.
  const exporters = tracingExporters(process.env);
  const sampling = exporters === undefined ? undefined : tracingSampler(process.env);
  const tracing = exporters === undefined || sampling === undefined ? undefined : (await import('./http/otel-tracing.js')).startTracing(exporters, sampling);
  let service: ParaphService;
  try {
    service = await createService(config, options);
  } catch (error) {
    await tracing?.shutdown();
    throw error;
  }
  try {
    const app = await buildApp({
      ...service.deps,
      logger: options.logger ?? loggerOptions(config.logLevel),
      ...(tracing ? { requestSpans: tracing.requestSpans } : {}),
    });
    service.metrics.observeConnections(applyServerLimits(app, config));
    if (config.metricsToken !== undefined) serveMetricsRoute(app, service.metrics, config.metricsToken);
    await app.listen({ host: config.host, port: config.port });
    if (config.metricsToken !== undefined || config.metricsListen !== undefined) service.metrics.enableProcessMetrics();
    const metricsServer = config.metricsListen
      ? await listenForMetrics(service.metrics, config.metricsListen, config.metricsToken).catch(async (error: unknown) => {
          await app.close();
          throw error;
        })
      : undefined;
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    service.useListenAddress(url);
    service.startWorkers(app.log);
    let closing: Promise<void> | undefined;
    return {
      url,
      app,
      service,
      store: service.store,
      worker: service.worker,
      events: service.events,
      createdKeys: service.createdKeys,
      ...(service.createdCredentials ? { createdCredentials: service.createdCredentials } : {}),
      ...(service.generatedPostbackSecret !== undefined ? { generatedPostbackSecret: service.generatedPostbackSecret } : {}),
      masterKey: service.masterKey,
      ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
      close: (closeOptions = {}) =>
        (closing ??= (async () => {
          service.beginDrain();
          const drainMs = closeOptions.drainMs ?? 0;
          const closed = app.close();
          // Past the drain time, signing in progress stops at its next step, so the requests app.close() waits for
          // end promptly.
          let timer: NodeJS.Timeout | undefined;
          if (drainMs <= 0) service.beginShutdown();
          else timer = setTimeout(() => service.beginShutdown(), drainMs);
          try {
            await closed;
          } finally {
            clearTimeout(timer);
          }
          await service.close();
          await metricsServer?.close();
          await tracing?.shutdown();
        })()),
    };
  } catch (error) {
    await service.close().catch(() => undefined);
    await tracing?.shutdown().catch(() => undefined);
    throw error;
  }
}

/**
 * The server-level limits against slow and greedy clients (timeouts, keep-alive, connection caps; SECURITY.md
 * "Connections"), applied to the app's HTTP server before it listens. The upload budget follows from the PDF size
 * limit.
 */
function applyServerLimits(app: FastifyInstance, config: ServiceConfig): ConnectionCounters {
  const security = securitySettings(config);
  return applyConnectionLimits(app.server, {
    headersTimeoutMs: security.headersTimeoutMs,
    bodyTimeoutMs: security.bodyTimeoutMs,
    minUploadBytesPerSecond: security.minUploadBytesPerSecond,
    keepAliveTimeoutMs: security.keepAliveTimeoutMs,
    maxRequestsPerConnection: security.maxRequestsPerConnection,
    maxConnections: security.maxConnections,
    maxConnectionsPerAddress: security.maxConnectionsPerAddress,
    maxBodyBytes: config.maxFileBytes,
  });
}
