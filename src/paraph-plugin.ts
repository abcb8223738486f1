/**
 * paraph's API as a fastify plugin: a host application mounts the transaction API, the signer
 * API and the signing page into its own fastify app, under a prefix, logging through the host's logger. Everything
 * paraph sets (request validation without coercion, error mapping to `{"Message"}`, the 404 body, authentication)
 * stays inside the plugin's encapsulated context, so the host's own routes keep their behaviour. The outbox and
 * timer workers start when the host app is ready and stop when it closes.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ServiceConfig } from './config.js';
import { createService, type CreatedCredentials, type ParaphService, type ServiceOptions } from './create-service.js';
import { AJV_OPTIONS, registerParaphRoutes } from './http/app.js';
import { formatSchemaErrors } from './http/validation-messages.js';

/** Options of {@link paraphPlugin}: a service made with `createService`, or a configuration to make one from. */
export type ParaphPluginOptions =
  | {
      /** A created service; the caller closes it (the plugin only stops its workers with the host app). */
      readonly service: ParaphService;
      readonly prefix?: string;
    }
  | {
      /** The service's configuration (`loadConfig`); the plugin creates the service and closes it with the host app. */
      readonly config: ServiceConfig;
      /** Clock, key type, senders, … (`logger` is ignored: the host's logger is used). */
      readonly serviceOptions?: ServiceOptions;
      /**
       * Receives what the service created on this start and shows only once: the credentials and postback secret of
       * a new account, or the generated postback secret of an existing account that had none. Called once, before
       * the routes are mounted, and only when there is something new. Without it they are logged once, as a warning,
       * through the host's logger (as `paraph serve` prints them).
       */
      readonly onCreated?: (created: CreatedOnStart) => void | Promise<void>;
      readonly prefix?: string;
    };

/** What a start created and shows only once (see `onCreated` of {@link ParaphPluginOptions}). */
export interface CreatedOnStart {
  /** A new bootstrap account's keys and postback secret (zero-config start on an empty data directory). */
  readonly credentials?: CreatedCredentials;
  /** A postback secret generated for an account without one (configured keys, or an older data directory). */
  readonly generatedPostbackSecret?: string;
}

/**
 * Mounts paraph into a host fastify app. Set the configuration's `publicUrl` to the host's public address plus the
 * prefix, so that `SignUrl` and file `Links` point into the mounted routes.
 *
 * @example
 * const host = Fastify({ logger: true });
 * host.get('/', async () => 'the host app');
 * await host.register(paraphPlugin, {
 *   prefix: '/paraph',
 *   config: loadConfig({ env: { ...process.env, PARAPH_PUBLIC_URL: 'https://example.com/paraph' } }),
 * });
 * await host.listen({ port: 3000 });   // workers run; host.close() stops them and closes the store
 */
export const paraphPlugin: FastifyPluginAsync<ParaphPluginOptions> = async (instance, options) => {
  const owned = !('service' in options);
  const service = 'service' in options ? options.service : await createService(options.config, options.serviceOptions ?? {});
  try {
    if (!('service' in options)) await handOver(instance, service, options.onCreated);
    instance.setValidatorCompiler(AjvCompiler()({}, { customOptions: { ...AJV_OPTIONS } }));
    instance.setSchemaErrorFormatter(formatSchemaErrors);
    const { logger: _standaloneLogger, ...deps } = service.deps;
    await registerParaphRoutes(instance, deps);
  } catch (error) {
    if (owned) await service.close();
    throw error;
  }
  instance.addHook('onReady', async () => service.startWorkers(instance.log));
  instance.addHook('onClose', async () => (owned ? service.close() : service.stopWorkers()));
};

/** Hands what the start created to the host: its callback, else its logger (once). */
async function handOver(instance: FastifyInstance, service: ParaphService, onCreated: ((created: CreatedOnStart) => void | Promise<void>) | undefined): Promise<void> {
  const created: CreatedOnStart = {
    ...(service.createdCredentials ? { credentials: service.createdCredentials } : {}),
    ...(service.generatedPostbackSecret !== undefined ? { generatedPostbackSecret: service.generatedPostbackSecret } : {}),
  };
  if (created.credentials === undefined && created.generatedPostbackSecret === undefined) return;
  if (onCreated) return onCreated(created);
  const { credentials } = created;
  if (credentials) {
    instance.log.warn(
      { paraphCredentials: { userToken: credentials.userToken, appKey: credentials.appKey, postbackSecret: credentials.postbackSecret } },
      'paraph created an account (shown once; pass onCreated to paraphPlugin to store it instead): send "Authorization: APIKey <userToken>" and "Application: APPKey <appKey>"; verify postbacks with the postback secret',
    );
  } else {
    instance.log.warn(
      { paraphPostbackSecret: created.generatedPostbackSecret },
      'paraph generated a postback secret for its account (shown once; set PARAPH_POSTBACK_SECRET to choose it, or pass onCreated to paraphPlugin)',
    );
  }
}
