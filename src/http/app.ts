/**
 * The HTTP adapter of the transaction service (docs/design/api.md): `buildApp(deps)` wires the store, clock, ids,
 * keys, TSA and logger it is handed into fastify; nothing here reads the environment (server.ts does that). Routes
 * are registered explicitly per resource; request bodies are validated with the TypeBox schemas (ajv: no type
 * coercion, no removal of unknown properties, so that unknown properties and nulls are refused with their names);
 * every error goes through the one table in error-map.ts; the OpenAPI document is generated from the same schemas.
 */
import { addRequestTraceField } from './request-trace.js';
import { randomUUID } from 'node:crypto';
import fastifyHelmet from '@fastify/helmet';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { nestingProblem } from '../domain/transaction-json.js';
import { unpairedSurrogateProblem } from '../pdf/unicode-text.js';
import { toPartialTransactionView } from '../domain/transaction-view.js';
import { ValidationError } from '../errors.js';
import { createServiceContext, type ServiceContext, type ServiceContextDeps } from '../service/context.js';
import { TransactionCleanedError } from '../service/policies/transaction-guards.js';
import { authenticate } from './auth.js';
import { authenticateAdmin } from './admin-auth.js';
import { adminRoutes } from './admin.routes.js';
import { accountRoutes } from './account.routes.js';
import { limitAccountRate } from './account-rate-limit.js';
import { accountRateQuotas } from '../service/policies/account-rate-quota.js';
import { handleError } from './error-map.js';
import { fileRoutes } from './file.routes.js';
import { registerOpenApi } from './openapi.js';
import { publicRoutes } from './public.routes.js';
import { receiptRoutes } from './receipt.routes.js';
import { versionedReply } from './response-version.js';
import { transactionRoutes } from './transaction.routes.js';
import { signerRoutes, redactSignToken } from './signer.routes.js';
import { signPageRoutes } from './sign-page.routes.js';
import { samlRoutes } from './saml.routes.js';
import { defaultVerificationSenders, type VerificationSenders } from '../service/delivery/verification-senders.js';
import { formatSchemaErrors } from './validation-messages.js';
import type { ParaphMetrics } from './metrics.js';

/** What the app is built from: the service context's parts (or the context itself) plus the HTTP layer's own. */
export interface AppDeps extends ServiceContextDeps {
  /** A pino logger, pino options, or false for none (default). */
  readonly logger?: FastifyBaseLogger | FastifyServerOptions['logger'];
  /** For `/health`: whether the worker runs (default: always). */
  readonly healthy?: () => boolean;
  /** Version shown in the OpenAPI document. */
  readonly version?: string;
  /** Senders of the PhoneNumber/Email verification codes (default: SMS to the log, e-mail through the mail outbox). */
  readonly verificationSenders?: VerificationSenders;
  /** API requests per account and minute (default: no quota). */
  readonly accountRequestsPerMinute?: number;
  /** Development only: the default SMS sender logs the codes (default false). */
  readonly logVerificationCodes?: boolean;
  /** The context the composition root built (shared with the workers); built from the fields above when absent. */
  readonly context?: ServiceContext;
  /** With tracing on: adds the hooks that make a span per request (src/http/otel-request-spans.ts). */
  readonly requestSpans?: (app: FastifyInstance) => void;
  /** The service's metrics: every request is counted in them (they are served by server.ts, not here). */
  readonly metrics?: ParaphMetrics;
  /** True once the process is shutting down: `/health/ready` answers 503. */
  readonly draining?: () => boolean;
  /** The admin API's token (docs/design/accounts.md#admin-api); without it every admin request answers 401. */
  readonly adminToken?: string;
}

/** Headers that carry credentials: never logged. */
const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.application', 'req.headers.cookie'];

/**
 * Pino options of the service: request ids, nothing secret. With tracing on, the lines of a traced request carry its
 * trace and span id (otel-request-spans.ts binds them to the request's logger).
 */
export function loggerOptions(level: string): Record<string, unknown> {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // The SignUrl token is a credential (docs/design/signer-api.md#token): never in a log line.
    serializers: { req: (req: { method?: string; url?: string; id?: string }) => ({ method: req.method, url: redactSignToken(req.url ?? ''), id: req.id }) },
  };
}

/**
 * Builds the fastify app (not listening; `server.ts` listens, tests use `listen({port: 0})` or `inject`).
 *
 * @example
 * const app = await buildApp({ store, clock: () => new Date(), keys, settings });
 * await app.listen({ host: '127.0.0.1', port: 8080 });
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const loggerInstance = isLogger(deps.logger) ? deps.logger : undefined;
  const app = Fastify({
    ...(loggerInstance ? { loggerInstance } : { logger: (deps.logger as FastifyServerOptions['logger']) ?? false }),
    // fileIds may be 255 characters, percent-encoded up to 9 bytes each.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 4096 },
    bodyLimit: JSON_BODY_LIMIT,
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    ajv: {
      customOptions: AJV_OPTIONS,
    },
    schemaErrorFormatter: formatSchemaErrors,
  });
  addRequestTraceField(app);
  deps.requestSpans?.(app);
  deps.metrics?.observeRequests(app);
  await registerParaphRoutes(app, deps);
  return app;
}

/** Ajv settings of paraph's request schemas: unknown properties and nulls are refused with their names, never coerced. */
export const AJV_OPTIONS = { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: true, verbose: true, discriminator: true } as const;
/** Largest JSON request body (PDF uploads set their own limit). */
const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * Registers paraph's hooks, error handling and routes on `app`: the root instance of {@link buildApp}, or the
 * encapsulated context a host application gives the fastify plugin (so nothing here leaks into the host's routes).
 */
export async function registerParaphRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const ctx = deps.context ?? createServiceContext(deps);
  // Every JSON body is held to the nesting limit before a route walks it; the transaction routes add the
  // tolerant reader on top in their own parser.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, typeof body === 'string' ? body : body.toString('utf8'), (error, value) => {
      const problem = error ? undefined : (nestingProblem(value, 'body') ?? unpairedSurrogateProblem(value, 'body'));
      if (error) done(error, undefined);
      else if (problem !== undefined) done(new ValidationError([problem], 'INVALID_REQUEST'), undefined);
      else done(null, value);
    });
  });
  // Security headers on every response; the HTML pages set their own stricter ones (sign-page.routes.ts),
  // swagger-ui its own CSP for /api/docs. JSON and PDFs load nothing, so their policy allows nothing.
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] } },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  app.decorateRequest('account', null);
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    // Answers hold transactions, documents, receipts and tokens: no cache (browser, proxy) keeps them. Routes that
    // may be cached (the sign page's static files) set their own.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    // An answer sent before the request's body was read ends the connection (connection-limits.ts closes it rather
    // than drain the body): say so, so that a keep-alive client does not send its next request on it.
    const declaresBody = request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0';
    if (declaresBody && !request.raw.complete) reply.header('connection', 'close');
    return payload;
  });
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof TransactionCleanedError) {
      const version = versionedReply(reply, request.headers.accept);
      return reply.code(410).send(toPartialTransactionView(error.transaction, { version }));
    }
    handleError(error, request, reply);
    return reply;
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send({ Message: `No resource at ${request.method} ${request.url.split('?')[0]}.` }));

  await registerOpenApi(app, { version: deps.version ?? '0.1.0', serverUrl: deps.settings.publicUrl });
  await app.register(publicRoutes(ctx, { healthy: deps.healthy ?? (() => true), openApi: () => app.swagger() as unknown as Record<string, unknown>, ...(deps.draining ? { draining: deps.draining } : {}) }));
  await app.register(async (api) => {
    api.addHook('onRequest', authenticate(ctx));
    // Shared across processes when the store is (PostgreSQL); in memory otherwise. An account's own limit replaces
    // the service-wide one.
    api.addHook('onRequest', limitAccountRate(accountRateQuotas(ctx.store.rateBuckets), deps.accountRequestsPerMinute));
    await api.register(transactionRoutes(ctx), { prefix: '/api/transaction' });
    await api.register(fileRoutes(ctx), { prefix: '/api/transaction' });
    await api.register(receiptRoutes(ctx), { prefix: '/api/file/receipt' });
    await api.register(accountRoutes(ctx), { prefix: '/api/account' });
  });
  await app.register(async (admin) => {
    admin.addHook('onRequest', authenticateAdmin(deps.adminToken));
    await admin.register(adminRoutes(ctx), { prefix: '/api/admin' });
  });
  const senders = deps.verificationSenders ?? defaultVerificationSenders(app.log, { logCodes: deps.logVerificationCodes === true });
  await app.register(signerRoutes(ctx, { senders }), { prefix: '/api/signer' });
  await app.register(signPageRoutes(ctx));
  await app.register(samlRoutes(ctx));
}

function isLogger(value: unknown): value is FastifyBaseLogger {
  return typeof value === 'object' && value !== null && typeof (value as { child?: unknown }).child === 'function' && typeof (value as { info?: unknown }).info === 'function';
}
