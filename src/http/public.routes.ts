/**
 * Routes without authentication (docs/design/storage.md#public-endpoints): the service's CA certificates, so relying
 * parties can trust its signatures and seals; `/health` and the liveness and readiness probes; and the OpenAPI document.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../service/context.js';
import type { RouteDoc } from './openapi.js';

/** Options of {@link publicRoutes}. */
export interface PublicRoutesOptions {
  /** True when the workers run (or this process runs none by choice). */
  readonly healthy: () => boolean | Promise<boolean>;
  /** The OpenAPI document (built once the routes are known). */
  readonly openApi: () => Record<string, unknown>;
  /** True once the process is shutting down (SIGTERM): `/health/ready` answers 503 from then on. */
  readonly draining?: () => boolean;
}

const pem = { 200: { description: 'PEM certificate', content: { 'application/x-pem-file': { type: 'string' } } } };
const status = { type: 'string', enum: ['ok', 'unavailable'] } as const;
const probe = {
  type: 'object',
  properties: {
    Status: status,
    Reason: { type: 'string', enum: ['draining', 'database'], description: 'Why not ready: shutting down, or the database does not answer' },
  },
  required: ['Status'],
  additionalProperties: false,
} as const;
const health = {
  type: 'object',
  properties: {
    Status: status,
    Database: {
      type: 'object',
      description: 'The store: its kind, whether it answered, and its schema version (the highest applied migration)',
      properties: { Kind: { type: 'string', enum: ['sqlite', 'postgresql'] }, Status: status, SchemaVersion: { type: 'integer' } },
      required: ['Kind', 'Status'],
      additionalProperties: false,
    },
    Workers: { type: 'string', enum: ['ok', 'stopped'], description: 'The outbox and timer workers (ok also when this process runs none by choice)' },
  },
  required: ['Status', 'Database', 'Workers'],
  additionalProperties: false,
} as const;
/** A database that does not answer within this long counts as unavailable (a health check must not hang). */
const PING_TIMEOUT_MS = 3_000;
const docs = (summary: string, tags: string[], responses: RouteDoc['responses']): { openapi: RouteDoc } => ({ openapi: { summary, tags, auth: 'none', responses } });

/** Registers `/api/ca/signing.pem`, `/api/ca/seal.pem`, `/health`, `/health/live`, `/health/ready`, `/api/openapi.json`. */
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
        config: docs('Health: 200 when the database answers and the workers run', ['service'], {
          200: { description: 'healthy', content: { 'application/json': health } },
          503: {
            description: 'not healthy: the database does not answer or the workers stopped (or shutting down)',
            content: { 'application/json': { anyOf: [health, { $ref: '#/components/schemas/ErrorModel' }] } },
          },
        }),
      },
      async (request, reply) => {
        const [database, workers] = await Promise.all([pingWithin(ctx.store, PING_TIMEOUT_MS), (async () => options.healthy())().catch(() => false)]);
        // The driver's message may name the host, database or user: it goes to the log, never into the answer.
        if (!database.ok) request.log.warn({ database: database.kind, error: database.error }, 'health: the database does not answer');
        const ok = database.ok && workers;
        return reply.code(ok ? 200 : 503).send({
          Status: ok ? 'ok' : 'unavailable',
          Database: {
            Kind: database.kind,
            Status: database.ok ? 'ok' : 'unavailable',
            ...(database.ok && database.schemaVersion !== undefined ? { SchemaVersion: database.schemaVersion } : {}),
          },
          Workers: workers ? 'ok' : 'stopped',
        });
      },
    );
    app.get(
      '/health/live',
      { config: docs('Liveness: 200 while the process serves requests (restart it when this fails)', ['service'], { 200: { description: 'alive', content: { 'application/json': probe } } }) },
      async (_request, reply) => reply.send({ Status: 'ok' }),
    );
    app.get(
      '/health/ready',
      {
        config: docs('Readiness: 200 when the process takes new work: not shutting down and the database answers', ['service'], {
          200: { description: 'ready', content: { 'application/json': probe } },
          503: { description: 'not ready: shutting down, or the database does not answer', content: { 'application/json': { anyOf: [probe, { $ref: '#/components/schemas/ErrorModel' }] } } },
        }),
      },
      async (request, reply) => {
        if (options.draining?.() === true) return reply.code(503).send({ Status: 'unavailable', Reason: 'draining' });
        const database = await pingWithin(ctx.store, PING_TIMEOUT_MS);
        if (!database.ok) {
          request.log.warn({ database: database.kind, error: database.error }, 'ready: the database does not answer');
          return reply.code(503).send({ Status: 'unavailable', Reason: 'database' });
        }
        return reply.send({ Status: 'ok' });
      },
    );
    const document = { description: 'The OpenAPI 3.1 document', content: { 'application/json': { type: 'object' } } };
    app.get('/api/openapi.json', { config: docs('This OpenAPI document', ['service'], { 200: document }) }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(options.openApi()));
  };
}

type Store = ServiceContext['store'];

/** The store's ping, or "unavailable" when it has not answered within `ms`. */
async function pingWithin(store: Store, ms: number): Promise<Awaited<ReturnType<Store['ping']>> & { kind: Store['kind'] }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    const answer = await Promise.race([store.ping(), late]);
    return { kind: store.kind, ...(answer === 'late' ? { ok: false, error: `no answer within ${ms} ms` } : answer) };
  } finally {
    clearTimeout(timer);
  }
}
