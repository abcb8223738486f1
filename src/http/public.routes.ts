/**
 * Routes without authentication (decisions.md §10): the service's CA certificates, so relying parties can trust
 * its signatures and seals; `/health`; and the OpenAPI document.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../service/context.js';
import type { RouteDoc } from './openapi.js';

/** Options of {@link publicRoutes}. */
export interface PublicRoutesOptions {
  /** True when the store is open and the worker runs. */
  readonly healthy: () => boolean | Promise<boolean>;
  /** The OpenAPI document (built once the routes are known). */
  readonly openApi: () => Record<string, unknown>;
}

const pem = { 200: { description: 'PEM certificate', content: { 'application/x-pem-file': { type: 'string' } } } };
const health = {
  type: 'object',
  properties: { Status: { type: 'string', enum: ['ok', 'unavailable'] } },
  required: ['Status'],
  additionalProperties: false,
} as const;
const docs = (summary: string, tags: string[], responses: RouteDoc['responses']): { openapi: RouteDoc } => ({ openapi: { summary, tags, auth: 'none', responses } });

/** Registers `/api/ca/signing.pem`, `/api/ca/seal.pem`, `/health`, `/api/openapi.json`. */
export function publicRoutes(ctx: ServiceContext, options: PublicRoutesOptions): FastifyPluginAsync {
  return async (app) => {
    app.get('/api/ca/signing.pem', { config: docs('The advanced signing CA certificate', ['ca'], pem) }, async (_request, reply) =>
      reply.type('application/x-pem-file').send(ctx.keys.signingCaPem),
    );
    app.get('/api/ca/seal.pem', { config: docs('The seal CA certificate', ['ca'], pem) }, async (_request, reply) =>
      reply.type('application/x-pem-file').send(ctx.keys.sealCaPem),
    );
    app.get(
      '/health',
      {
        config: docs('Health: 200 when the store is open and the worker runs', ['service'], {
          200: { description: 'healthy', content: { 'application/json': health } },
          503: { description: 'not healthy (or shutting down)', content: { 'application/json': { anyOf: [health, { $ref: '#/components/schemas/ErrorModel' }] } } },
        }),
      },
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
    const document = { description: 'The OpenAPI 3.1 document', content: { 'application/json': { type: 'object' } } };
    app.get('/api/openapi.json', { config: docs('This OpenAPI document', ['service'], { 200: document }) }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(options.openApi()));
  };
}
