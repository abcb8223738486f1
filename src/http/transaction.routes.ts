/**
 * The transaction resource (docs/design/api.md#endpoints): create, get, delete, start, each with and without the
 * trailing slash (the router ignores it). A handler parses, calls one use case and renders the version the client asked
 * for.
 */
import { contextOf } from './request-trace.js';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CreateTransactionSchema } from '../domain/transaction-schema.js';
import { dropNullProperties, nestingProblem } from '../domain/transaction-json.js';
import { unpairedSurrogateProblem } from '../pdf/unicode-text.js';
import { toTransactionView } from '../domain/transaction-view.js';
import { hasForbiddenMultiLineCharacters, INVALID_CHARACTERS } from '../domain/text-rules.js';
import { ValidationError } from '../errors.js';
import { cancelTransaction } from '../service/cancel-transaction.js';
import type { ServiceContext } from '../service/context.js';
import { createTransaction } from '../service/create-transaction.js';
import { getTransaction } from '../service/get-transaction.js';
import { startTransaction } from '../service/start-transaction.js';
import { accountOf } from './auth.js';
import { versionedReply } from './response-version.js';
import { DeleteTransactionSchema, TransactionParamsSchema } from './transaction.schema.js';
import { errorResponse as error, goneResponse, transactionResponse, type RouteDoc } from './openapi.js';
import { ref } from './response.schema.js';

/**
 * The tolerant reader (docs/design/api.md#tolerant-reader) after the nesting limit: null properties are absent.
 *
 * @throws ValidationError naming the path nested too deep.
 */
function readTolerantly(value: unknown): unknown {
  const problem = nestingProblem(value, 'Transaction') ?? unpairedSurrogateProblem(value, 'Transaction');
  if (problem !== undefined) throw new ValidationError([problem], 'INVALID_REQUEST');
  return dropNullProperties(value);
}

/** Registers the routes under `/api/transaction`. */
export function transactionRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (app) => {
    // Signhost clients send PUT start (and DELETE) with a JSON Content-Type and no body: an empty body is no body.
    const parseJson = app.getDefaultJsonParser('error', 'error');
    // This scope's own parser replaces the app's (which only checks the nesting limit). Bodies are JSON only: a
    // text/plain body is 415 like any other media type, not a string the schema then refuses.
    app.removeContentTypeParser('application/json');
    app.removeContentTypeParser('text/plain');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') {
        done(null, undefined);
        return;
      }
      parseJson(request, text, (error, value) => {
        if (error) {
          done(error, undefined);
          return;
        }
        let read: unknown;
        try {
          read = readTolerantly(value);
        } catch (refused) {
          done(refused as Error, undefined);
          return;
        }
        done(null, read);
      });
    });
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.post(
      '/',
      {
        schema: { body: CreateTransactionSchema },
        config: {
          openapi: {
            summary: 'Create a transaction',
            tags: ['transaction'],
            requestBody: { 'application/json': ref('CreateTransactionRequest') },
            responses: {
              200: transactionResponse('The created transaction (Status 5)'),
              400: error('Invalid request (the message names the property)'),
              413: error('Request body too large'),
            },
          } satisfies RouteDoc,
        },
      },
      async (request, reply) => {
        const tx = await createTransaction(contextOf(ctx, request), accountOf(request), request.body);
        const version = versionedReply(reply, request.headers.accept);
        return reply.code(200).send(toTransactionView(tx, { version, baseUrl: ctx.settings.publicUrl }));
      },
    );

    api.get(
      '/:transactionId',
      {
        schema: { params: TransactionParamsSchema },
        config: {
          openapi: {
            summary: 'Get a transaction',
            tags: ['transaction'],
            responses: {
              200: transactionResponse('The transaction'),
              400: error('Invalid transaction id'),
              410: goneResponse('Cleaned: partial historical data'),
            },
          } satisfies RouteDoc,
        },
      },
      async (request, reply) => {
        const tx = await getTransaction(contextOf(ctx, request), accountOf(request), request.params.transactionId);
        const version = versionedReply(reply, request.headers.accept);
        return reply.send(toTransactionView(tx, { version, baseUrl: ctx.settings.publicUrl }));
      },
    );

    api.delete(
      '/:transactionId',
      {
        // The body is optional: no body means `{}`.
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) request.body = {};
        },
        schema: { params: TransactionParamsSchema, body: DeleteTransactionSchema },
        config: {
          openapi: {
            summary: 'Cancel a transaction (or clean an ended one)',
            tags: ['transaction'],
            requestBody: { 'application/json': ref('DeleteTransactionRequest') },
            responses: {
              200: transactionResponse('The cancelled transaction as it was before its data was deleted'),
              400: error('Could not be deleted'),
              409: error('Changed concurrently: retry'),
              410: goneResponse('Already cleaned'),
              413: error('Request body too large'),
            },
          } satisfies RouteDoc,
        },
      },
      async (request, reply) => {
        const reason = request.body?.Reason;
        if (reason !== undefined && hasForbiddenMultiLineCharacters(reason)) throw new ValidationError([`Reason: ${INVALID_CHARACTERS}`], 'INVALID_REQUEST');
        const before = await cancelTransaction(contextOf(ctx, request), accountOf(request), request.params.transactionId, request.body ?? {});
        const version = versionedReply(reply, request.headers.accept);
        return reply.send(toTransactionView(before, { version, baseUrl: ctx.settings.publicUrl }));
      },
    );

    api.put(
      '/:transactionId/start',
      {
        schema: { params: TransactionParamsSchema },
        config: {
          openapi: {
            summary: 'Start a transaction',
            tags: ['transaction'],
            responses: {
              204: { description: 'Started (a seal-only transaction is sealed: status 30)' },
              400: error('Could not be started (no files, already started, ended)'),
              409: error('Changed concurrently (e.g. a file upload in progress): retry'),
              410: goneResponse('Cleaned'),
            },
          } satisfies RouteDoc,
        },
      },
      async (request, reply) => {
        await startTransaction(contextOf(ctx, request), accountOf(request), request.params.transactionId);
        return reply.code(204).send();
      },
    );
  };
}
