/**
 * paraph's API as a fastify plugin: a host application mounts the transaction API, the signer
 * API and the signing page into its own fastify app, under a prefix, logging through the host's logger. Everything
 * paraph sets (request validation without coercion, error mapping to `{"Message"}`, the 404 body, authentication)
 * stays inside the plugin's encapsulated context, so the host's own routes keep their behaviour. The outbox and
 * timer workers start when the host app is ready and stop when it closes.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceConfig } from './config.js';
import { createService, type ParaphService, type ServiceOptions } from './create-service.js';
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
      readonly prefix?: string;
    };

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
