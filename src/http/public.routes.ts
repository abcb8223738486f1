/**
 * Routes without authentication (decisions.md §10): the service's CA certificates, so relying parties can trust
 * its signatures and seals; `/health`; and the OpenAPI document.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../service/context.js';

/** Options of {@link publicRoutes}. */
export interface PublicRoutesOptions {
  /** True when the store is open and the worker runs. */
  readonly healthy: () => boolean | Promise<boolean>;
  /** The OpenAPI document (built once the routes are known). */
  readonly openApi: () => Record<string, unknown>;
}

const pem = { 200: { description: 'PEM certificate', content: { 'application/x-pem-file': { type: 'string' } } } };

/** Registers `/api/ca/signing.pem`, `/api/ca/seal.pem`, `/health`, `/api/openapi.json`. */
export function publicRoutes(ctx: ServiceContext, options: PublicRoutesOptions): FastifyPluginAsync {
  return async (app) => {
    app.get('/api/ca/signing.pem', { config: { openapi: { summary: 'The advanced signing CA certificate', tags: ['ca'], auth: false, responses: pem } } }, async (_request, reply) =>
      reply.type('application/x-pem-file').send(ctx.keys.signingCaPem),
    );
    app.get('/api/ca/seal.pem', { config: { openapi: { summary: 'The seal CA certificate', tags: ['ca'], auth: false, responses: pem } } }, async (_request, reply) =>
      reply.type('application/x-pem-file').send(ctx.keys.sealCaPem),
    );
    app.get(
      '/health',
      { config: { openapi: { summary: 'Health: 200 when the store is open and the worker runs', tags: ['service'], auth: false, responses: { 200: { description: 'healthy' }, 503: { description: 'not healthy' } } } } },
      async (_request, reply) => {
        let ok = false;
        try {
          ok = (await options.healthy()) && (await ctx.store.countAccounts()) >= 0;
        } catch {
          ok = false;
        }
        return reply.code(ok ? 200 : 503).send({ Status: ok ? 'ok' : 'unavailable' });
      },
    );
    app.get('/api/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(options.openApi()));
  };
}
